/**
 * A source whose data is a cycle (Post → author → posts → author …), for the tests of the limits on
 * the answer: dedupe keeps its upstream traffic at a few requests whatever the query's depth,
 * while the answer grows as n^levels.
 */
export const CYCLE_SCHEMA = `
scalar JSON
type Query {
  blob: JSON @fetch(source: "s", path: "/blob")
  posts: [Post] @fetch(source: "s", path: "/posts")
  user(id: ID!): User @fetch(source: "s", path: "/users/{args.id}")
}
type Post {
  id: ID!
  title: String
  authorId: ID @from(key: "author_id")
  author: User @fetch(source: "s", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id")
}
type User { id: ID! name: String posts: [Post] @fetch(source: "s", path: "/users/{parent.id}/posts") }
`;

/** A source of `n` posts, all by user 1, whose posts are those same `n`. */
export function cycleRoutes(n: number, title = (i: number) => `post ${i}`) {
  const posts = Array.from({ length: n }, (_, i) => ({ id: `p${i}`, title: title(i), author_id: '1' }));
  return {
    'GET /posts': () => ({ json: posts }),
    'GET /blob': () => ({ json: { text: 'b'.repeat(200_000) } }),
    'GET /users/:id/posts': () => ({ json: posts }),
    'GET /users/:id': ({ params }: { params: Record<string, string> }) => ({ json: { id: params.id, name: `user ${params.id}` } }),
    'GET /users': ({ query }: { query: URLSearchParams }) => ({
      json: (query.get('ids') ?? '').split(',').map((id) => ({ id, name: `user ${id}` })),
    }),
  };
}

/** `{ posts { title author { posts { title author { … } } } } }` with `levels` levels of posts. */
export function cycleQuery(levels: number, leaf = 'title'): string {
  let inner = leaf;
  for (let i = 1; i < levels; i++) inner = `${leaf} author { posts { ${inner} } }`;
  return `{ posts { ${inner} } }`;
}
