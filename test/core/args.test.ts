/**
 * @fetch placeholders (SPEC "Directives"): `{args.*}` with defaults applied, URL-encoding, a null
 * query parameter left out, and a null in the path part giving null without a request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { item } from '../support/assert.js';

const SCHEMA = `
type Query {
  posts(limit: Int = 10, authorId: ID, tag: String): [Post!]!
    @fetch(source: "blog", path: "/posts?limit={args.limit}&author_id={args.authorId}&tag={args.tag}")
  user(id: ID): User @fetch(source: "blog", path: "/users/{args.id}")
  post(id: ID!): Post @fetch(source: "blog", path: "/posts/{args.id}")
}
type Post {
  id: ID!
  authorId: ID @from(key: "author_id")
  author: User @fetch(source: "blog", path: "/users/{parent.authorId}")
}
type User { id: ID! name: String }
`;

describe('@fetch path placeholders', () => {
  let blog: CountingUpstream;
  let gateway: TestGateway;

  before(async () => {
    blog = await startUpstream({
      'GET /posts': () => ({
        json: [
          { id: 1, author_id: 5 },
          { id: 2, author_id: null },
        ],
      }),
      'GET /posts/:id': ({ params }) => ({ json: { id: params.id, author_id: null } }),
      'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: `User ${params.id}` } }),
    });
    gateway = await startTestGateway({ sources: { blog: { url: blog.url } }, schemas: { 's.graphqls': SCHEMA } });
  });
  after(async () => {
    await gateway.close();
    await blog.close();
  });

  test('an argument left out takes its default; null arguments leave their query parameter out', async () => {
    blog.reset();
    const res = await gateway.query('{ posts { id } }');
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data, { posts: [{ id: '1' }, { id: '2' }] });
    assert.equal(blog.count('GET /posts'), 1);
    const request = item(blog.requests, 0);
    assert.deepEqual([...request.query.entries()], [['limit', '10']]);
    assert.equal(request.url.includes('author_id'), false);
    assert.equal(request.url.includes('tag'), false);
  });

  test('given arguments are used and URL-encoded', async () => {
    blog.reset();
    const res = await gateway.query('{ posts(limit: 3, authorId: "a b&c=d/é", tag: "x?y#z") { id } }');
    assert.equal(res.body.errors, undefined);
    const request = item(blog.requests, 0);
    assert.equal(request.query.get('limit'), '3');
    assert.equal(request.query.get('author_id'), 'a b&c=d/é', 'the value survives as one parameter');
    assert.equal(request.query.get('tag'), 'x?y#z');
    assert.deepEqual([...request.query.keys()], ['limit', 'author_id', 'tag']);
  });

  test('a path value is URL-encoded into one segment', async () => {
    blog.reset();
    const res = await gateway.query('{ user(id: "a/b c") { id name } }');
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data, { user: { id: 'a/b c', name: 'User a/b c' } });
    assert.equal(blog.count('GET /users/:id'), 1, 'one path segment, decoded by the upstream to the argument');
  });

  test('variables: an omitted variable takes the argument default, a null one leaves the parameter out', async () => {
    blog.reset();
    const res = await gateway.query('query Q($limit: Int, $author: ID) { posts(limit: $limit, authorId: $author) { id } }', {
      author: null,
    });
    assert.equal(res.body.errors, undefined);
    assert.deepEqual([...item(blog.requests, 0).query.entries()], [['limit', '10']]);
  });

  test('an explicit null argument leaves its query parameter out', async () => {
    blog.reset();
    const res = await gateway.query('{ posts(limit: null, authorId: 7) { id } }');
    assert.equal(res.body.errors, undefined);
    assert.deepEqual([...item(blog.requests, 0).query.entries()], [['author_id', '7']]);
  });

  test('a null argument in the path part gives null without a request', async () => {
    blog.reset();
    const res = await gateway.query('{ user(id: null) { name } }');
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data, { user: null });
    assert.equal(blog.count(), 0);
    assert.equal(debugCounts(res).subrequests, 0);
  });

  test('a null parent value in the path part gives null without a request', async () => {
    blog.reset();
    const res = await gateway.query('{ posts { id author { name } } post(id: 3) { id author { name } } }');
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data, {
      posts: [
        { id: '1', author: { name: 'User 5' } },
        { id: '2', author: null },
      ],
      post: { id: '3', author: null },
    });
    assert.equal(blog.count('GET /users/:id'), 1, 'only author 5 is fetched');
    assert.equal(item(blog.requestsFor('GET /users/:id'), 0).path, '/users/5');
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 3, batches: 0 });
  });
});
