/**
 * The posts service (source `posts`, 127.0.0.1:4002 in gateway.toml):
 *   GET /posts?limit=N&author_id=X  the first N posts (default 10, at most 100), optionally by one author
 *   GET /posts?ids=1,2,3            the posts among those ids that exist (unknown ids skipped)
 *   GET /posts?author_ids=1,2       every post by those users (the batch of User.posts)
 *   GET /posts/:id                  one post, or 404 {"error": …}
 *   GET /users/:id/posts            every post by one user ([] for an unknown user)
 *   POST /posts                     {"title", "body", "author_id"}: creates a post, answers 201 with it
 *   DELETE /posts/:id               deletes a post: 204, or 404 when there is none
 * Writes live in memory until the process ends.
 */
import { POSTS, type PostRecord } from './data.js';
import { notFound, parseIds, parseLimit, type BlogRoutes } from './http.js';

const byId = new Map<number, PostRecord>(POSTS.map((p) => [p.id, p]));
let nextId = Math.max(...POSTS.map((p) => p.id)) + 1;
/** Every post that exists now, in id order. */
const allPosts = (): PostRecord[] => [...byId.values()];

export const postsRoutes: BlogRoutes = [
  [
    '/posts',
    ({ query }) => {
      const ids = query.get('ids');
      if (ids !== null) return { json: parseIds(ids).flatMap((id) => byId.get(id) ?? []) };
      const authorIds = query.get('author_ids');
      if (authorIds !== null) {
        const wanted = new Set(parseIds(authorIds));
        return { json: allPosts().filter((p) => wanted.has(p.author_id)) };
      }
      const limit = parseLimit(query.get('limit'), 10, 100);
      const author = query.get('author_id');
      const matching = author === null ? allPosts() : allPosts().filter((p) => String(p.author_id) === author);
      return { json: matching.slice(0, limit) };
    },
  ],
  [
    '/posts/:id',
    ({ params }) => {
      const post = byId.get(Number(params.id));
      return post === undefined ? notFound('post', params.id) : { json: post };
    },
  ],
  ['/users/:id/posts', ({ params }) => ({ json: allPosts().filter((p) => String(p.author_id) === params.id) })],
  [
    'POST /posts',
    ({ body }) => {
      const input = (body ?? {}) as { title?: unknown; body?: unknown; author_id?: unknown };
      const authorId = Number(input.author_id);
      if (typeof input.title !== 'string' || typeof input.body !== 'string' || !Number.isInteger(authorId) || authorId < 1) {
        return { status: 422, json: { error: 'a post needs a title, a body and a numeric author_id' } };
      }
      const post: PostRecord = {
        id: nextId++,
        author_id: authorId,
        title: input.title,
        body: input.body,
        created_at: new Date().toISOString(),
      };
      byId.set(post.id, post);
      return { status: 201, json: post };
    },
  ],
  ['DELETE /posts/:id', ({ params }) => (byId.delete(Number(params.id)) ? { status: 204 } : notFound('post', params.id))],
];
