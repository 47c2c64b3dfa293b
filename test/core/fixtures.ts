/**
 * Shared fixtures of the core end-to-end tests: counting upstreams that serve users, posts and
 * comments in the shapes the example blog uses (snake_case keys, `GET /things/:id`,
 * `GET /things?ids=1,2`), and SDL building blocks. Each test file starts its own servers.
 */
import { routeTable, splitIds, startUpstream, type CountingUpstream, type RouteTable } from '../support/upstream.js';

export interface UserRow {
  readonly id: number | string;
  readonly name?: string;
  readonly [key: string]: unknown;
}

export interface PostRow {
  readonly id: number | string;
  readonly title: string;
  readonly author_id: number | string | null;
  readonly [key: string]: unknown;
}

/**
 * A users service: `GET /users/:id` (404 JSON when missing) and `GET /users?ids=…` (the known ids
 * among the asked ones, unknown skipped). `extra` routes are tried first.
 */
export function usersRoutes(users: readonly UserRow[], extra: RouteTable = {}): RouteTable {
  const byId = new Map(users.map((u) => [String(u.id), u]));
  return {
    ...extra,
    ...routeTable({
      'GET /users/:id': ({ params }) => {
        const user = byId.get(params.id);
        return user === undefined ? { status: 404, json: { error: 'not found' } } : { json: user };
      },
      'GET /users': ({ query }) => ({ json: splitIds(query.get('ids')).flatMap((id) => byId.get(id) ?? []) }),
    }),
  };
}

/**
 * A posts service: `GET /posts?limit=N` (first N, all when absent), `GET /posts/:id` (404 when
 * missing) and `GET /users/:id/posts`.
 */
export function postsRoutes(posts: readonly PostRow[]): RouteTable {
  const byId = new Map(posts.map((p) => [String(p.id), p]));
  return routeTable({
    'GET /posts': ({ query }) => {
      const limit = query.get('limit');
      return { json: limit === null ? posts : posts.slice(0, Number(limit)) };
    },
    'GET /posts/:id': ({ params }) => {
      const post = byId.get(params.id);
      return post === undefined ? { status: 404, json: { error: 'not found' } } : { json: post };
    },
    'GET /users/:id/posts': ({ params }) => ({ json: posts.filter((p) => String(p.author_id) === params.id) }),
  });
}

export function startUsers(users: readonly UserRow[], extra: RouteTable = {}): Promise<CountingUpstream> {
  return startUpstream(usersRoutes(users, extra));
}

export function startPosts(posts: readonly PostRow[]): Promise<CountingUpstream> {
  return startUpstream(postsRoutes(posts));
}

/** `count` users with ids 1..count named `User {id}`. */
export function makeUsers(count: number): UserRow[] {
  return Array.from({ length: count }, (_, i) => ({ id: i + 1, name: `User ${i + 1}` }));
}

/** `count` posts with ids 1..count; post i is written by `authorOf(i)`. */
export function makePosts(count: number, authorOf: (postId: number) => number | string | null): PostRow[] {
  return Array.from({ length: count }, (_, i) => ({ id: i + 1, title: `Title ${i + 1}`, author_id: authorOf(i + 1) }));
}

/** The sorted distinct keys of every `ids=` list the given requests carried. */
export function keysSent(requests: ReadonlyArray<{ readonly query: URLSearchParams }>, param = 'ids'): string[] {
  return requests.flatMap((r) => splitIds(r.query.get(param))).sort((a, b) => Number(a) - Number(b));
}

export const USER_TYPE = `
type User {
  id: ID!
  name: String
}
`;

/** Query.posts / Query.post / Query.user over the sources `posts` and `users`. */
export const QUERY_TYPE = `
type Query {
  posts(limit: Int): [Post] @fetch(source: "posts", path: "/posts?limit={args.limit}")
  post(id: ID!): Post @fetch(source: "posts", path: "/posts/{args.id}")
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}")
}
`;

/** A Post whose author comes from the users source, all authors of a round in one `GET /users?ids=…`. */
export const BATCHED_POST_TYPE = `
type Post {
  id: ID!
  title: String
  authorId: ID @from(key: "author_id")
  author: User @fetch(source: "users", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id")
}
`;
