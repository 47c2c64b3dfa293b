/**
 * The same answer from every cache tier (SPEC "Exact data in both directions", "One answer,
 * whatever the optimisations"), against a counting upstream, a real memcached and two gateways
 * sharing it:
 * - a `response: true` field, a `select` field and a plain field of one path each keep their own
 *   entry in L2 and in memcached (the key carries how the field reads the answer);
 * - a Float the upstream wrote as `1e400` (valid JSON, Infinity once parsed) is the same error
 *   fetched, from L2, and on a second gateway that would otherwise read it from memcached.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type GraphQLResult, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { listItems, startMemcached, type RunningMemcached } from '../support/memcached.js';
import { pollUntil } from '../support/wait.js';

const SCHEMA = `
type Query {
  rateLimit: RateLimit @fetch(source: "zd", path: "/me.json", response: true) @cache(ttl: 60)
  me: User @fetch(source: "zd", path: "/me.json", select: "user") @cache(ttl: 60)
  whole: Envelope @fetch(source: "zd", path: "/me.json") @cache(ttl: 60)
  score: Score @fetch(source: "zd", path: "/score") @cache(ttl: 60)
  marker: User @fetch(source: "zd", path: "/marker") @cache(ttl: 60)
}
type RateLimit {
  status: Int
  remaining: String @from(path: "headers.x-rate-limit-remaining")
}
type Envelope { user: User }
type User { name: String }
type Score { score: Float }
`;

describe('one answer from every cache tier', { timeout: 30_000 }, () => {
  let mc: RunningMemcached;
  let zd: CountingUpstream;
  let a: TestGateway;
  let b: TestGateway;
  const keyPrefix = `oneanswer${process.pid}:`;

  before(async () => {
    mc = await startMemcached();
    zd = await startUpstream({
      'GET /me.json': () => ({ json: { user: { name: 'Ann' } }, headers: { 'x-rate-limit-remaining': '699' } }),
      'GET /score': () => ({ body: '{"score": 1e400}', headers: { 'content-type': 'application/json' } }),
      'GET /marker': () => ({ json: { name: 'marker' } }),
    });
    const options = {
      sources: { zd: { url: zd.url } },
      schemas: { 's.graphqls': SCHEMA },
      extraToml: `[cache.memcached]\nservers = ["${mc.address}"]\nkey_prefix = "${keyPrefix}"\ntimeout_ms = 1000`,
    };
    a = await startTestGateway(options);
    b = await startTestGateway(options);
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await zd?.close();
    await mc?.stop();
  });

  /** Waits until memcached holds an item for each of these cache keys (writes are fire-and-forget). */
  const stored = async (...keys: string[]): Promise<void> => {
    const items = await pollUntil(
      () => listItems(mc.address),
      (all) => keys.every((k) => all.some((i) => i.key === keyPrefix + k)),
    );
    for (const k of keys)
      assert.ok(
        items.some((i) => i.key === keyPrefix + k),
        `memcached holds ${k}`,
      );
  };

  test('row 2: fields reading one answer in three ways keep three entries, in L2 and in memcached', async () => {
    zd.reset();
    const expected = {
      rateLimit: { status: 200, remaining: '699' },
      me: { name: 'Ann' },
      whole: { user: { name: 'Ann' } },
    };
    // One request each: every field fills its own entry, and never answers from another's.
    for (const [field, selection] of [
      ['rateLimit', '{ status remaining }'],
      ['me', '{ name }'],
      ['whole', '{ user { name } }'],
    ] as const) {
      const res = await a.query(`{ ${field} ${selection} }`);
      assert.deepEqual(res.body.data, { [field]: expected[field] }, field);
    }
    assert.equal(zd.count('GET /me.json'), 3, 'each field asked once: no entry answered another field');
    const warm = await a.query('{ whole { user { name } } me { name } rateLimit { status remaining } }');
    assert.deepEqual(warm.body.data, { whole: expected.whole, me: expected.me, rateLimit: expected.rateLimit });
    assert.equal(debugCounts(warm).subrequests, 0, 'all three from L2');
    await stored('zd:/me.json', 'zd:/me.json|user', 'zd:/me.json|@response');
    const other = await b.query('{ me { name } rateLimit { status remaining } whole { user { name } } }');
    assert.deepEqual(other.body.data, expected);
    assert.equal(debugCounts(other).subrequests, 0, 'all three from memcached');
    assert.equal(zd.count('GET /me.json'), 3);
  });

  test('row 12: a Float of 1e400 is the same error fetched, from L2 and on a gateway sharing memcached', async () => {
    zd.reset();
    const fetched = await a.query('{ score { score } }');
    assertBadFloat(fetched.body);
    const fromL2 = await a.query('{ score { score } }');
    assert.deepEqual(answer(fromL2.body), answer(fetched.body));
    assert.equal(zd.count('GET /score'), 1, 'the second answer came from L2');
    // A later fill of the same gateway is in memcached: the first one would be by now, had it been stored.
    await a.query('{ marker { name } }');
    await stored('zd:/marker');
    const other = await b.query('{ score { score } }');
    assert.deepEqual(answer(other.body), answer(fetched.body), 'the second gateway answers as the first');
  });
});

function assertBadFloat(body: GraphQLResult): void {
  assert.deepEqual(body.data, { score: { score: null } });
  assert.deepEqual(
    body.errors?.map((e) => [e.path, e.extensions?.code]),
    [[['score', 'score'], 'UPSTREAM_BAD_RESPONSE']],
  );
}

/** Data and errors by message, code and path: what must be the same from every tier. */
function answer(body: GraphQLResult): unknown {
  return { data: body.data, errors: body.errors?.map((e) => ({ message: e.message, code: e.extensions?.code, path: e.path })) };
}
