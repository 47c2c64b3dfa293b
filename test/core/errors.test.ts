/**
 * Upstream failures (SPEC "Errors and limits"): a failed lookup nulls only the fields that needed
 * it, with an error at their path carrying extensions.code and source; the rest is still served.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { errorAt } from '../support/assert.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

/** Generous, so that an ordinary answer on a loaded machine is never late; the slow route is far beyond it. */
const TIMEOUT_MS = 1000;
const SLOW_MS = 5000;

const SCHEMA = `
type Query {
  posts: [Post] @fetch(source: "posts", path: "/posts")
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}")
}
type Post {
  id: ID!
  title: String
  authorId: ID! @from(key: "author_id")
  author: User @fetch(source: "users", path: "/users/{parent.authorId}")
}
type User { id: ID! name: String }
`;

describe('upstream failures', () => {
  let users: CountingUpstream;
  let posts: CountingUpstream;
  let gateway: TestGateway;

  before(async () => {
    users = await startUpstream({
      'GET /users/500': () => ({ status: 500, json: { error: 'boom' } }),
      'GET /users/503': () => ({ status: 503, body: 'unavailable' }),
      'GET /users/slow': () => ({ json: { id: 'slow', name: 'too late' }, delayMs: SLOW_MS }),
      'GET /users/garbage': () => ({ body: '<html>not json</html>', headers: { 'content-type': 'application/json' } }),
      'GET /users/missing': () => ({ status: 404, json: { error: 'not found' } }),
      'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: `User ${params.id}` } }),
    });
    const authors = ['1', '500', 'slow', 'garbage', 'missing', '2'];
    posts = await startUpstream({
      'GET /posts': () => ({ json: authors.map((a, i) => ({ id: i + 1, title: `T${i + 1}`, author_id: a })) }),
    });
    gateway = await startTestGateway({
      sources: { users: { url: users.url, timeoutMs: TIMEOUT_MS }, posts: { url: posts.url } },
      schemas: { 's.graphqls': SCHEMA },
    });
  });
  after(async () => {
    await gateway.close();
    await users.close();
    await posts.close();
  });

  test('a 500 is UPSTREAM_HTTP_ERROR with status and source, on that field only', async () => {
    const res = await gateway.query('{ ok: user(id: 1) { name } bad: user(id: 500) { name } }');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { ok: { name: 'User 1' }, bad: null });
    assert.equal(res.body.errors?.length, 1);
    const error = errorAt(res.body, ['bad']);
    assert.equal(error.extensions?.code, 'UPSTREAM_HTTP_ERROR');
    assert.equal(error.extensions?.status, 500);
    assert.equal(error.extensions?.source, 'users');
  });

  test('a slow source is UPSTREAM_TIMEOUT after timeout_ms', async () => {
    const started = Date.now();
    const res = await gateway.query('{ ok: user(id: 2) { name } slow: user(id: "slow") { name } }');
    const elapsed = Date.now() - started;
    assert.deepEqual(res.body.data, { ok: { name: 'User 2' }, slow: null });
    const error = errorAt(res.body, ['slow']);
    assert.equal(error.extensions?.code, 'UPSTREAM_TIMEOUT');
    assert.equal(error.extensions?.source, 'users');
    assert.ok(elapsed >= TIMEOUT_MS - 50, `answered after ${elapsed} ms, before the deadline`);
    assert.ok(elapsed < SLOW_MS - 500, `answered after ${elapsed} ms: the deadline was not enforced`);
  });

  test('a body that is not JSON is UPSTREAM_BAD_RESPONSE', async () => {
    const res = await gateway.query('{ ok: user(id: 3) { name } garbage: user(id: "garbage") { name } }');
    assert.deepEqual(res.body.data, { ok: { name: 'User 3' }, garbage: null });
    const error = errorAt(res.body, ['garbage']);
    assert.equal(error.extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    assert.equal(error.extensions?.source, 'users');
  });

  test('a 404 on a single fetch of a nullable field is null without an error', async () => {
    const res = await gateway.query('{ ok: user(id: 4) { name } missing: user(id: "missing") { name } }');
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data, { ok: { name: 'User 4' }, missing: null });
  });

  test("nested failures null only their own post's author, each with its path", async () => {
    const res = await gateway.query('{ posts { id title author { id name } } }');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, {
      posts: [
        { id: '1', title: 'T1', author: { id: '1', name: 'User 1' } },
        { id: '2', title: 'T2', author: null },
        { id: '3', title: 'T3', author: null },
        { id: '4', title: 'T4', author: null },
        { id: '5', title: 'T5', author: null },
        { id: '6', title: 'T6', author: { id: '2', name: 'User 2' } },
      ],
    });
    assert.equal(res.body.errors?.length, 3, JSON.stringify(res.body.errors));
    const http = errorAt(res.body, ['posts', 1, 'author']);
    assert.equal(http.extensions?.code, 'UPSTREAM_HTTP_ERROR');
    assert.equal(http.extensions?.status, 500);
    assert.equal(http.extensions?.source, 'users');
    const timeout = errorAt(res.body, ['posts', 2, 'author']);
    assert.equal(timeout.extensions?.code, 'UPSTREAM_TIMEOUT');
    assert.equal(timeout.extensions?.source, 'users');
    const bad = errorAt(res.body, ['posts', 3, 'author']);
    assert.equal(bad.extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    assert.equal(bad.extensions?.source, 'users');
  });

  test('a 503 with a text body keeps its status', async () => {
    const res = await gateway.query('{ user(id: 503) { name } }');
    assert.deepEqual(res.body.data, { user: null });
    const error = errorAt(res.body, ['user']);
    assert.equal(error.extensions?.code, 'UPSTREAM_HTTP_ERROR');
    assert.equal(error.extensions?.status, 503);
  });
});
