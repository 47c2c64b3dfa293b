/**
 * A source's rate limits (docs/rest-shapes.md "Rate limits", SPEC "Real APIs' manners"): the hold
 * after a 429 with Retry-After or a zero RateLimit-Remaining, UPSTREAM_RATE_LIMITED with
 * `retryAfter`, @cache(stale:) entries served during a hold, retry_after_max_ms, the per-source
 * token bucket, and the metric. Real counting upstreams, one real gateway.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { holdMsOf } from '../../gateway/upstream/rate-limit-headers.js';
import { startTestGateway, type GraphQLResult, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { loopTurns, until } from '../support/wait.js';

const SCHEMA = `
type Query {
  user(id: ID!): User @fetch(source: "held", path: "/users/{args.id}")
  kept(id: ID!): User @fetch(source: "held", path: "/kept/{args.id}") @cache(ttl: 1, stale: 1)
  gone(id: ID!): User @fetch(source: "held", path: "/gone/{args.id}") @cache(ttl: 1)
  reset(id: ID!): User @fetch(source: "reset", path: "/reset/{args.id}")
  ietf(id: ID!): User @fetch(source: "ietf", path: "/ietf/{args.id}")
  once(id: ID!): User @fetch(source: "patient", path: "/once/{args.id}")
  always(id: ID!): User @fetch(source: "stubborn", path: "/always/{args.id}")
  quota(id: ID!): User @fetch(source: "quota", path: "/quota/{args.id}")
  posts: [Post] @fetch(source: "plain", path: "/posts")
}
type Post { id: ID! authorId: ID! @from(key: "author_id") author: User @fetch(source: "shared", path: "/people/{parent.authorId}") @batch(path: "/people?ids={keys}", match: "id") }
type Mutation {
  save(id: ID!): User @fetch(source: "writes", method: "POST", path: "/save/{args.id}")
}
type User { id: ID! name: String }
`;

const user = (id: string) => ({ json: { id, name: `user ${id}` } });
const tooMany = (seconds: number) => ({ status: 429, json: { error: 'slow down' }, headers: { 'retry-after': String(seconds) } });

type Errors = NonNullable<GraphQLResult['errors']>;
const codes = (errors: Errors | undefined) => (errors ?? []).map((e) => [e.extensions?.code, e.extensions?.retryAfter]);

// Its tests use sources of their own, so they run side by side (each waits out a hold of its own).
describe('rate limits of a source', { concurrency: true }, () => {
  let up: CountingUpstream;
  let gw: TestGateway;
  /** Whether GET /users/:id answers 429 (Retry-After: 1). */
  let refuseUsers = false;
  let onceAnswered = 0;
  const quotaTimes: number[] = [];

  before(async () => {
    up = await startUpstream({
      'GET /users/:id': ({ params }) => (refuseUsers ? tooMany(1) : user(params.id)),
      'GET /kept/:id': ({ params }) => ({ ...user(params.id), headers: { etag: `"v${params.id}"` } }),
      'GET /gone/:id': ({ params }) => user(params.id),
      'GET /reset/:id': ({ params }) => ({
        ...user(params.id),
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 1) },
      }),
      'GET /ietf/:id': ({ params }) => ({ ...user(params.id), headers: { 'ratelimit-remaining': '0', 'ratelimit-reset': '1' } }),
      'GET /once/:id': ({ params }) => (onceAnswered++ === 0 ? tooMany(1) : user(params.id)),
      'GET /always/:id': () => tooMany(1),
      'POST /save/:id': () => tooMany(1),
      'GET /posts': () => ({
        json: [
          { id: 1, author_id: 1 },
          { id: 2, author_id: 2 },
        ],
      }),
      'GET /people': () => tooMany(1),
      'GET /quota/:id': ({ params }) => {
        quotaTimes.push(performance.now());
        return user(params.id);
      },
    });
    const at = { url: up.url };
    gw = await startTestGateway({
      debugMode: false,
      sources: {
        held: at,
        reset: at,
        ietf: at,
        patient: { ...at, extra: 'retry_after_max_ms = 2000' },
        stubborn: { ...at, extra: 'retry_after_max_ms = 2000' },
        shared: { ...at, extra: 'batch_window_ms = 50' },
        plain: at,
        writes: { ...at, extra: 'retry_after_max_ms = 2000' },
        quota: { ...at, timeoutMs: 1000, extra: 'rate_limit = { requests = 10, per_s = 1 }' },
      },
      schemas: { 's.graphqls': SCHEMA },
    });
  });
  after(async () => {
    await gw.close();
    await up.close();
  });

  test('after a 429 with Retry-After the source is not asked until then; a kept @cache(stale:) entry answers instead', async () => {
    assert.deepEqual((await gw.query('{ kept(id: 1) { name } gone(id: 1) { name } }')).body.data, {
      kept: { name: 'user 1' },
      gone: { name: 'user 1' },
    });
    const filled = Date.now();
    // `kept` expires (ttl 1 + stale 1) but stays kept for revalidation (it has an ETag); `gone` is dropped.
    await until(() => Date.now() > filled + 2100, 'both entries expired', 4000);

    refuseUsers = true;
    const first = await gw.query('{ user(id: 1) { name } }');
    const heldAt = Date.now();
    assert.deepEqual(codes(first.body.errors), [['UPSTREAM_RATE_LIMITED', 1]]);
    assert.equal(first.body.errors?.[0]?.extensions?.status, 429);
    assert.equal(up.count('GET /users/:id'), 1);

    refuseUsers = false;
    const during = await gw.query('{ user(id: 2) { name } kept(id: 1) { name } gone(id: 1) { name } }');
    const stillHeld = Date.now() - heldAt < 1000;
    assert.ok(stillHeld, 'the second request ran within the hold');
    assert.deepEqual(during.body.data, { user: null, kept: { name: 'user 1' }, gone: null });
    assert.deepEqual(codes(during.body.errors), [
      ['UPSTREAM_RATE_LIMITED', 1],
      ['UPSTREAM_RATE_LIMITED', 1],
    ]);
    assert.equal(up.count('GET /users/:id'), 1, 'nothing sent during the hold');
    assert.equal(up.count('GET /kept/:id'), 1);
    assert.equal(up.count('GET /gone/:id'), 1);

    // Once the wait is over the source is asked again.
    let later: GraphQLResult | undefined;
    await until(() => Date.now() >= heldAt + 1000, 'the hold is over', 3000);
    for (let i = 0; i < 20 && !later?.data?.user; i++) later = (await gw.query('{ user(id: 3) { name } }')).body;
    assert.deepEqual(later?.data, { user: { name: 'user 3' } });
    assert.equal(up.count('GET /users/:id'), 2);

    const metrics = (await gw.get('/metrics')).text;
    assert.match(metrics, /gqlgw_upstream_rate_limited_total\{source="held",reason="upstream"\} 1\n/);
    assert.match(metrics, /gqlgw_upstream_rate_limited_total\{source="held",reason="held"\} 3\n/);
  });

  test('a 2xx with X-RateLimit-Remaining: 0 (or RateLimit-Remaining: 0) is served, then holds its source until the reset', async () => {
    const served = await gw.query('{ reset(id: 1) { name } ietf(id: 1) { name } }');
    assert.deepEqual(served.body.data, { reset: { name: 'user 1' }, ietf: { name: 'user 1' } });
    const heldAt = Date.now();
    const refused = await gw.query('{ reset(id: 2) { name } ietf(id: 2) { name } }');
    assert.deepEqual(refused.body.data, { reset: null, ietf: null });
    const [x, ietf] = refused.body.errors ?? [];
    assert.equal(x?.extensions?.code, 'UPSTREAM_RATE_LIMITED');
    assert.ok((x?.extensions?.retryAfter as number) >= 1 && (x?.extensions?.retryAfter as number) <= 2, 'epoch reset: 1 to 2 s away');
    assert.deepEqual([ietf?.extensions?.code, ietf?.extensions?.retryAfter], ['UPSTREAM_RATE_LIMITED', 1]);
    assert.equal(up.count('GET /reset/:id'), 1);
    assert.equal(up.count('GET /ietf/:id'), 1);

    await until(() => Date.now() >= heldAt + 1000, 'the reset has come', 3000);
    let again: GraphQLResult | undefined;
    for (let i = 0; i < 20 && !again?.data?.ietf; i++) again = (await gw.query('{ ietf(id: 3) { name } }')).body;
    assert.deepEqual(again?.data, { ietf: { name: 'user 3' } });
    assert.equal(up.count('GET /ietf/:id'), 2);
  });

  test('retry_after_max_ms waits out a GET once and sends it again, never a mutation', async () => {
    const [read, write] = await Promise.all([
      gw.query('{ once(id: 1) { name } always(id: 1) { name } }'),
      gw.query('mutation { save(id: 1) { name } }'),
    ]);
    assert.deepEqual(read.body.data, { once: { name: 'user 1' }, always: null });
    assert.deepEqual(codes(read.body.errors), [['UPSTREAM_RATE_LIMITED', 1]]);
    assert.equal(up.count('GET /once/:id'), 2, 'sent, then once more after the wait');
    assert.equal(up.count('GET /always/:id'), 2, 'sent once more, never a third time');
    assert.deepEqual(codes(write.body.errors), [['UPSTREAM_RATE_LIMITED', 1]]);
    assert.equal(up.count('POST /save/:id'), 1, 'a mutation is never sent again');
  });

  test("a chunk shared across requests answered 429 fails every sharer alike, and the hold refuses the next ones' chunk unsent", async () => {
    const query = '{ posts { author { name } } }';
    const first = await Promise.all([gw.query(query), gw.query(query)]);
    assert.equal(up.count('GET /people'), 1, 'one shared chunk');
    for (const res of first)
      assert.deepEqual(codes(res.body.errors), [
        ['UPSTREAM_RATE_LIMITED', 1],
        ['UPSTREAM_RATE_LIMITED', 1],
      ]);
    const during = await Promise.all([gw.query(query), gw.query(query)]);
    for (const res of during)
      assert.deepEqual(codes(res.body.errors), [
        ['UPSTREAM_RATE_LIMITED', 1],
        ['UPSTREAM_RATE_LIMITED', 1],
      ]);
    assert.equal(up.count('GET /people'), 1, 'nothing sent during the hold');
  });

  test('rate_limit = { requests = 10, per_s = 1 }: 50 lookups never send more than the bucket allows; the rest fail unsent', async () => {
    const start = performance.now();
    // Five queries of 10 lookups, one every 150 ms, each waiting for its answer while the next starts.
    const answers: Array<Promise<GraphQLResult>> = [];
    for (let round = 0; round < 5; round++) {
      await until(() => performance.now() >= start + round * 150, 'the next query is due', 2000);
      const fields = Array.from({ length: 10 }, (_, i) => `u${i}: quota(id: ${round * 10 + i}) { name }`).join(' ');
      answers.push(gw.query(`{ ${fields} }`).then((res) => res.body));
    }
    const results = await Promise.all(answers);
    const errors = results.flatMap((r) => r.errors ?? []).map((e) => e.extensions?.code);
    const limited = errors.filter((code) => code === 'UPSTREAM_RATE_LIMITED').length;
    const answered = results.flatMap((r) => Object.values(r.data ?? {})).filter((v) => v !== null).length;
    assert.ok(limited > 0 && quotaTimes.length > 0, `${quotaTimes.length} sent, ${limited} refused`);
    assert.equal(answered + errors.length, 50);
    assert.ok(quotaTimes.length >= answered && quotaTimes.length <= 50 - limited, 'no refused lookup was sent');
    // A timeout is a call that waited for its token and then ran out of time (on a loaded machine).
    assert.deepEqual(
      errors.filter((code) => code !== 'UPSTREAM_RATE_LIMITED' && code !== 'UPSTREAM_TIMEOUT'),
      [],
    );
    // By any moment t, at most 10 calls plus 10 per second since the test began were sent.
    quotaTimes.forEach((t, i) =>
      assert.ok(i + 1 <= 10 + Math.floor(((t - start) / 1000) * 10), `call ${i + 1} at +${Math.round(t - start)} ms`),
    );
    await loopTurns();
    const metrics = (await gw.get('/metrics')).text;
    assert.match(metrics, new RegExp(`gqlgw_upstream_rate_limited_total\\{source="quota",reason="local"\\} ${limited}\\n`));
  });
});

describe('rate-limit headers are read in linear time', () => {
  test('a 64 KB Retry-After, X-RateLimit-Reset or RateLimit-Remaining is parsed in under a millisecond', () => {
    const big = [' '.repeat(65_535) + '1', '9'.repeat(65_536), 'Sun, ' + '0'.repeat(65_531), '1 '.repeat(32_768)];
    for (const value of big) {
      const raw = ['retry-after', value, 'x-ratelimit-remaining', value, 'x-ratelimit-reset', value, 'ratelimit-remaining', value];
      let best = Infinity;
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        holdMsOf(429, raw, Date.now());
        best = Math.min(best, performance.now() - t0);
      }
      assert.ok(best < 1, `${best.toFixed(3)} ms for a ${value.length}-character value`);
    }
  });

  test('seconds, HTTP dates and resets become holds of at most an hour', () => {
    const now = Date.parse('Sun, 06 Nov 1994 08:49:37 GMT');
    assert.equal(holdMsOf(429, ['Retry-After', '2'], now), 2000);
    assert.equal(holdMsOf(503, ['retry-after', 'Sun, 06 Nov 1994 08:49:40 GMT'], now), 3000);
    assert.equal(holdMsOf(500, ['retry-after', '2'], now), undefined, 'only a 429 or 503 asks to wait');
    assert.equal(holdMsOf(200, ['x-ratelimit-remaining', '0', 'x-ratelimit-reset', String(now / 1000 + 5)], now), 5000);
    assert.equal(holdMsOf(200, ['x-ratelimit-remaining', '1', 'x-ratelimit-reset', String(now / 1000 + 5)], now), undefined);
    assert.equal(holdMsOf(200, ['ratelimit-remaining', '0', 'ratelimit-reset', '7'], now), 7000);
    assert.equal(holdMsOf(429, ['retry-after', '999999'], now), 3_600_000);
    assert.equal(holdMsOf(429, ['retry-after', '-1'], now), undefined);
    assert.equal(holdMsOf(429, ['retry-after', '1e3'], now), undefined);
  });
});
