/**
 * `[rate_limit]` (docs/hardening.md "Cost before anything is sent"): per-client token buckets in
 * planned subrequests, charged before anything is sent, against a real gateway, a counting
 * upstream and real tokens. The client is the verified token's `sub`, else the `client_header`
 * value, else the peer address; an overdraw is 429 RATE_LIMITED with Retry-After, nothing sent and
 * nothing charged; a bound over the whole bucket is 400 COST_LIMIT; two clients never share a
 * bucket; gqlgw_rate_limited_total{reason} never names a client; buckets are bounded in number and
 * expire once full again.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { ENTRANCES, sendThrough } from '../support/entrances.js';
import { keySet, makeKey, mintToken, type TestKey } from '../support/identity.js';
import { metricValue } from '../support/prom-text.js';
import { until } from '../support/wait.js';
import { ClientBudgets, clientOf } from '../../gateway/execute/ask/client-budget.js';

const SCHEMA = /* GraphQL */ `
  type Query {
    posts(limit: Int = 1): [Post!]! @fetch(source: "api", path: "/posts?limit={args.limit}") @listSize(slicing: "limit")
  }
  type Post {
    id: ID!
    author: User @fetch(source: "api", path: "/users/{parent.id}")
  }
  type User {
    id: ID!
  }
`;

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'gqlgw';
/** Bound 1 + 3 = 4. */
const FOUR = '{ posts(limit: 3) { author { id } } }';
/** Bound 1 + 11 = 12: more than the whole bucket of 10. */
const TWELVE = '{ posts(limit: 11) { author { id } } }';

describe('[rate_limit]', () => {
  let api: CountingUpstream;
  let gw: TestGateway;
  let key: TestKey;
  let jwksDir: string;
  before(async () => {
    api = await startUpstream({
      'GET /posts': (r) => ({ json: Array.from({ length: Number(r.query.get('limit')) }, (_, i) => ({ id: String(i + 1) })) }),
      'GET /users/:id': (r) => ({ json: { id: r.params.id } }),
    });
    key = await makeKey('ES256', 'k1');
    jwksDir = await mkdtemp(path.join(tmpdir(), 'gqlgw-rate-'));
    const jwks = path.join(jwksDir, 'jwks.json');
    await writeFile(jwks, JSON.stringify(keySet([key])));
    gw = await startTestGateway({
      sources: { api: { url: api.url } },
      schemas: { 'schema.graphqls': SCHEMA },
      debugMode: false,
      extraToml: [
        '[rate_limit]',
        'cost = 10',
        'per_s = 3600',
        'client_header = "X-Api-Key"',
        '[auth]',
        `jwks = ${JSON.stringify(jwks)}`,
        `issuer = "${ISSUER}"`,
        `audience = "${AUDIENCE}"`,
      ].join('\n'),
    });
  });
  after(async () => {
    await gw?.close();
    await api?.close();
    await rm(jwksDir, { recursive: true, force: true });
  });

  test('a client may spend its bucket; the next operation that would overdraw is 429 with Retry-After, nothing sent nor charged', async () => {
    const alice = { 'x-api-key': 'alice' };
    assert.equal((await gw.query(FOUR, undefined, alice)).status, 200);
    assert.equal((await gw.query(FOUR, undefined, alice)).status, 200);
    api.reset();
    const refused = await gw.query(FOUR, undefined, alice);
    assert.equal(refused.status, 429, refused.text);
    assert.equal(api.count(), 0);
    const error = refused.body.errors![0]!;
    assert.equal(error.extensions?.code, 'RATE_LIMITED');
    const retryAfter = Number(refused.headers.get('retry-after'));
    // 2 tokens left of 10 per hour: 2 more take 720 s.
    assert.equal(retryAfter, 720);
    assert.equal(error.extensions?.retryAfter, retryAfter);
    // Nothing was charged: an operation of bound 1 + 1 = 2 still fits exactly.
    const two = await gw.query('{ posts(limit: 1) { author { id } } }', undefined, alice);
    assert.equal(two.status, 200, two.text);
    assert.equal((await gw.query('{ posts(limit: 0) { id } }', undefined, alice)).status, 429);
  });

  test('another client has its own bucket: a header value, the peer address, a token subject', async () => {
    assert.equal((await gw.query(FOUR, undefined, { 'x-api-key': 'bob' })).status, 200);
    // No header and no token: the peer address (127.0.0.1) is the client, for every entrance alike.
    const statuses: number[] = [];
    for (const entrance of [...ENTRANCES, ...ENTRANCES])
      statuses.push((await sendThrough(entrance, gw.url, { query: '{ posts { id } }' })).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 200]);
    assert.equal((await gw.query(FOUR)).status, 429, 'the peer has spent 8 of its 10');
    // A verified token's subject wins over the header: carol's token with alice's key is carol.
    const carol = await mintToken(key, { sub: 'carol' }, { issuer: ISSUER, audience: AUDIENCE });
    const headers = { authorization: `Bearer ${carol}`, 'x-api-key': 'alice' };
    assert.equal((await gw.query(FOUR, undefined, headers)).status, 200);
    assert.equal((await gw.query(FOUR, undefined, headers)).status, 200);
    assert.equal((await gw.query(FOUR, undefined, headers)).status, 429);
  });

  test('an operation over the whole bucket is 400 COST_LIMIT, nothing sent, nothing charged', async () => {
    api.reset();
    const res = await gw.query(TWELVE, undefined, { 'x-api-key': 'dave' });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.errors![0]!.extensions, { code: 'COST_LIMIT', cost: 12, limit: 10 });
    assert.equal(api.count(), 0);
    for (let i = 0; i < 2; i++) assert.equal((await gw.query(FOUR, undefined, { 'x-api-key': 'dave' })).status, 200);
  });

  test('gqlgw_rate_limited_total counts by reason only, never by client', async () => {
    const text = await (await fetch(`${gw.origin}/metrics`)).text();
    assert.equal(metricValue(text, 'gqlgw_rate_limited_total', { reason: 'budget' }), 4);
    assert.equal(metricValue(text, 'gqlgw_rate_limited_total', { reason: 'cost' }), 1);
    const lines = text.split('\n').filter((l) => l.startsWith('gqlgw_rate_limited_total'));
    for (const line of lines) assert.match(line, /^gqlgw_rate_limited_total\{reason="(budget|cost)"\} \d+$/);
    for (const client of ['alice', 'bob', 'carol', 'dave', '127.0.0.1']) assert.ok(!text.includes(client), client);
  });
});

describe('client buckets', () => {
  test('a refill: a bucket regains cost / per_s per second, and Retry-After says when enough is back', () => {
    let now = 0;
    const budgets = new ClientBudgets({ cost: 10, perS: 10, clientHeader: undefined, maxClients: 10 }, () => now);
    assert.deepEqual(budgets.charge('a', 10), {});
    assert.deepEqual(budgets.charge('a', 3), { refused: 'budget', retryAfterS: 3 });
    now = 2500;
    assert.deepEqual(budgets.charge('a', 3), { refused: 'budget', retryAfterS: 1 });
    now = 3000;
    assert.deepEqual(budgets.charge('a', 3), {});
    assert.deepEqual(budgets.charge('a', 11), { refused: 'cost', limit: 10 });
  });

  test('many distinct clients keep at most max_clients buckets, and a full bucket expires', async () => {
    const budgets = new ClientBudgets({ cost: 5, perS: 0.2, clientHeader: undefined, maxClients: 100 });
    for (let i = 0; i < 5000; i++) budgets.charge(clientOf({ claims: undefined, header: `client-${i}`, peer: '10.0.0.1' }), 1);
    assert.equal(budgets.size, 100);
    await until(() => budgets.size === 0, 'every bucket full again after per_s', 5000);
  });

  test('a client is its token subject, else its header, else its peer; a long value is kept short', () => {
    assert.equal(clientOf({ claims: { sub: 'u1' }, header: 'k', peer: '1.2.3.4' }), 'sub:u1');
    assert.equal(clientOf({ claims: undefined, header: 'k', peer: '1.2.3.4' }), 'header:k');
    assert.equal(clientOf({ claims: undefined, header: undefined, peer: '1.2.3.4' }), 'peer:1.2.3.4');
    assert.notEqual(
      clientOf({ claims: { sub: 'x' }, header: undefined, peer: '' }),
      clientOf({ claims: undefined, header: 'x', peer: '' }),
    );
    assert.ok(clientOf({ claims: undefined, header: 'k'.repeat(10_000), peer: '' }).length < 64);
  });
});
