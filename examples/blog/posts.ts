/**
 * The posts service (source `posts`, 127.0.0.1:4002 in gateway.toml):
 *   GET /posts?limit=N&author_id=X  the first N posts (default 10, at most 100), optionally by one author
 *   GET /posts?ids=1,2,3            the posts among those ids that exist (unknown ids skipped)
 *   GET /posts?author_ids=1,2       every post by those users (the batch of User.posts)
 *   GET /posts/:id                  one post, or 404 {"error": …}
 *   GET /users/:id/posts            every post by one user ([] for an unknown user)
 */
import { POSTS, type PostRecord } from './data.js';
import { notFound, parseIds, parseLimit, type BlogRoutes } from './http.js';

const byId = new Map<number, PostRecord>(POSTS.map((p) => [p.id, p]));

export const postsRoutes: BlogRoutes = [
  [
    '/posts',
    ({ query }) => {
      const ids = query.get('ids');
      if (ids !== null) return { json: parseIds(ids).flatMap((id) => byId.get(id) ?? []) };
      const authorIds = query.get('author_ids');
      if (authorIds !== null) {
        const wanted = new Set(parseIds(authorIds));
        return { json: POSTS.filter((p) => wanted.has(p.author_id)) };
      }
      const limit = parseLimit(query.get('limit'), 10, 100);
      const author = query.get('author_id');
      const matching = author === null ? POSTS : POSTS.filter((p) => String(p.author_id) === author);
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
  ['/users/:id/posts', ({ params }) => ({ json: POSTS.filter((p) => String(p.author_id) === params.id) })],
];
