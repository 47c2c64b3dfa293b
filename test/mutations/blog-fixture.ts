/**
 * The writable blog upstream and schema the mutation tests share: posts and users in memory,
 * writes applied, every request recorded (order, method, body, headers) by the counting upstream.
 */
import { startUpstream, type CountingUpstream, type RouteRequest } from '../support/upstream.js';
import { sleep } from '../support/wait.js';

export const BLOG_SCHEMA = `
type Query {
  post(id: ID!): Post @fetch(source: "blog", path: "/posts/{args.id}") @cache(ttl: 300)
  search(q: String!): [Post] @fetch(source: "blog", path: "/search", method: "POST", body: """{"q": {args.q}, "note": "q={args.q}"}""")
}
type Mutation {
  createPost(input: PostInput!): Post
    @fetch(source: "blog", path: "/posts", method: "POST", body: """{"post": {args.input}, "by": "user {args.input.authorId}"}""")
  renamePost(id: ID!, title: String!): Post
    @fetch(source: "blog", path: "/posts/{args.id}", method: "PATCH", body: """{"title": {args.title}}""")
  retitlePost(id: ID!, title: String!): Post
    @fetch(source: "blog", path: "/posts/{args.id}", method: "PATCH", body: """{"title": {args.title}}""")
    @invalidate(source: "blog", path: "/posts/{result.postId}")
    @invalidate(source: "blog", path: "/users/{result.authorId}")
  deletePost(id: ID!): Boolean
    @fetch(source: "blog", path: "/posts/{args.id}", method: "DELETE")
    @invalidate(source: "blog", path: "/posts/{args.id}")
  archivePost(id: ID!): Post @fetch(source: "blog", path: "/posts/{args.id}/archive", method: "PUT")
  touchPost(id: ID!): Boolean @fetch(source: "blog", path: "/posts/{args.id}/touch", method: "POST")
  failing(id: ID!): Post @fetch(source: "blog", path: "/posts/{args.id}/fail", method: "POST") @invalidate(source: "blog", path: "/posts/{args.id}")
  failingStrict(id: ID!): Post! @fetch(source: "blog", path: "/posts/{args.id}/fail", method: "POST")
}
input PostInput { title: String! authorId: ID }
type Post {
  postId: ID! @from(key: "id")
  title: String!
  authorId: ID @from(key: "author_id")
  author: User @fetch(source: "blog", path: "/users/{parent.authorId}") @cache(ttl: 300)
}
type User { id: ID! name: String }
`;

export interface PostRow {
  id: number;
  title: string;
  author_id: number;
}

/** The blog upstream: posts and users in memory, writes applied, every request recorded. */
export async function startBlog(events: string[] = []): Promise<{ upstream: CountingUpstream; posts: Map<number, PostRow> }> {
  const posts = new Map<number, PostRow>([
    [1, { id: 1, title: 'First', author_id: 7 }],
    [2, { id: 2, title: 'Second', author_id: 7 }],
  ]);
  let nextId = 100;
  const idOf = (r: RouteRequest): number => Number(r.params.id);
  const upstream = await startUpstream({
    'GET /posts/:id': (r) => (posts.has(idOf(r)) ? { json: posts.get(idOf(r)) } : { status: 404, json: { error: 'no such post' } }),
    'GET /users/:id': (r) => ({ json: { id: r.params.id, name: `user ${r.params.id}` } }),
    'POST /search': (r) => ({ json: [...posts.values()].filter((p) => p.title.includes((JSON.parse(r.body) as { q: string }).q)) }),
    'POST /posts': async (r) => {
      const { post } = JSON.parse(r.body) as { post: { title: string; authorId?: string } };
      events.push(`start ${post.title}`);
      if (post.title.startsWith('slow')) await sleep(300);
      const row = { id: nextId++, title: post.title, author_id: Number(post.authorId ?? 7) };
      posts.set(row.id, row);
      events.push(`end ${post.title}`);
      return { status: 201, json: row };
    },
    'PATCH /posts/:id': (r) => {
      const row = posts.get(idOf(r));
      if (!row) return { status: 404, json: { error: 'no such post' } };
      row.title = (JSON.parse(r.body) as { title: string }).title;
      return { json: row };
    },
    'DELETE /posts/:id': (r) => (posts.delete(idOf(r)) ? { status: 204, body: '' } : { status: 404, json: { error: 'no such post' } }),
    'PUT /posts/:id/archive': () => ({ status: 204, body: '' }),
    'POST /posts/:id/touch': () => ({ status: 200, body: '' }),
    'POST /posts/:id/fail': () => ({ status: 422, body: `{"error":"secret-upstream-reason ${'x'.repeat(3000)}"}` }),
  });
  return { upstream, posts };
}
