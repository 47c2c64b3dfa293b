/**
 * Fields that differ only in `select` share one request (docs/caching.md: "fields that
 * differ only in `select` share that one request (each takes its part of the answer; their cache
 * entries stay per `select`)"): `{ t: userTrace(id: "7") n: userNothing(id: "7") }` sends
 * `/users/7` once. Each field still gets its own part, a failure reaches both, and a cached
 * field answers from its own entry.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const SCHEMA = `
type Query {
  userTrace(id: ID!): String @fetch(source: "s", path: "/users/{args.id}", select: "trace.id")
  userNothing(id: ID!): String @fetch(source: "s", path: "/users/{args.id}", select: "nothing")
  userName(id: ID!): String @fetch(source: "s", path: "/users/{args.id}", select: "name")
  user(id: ID!): User @fetch(source: "s", path: "/users/{args.id}")
  cachedName(id: ID!): String @fetch(source: "s", path: "/users/{args.id}", select: "name") @cache(ttl: 300)
  cachedTrace(id: ID!): String @fetch(source: "s", path: "/users/{args.id}", select: "trace.id") @cache(ttl: 300)
}
type User { id: ID! name: String }
`;

describe('fields that differ only in select share one request', () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    upstream = await startUpstream({
      'GET /users/:id': ({ params }) =>
        params.id === '500'
          ? { status: 500, json: {} }
          : { json: { id: params.id, name: `user ${params.id}`, trace: { id: `t${params.id}` } } },
    });
    gw = await startTestGateway({ schemas: { 's.graphqls': SCHEMA }, sources: { s: { url: upstream.url } } });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });

  test('one request, each field its own part', async () => {
    upstream.reset();
    const res = await gw.query('{ t: userTrace(id: "7") n: userNothing(id: "7") m: userName(id: "7") u: user(id: "7") { name } }');
    assert.deepEqual(res.body.data, { t: 't7', n: null, m: 'user 7', u: { name: 'user 7' } });
    assert.deepEqual(
      upstream.requests.map((r) => r.url),
      ['/users/7'],
    );
    assert.deepEqual(debugCounts(res), { rounds: 1, subrequests: 1, batches: 0 });
  });

  test('a failure reaches every field that shared the request', async () => {
    upstream.reset();
    const res = await gw.query('{ t: userTrace(id: "500") m: userName(id: "500") }');
    assert.deepEqual(res.body.data, { t: null, m: null });
    assert.deepEqual((res.body.errors ?? []).map((e) => `${e.path?.join('.')} ${String(e.extensions?.code)}`).sort(), [
      'm UPSTREAM_HTTP_ERROR',
      't UPSTREAM_HTTP_ERROR',
    ]);
    assert.equal(upstream.count(), 1);
  });

  test('cache entries stay per select', async () => {
    upstream.reset();
    const first = await gw.query('{ a: cachedName(id: "8") b: cachedTrace(id: "8") }');
    assert.deepEqual(first.body.data, { a: 'user 8', b: 't8' });
    assert.equal(upstream.count(), 1, 'one request for both');
    const again = await gw.query('{ a: cachedName(id: "8") b: cachedTrace(id: "8") }');
    assert.deepEqual(again.body.data, { a: 'user 8', b: 't8' });
    assert.equal(upstream.count(), 1, 'both answered from their own entries');
    assert.deepEqual(debugCounts(again), { rounds: 1, subrequests: 0, batches: 0 });
  });
});
