/**
 * X-GQL-Rounds (SPEC "Rounds, dedupe and the debug headers"): a @fetch field at depth d runs in
 * round d; fields over data already fetched cost no round; a round counts even when the cache
 * (L1 request memo or L2 LRU) answered all of it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { item } from '../support/assert.js';

const POSTS = [
  { id: 1, title: 'One', author_id: 1 },
  { id: 2, title: 'Two', author_id: 2 },
  { id: 3, title: 'Three', author_id: 1 },
];
const COMMENTS = [
  { id: 10, post_id: 1, body: 'first' },
  { id: 30, post_id: 3, body: 'third' },
];

function schema(cache: string): string {
  return `
type Query {
  posts: [Post] @fetch(source: "blog", path: "/posts")
  post(id: ID!): Post @fetch(source: "blog", path: "/posts/{args.id}") ${cache}
  user(id: ID!): User @fetch(source: "blog", path: "/users/{args.id}") ${cache}
}
type Post {
  id: ID!
  title: String
  authorId: ID! @from(key: "author_id")
  author: User @fetch(source: "blog", path: "/users/{parent.authorId}") ${cache}
  comments: [Comment!]! @fetch(source: "blog", path: "/posts/{parent.id}/comments")
    @batch(path: "/comments?post_ids={keys}", match: "post_id")
}
type User {
  id: ID!
  name: String
  posts: [Post] @fetch(source: "blog", path: "/users/{parent.id}/posts")
}
type Comment { id: ID! body: String }
`;
}

async function startBlogUpstream(): Promise<CountingUpstream> {
  return startUpstream({
    'GET /posts': () => ({ json: POSTS }),
    'GET /posts/:id': ({ params }) => ({ json: POSTS.find((p) => String(p.id) === params.id) ?? null }),
    'GET /users/:id/posts': ({ params }) => ({ json: POSTS.filter((p) => String(p.author_id) === params.id) }),
    'GET /users/:id': ({ params }) => ({ json: { id: Number(params.id), name: `User ${params.id}` } }),
    'GET /comments': ({ query }) => {
      const ids = (query.get('post_ids') ?? '').split(',');
      return { json: COMMENTS.filter((c) => ids.includes(String(c.post_id))) };
    },
  });
}

describe('X-GQL-Rounds without caching', () => {
  let blog: CountingUpstream;
  let gateway: TestGateway;

  before(async () => {
    blog = await startBlogUpstream();
    gateway = await startTestGateway({ sources: { blog: { url: blog.url } }, schemas: { 's.graphqls': schema('') } });
  });
  after(async () => {
    await gateway.close();
    await blog.close();
  });

  test('only root fetches: 1 round, however many root fields', async () => {
    const res = await gateway.query('{ posts { id title authorId } user(id: 2) { name } post(id: 1) { title } }');
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data?.user, { name: 'User 2' });
    assert.deepEqual(debugCounts(res), { rounds: 1, subrequests: 3, batches: 0 });
  });

  test('nested fetches: rounds equal the @fetch depth', async () => {
    const two = await gateway.query('{ post(id: 1) { author { name } } }');
    assert.deepEqual(two.body.data, { post: { author: { name: 'User 1' } } });
    assert.equal(debugCounts(two).rounds, 2);

    blog.reset();
    const three = await gateway.query('{ posts { id author { name posts { id comments { body } } } } }');
    assert.equal(three.body.errors, undefined);
    const list = three.body.data?.posts as Array<{ id: string; author: { posts: Array<{ id: string; comments: unknown[] }> } }>;
    assert.deepEqual(
      item(list, 0).author.posts.map((p) => [p.id, p.comments]),
      [
        ['1', [{ body: 'first' }]],
        ['3', [{ body: 'third' }]],
      ],
    );
    // round 1: /posts; round 2: /users/1, /users/2; round 3: /users/1/posts, /users/2/posts; round 4: one comments batch.
    assert.deepEqual(debugCounts(three), { rounds: 4, subrequests: 6, batches: 1 });
    assert.equal(blog.count(), 6);
  });

  test('sibling fetch fields at the same depth share a round', async () => {
    const res = await gateway.query('{ posts { author { name } comments { body } } }');
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 4, batches: 1 });
  });

  test('no fetch field at all: 0 rounds, 0 subrequests', async () => {
    const res = await gateway.query('{ __typename }');
    assert.deepEqual(res.body.data, { __typename: 'Query' });
    assert.deepEqual(debugCounts(res), { rounds: 0, subrequests: 0, batches: 0 });
  });

  test('a round answered only by the request memo (L1) still counts', async () => {
    blog.reset();
    // Round 1 fetches /users/1 and /posts/1; round 2's only lookup, /users/1, is already known.
    const res = await gateway.query('{ user(id: 1) { name } post(id: 1) { author { name } } }');
    assert.deepEqual(res.body.data, { user: { name: 'User 1' }, post: { author: { name: 'User 1' } } });
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 2, batches: 0 });
    assert.equal(blog.count(), 2);
  });
});

describe('X-GQL-Rounds with @cache', () => {
  let blog: CountingUpstream;
  let gateway: TestGateway;

  before(async () => {
    blog = await startBlogUpstream();
    gateway = await startTestGateway({
      sources: { blog: { url: blog.url } },
      schemas: { 's.graphqls': schema('@cache(ttl: 60)') },
    });
  });
  after(async () => {
    await gateway.close();
    await blog.close();
  });

  test('rounds answered only by the process cache (L2) still count', async () => {
    const query = '{ post(id: 2) { title author { name } } }';
    const cold = await gateway.query(query);
    assert.deepEqual(cold.body.data, { post: { title: 'Two', author: { name: 'User 2' } } });
    assert.deepEqual(debugCounts(cold), { rounds: 2, subrequests: 2, batches: 0 });

    blog.reset();
    const warm = await gateway.query(query);
    assert.deepEqual(warm.body.data, cold.body.data);
    assert.deepEqual(debugCounts(warm), { rounds: 2, subrequests: 0, batches: 0 });
    assert.equal(blog.count(), 0);
  });

  test('user(id) and Post.author share cache entries', async () => {
    blog.reset();
    const res = await gateway.query('{ user(id: 2) { name } }');
    assert.deepEqual(res.body.data, { user: { name: 'User 2' } });
    assert.deepEqual(debugCounts(res), { rounds: 1, subrequests: 0, batches: 0 });
    assert.equal(blog.count(), 0);
  });
});
