/**
 * Cache safety with a real memcached behind L2: a source with forward_headers keeps entries per
 * distinct forwarded values, so user A, user B and an anonymous caller never see each other's
 * cached data (in L2, nor through memcached in a second gateway), the values are never stored in
 * clear in a key; and errors, 5xx, timeouts and missing keys are never cached.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, splitIds, type CountingUpstream } from '../support/upstream.js';
import { listItems, startMemcached, type RunningMemcached } from '../support/memcached.js';
import { pollUntil } from '../support/wait.js';

const SCHEMA = `
type Query {
  me(id: ID!): Profile @fetch(source: "accounts", path: "/profiles/{args.id}") @cache(ttl: 300)
  posts: [Post] @fetch(source: "public", path: "/posts")
  item(id: ID!): Item @fetch(source: "public", path: "/items/{args.id}") @cache(ttl: 300)
}
type Profile { id: ID! secret: String }
type Post {
  id: ID!
  itemId: ID @from(key: "item_id")
  item: Item
    @fetch(source: "public", path: "/items/{parent.itemId}")
    @batch(path: "/items?ids={keys}", match: "id")
    @cache(ttl: 300)
}
type Item { id: ID! name: String }
`;

describe('cache safety', { timeout: 60_000 }, () => {
  let mc: RunningMemcached;
  let accounts: CountingUpstream;
  let publicSource: CountingUpstream;
  /** Item ids whose single fetch / batch answer currently fails, and how. */
  const failing = new Map<string, number>();
  const missing = new Set<string>(['404']);
  let a: TestGateway;
  let b: TestGateway;

  before(async () => {
    mc = await startMemcached();
    accounts = await startUpstream({
      'GET /profiles/:id': ({ params, headers }) => ({
        json: { id: params.id, secret: `secret of ${headers.authorization ?? 'nobody'}` },
      }),
    });
    publicSource = await startUpstream({
      'GET /posts': () => ({ json: [1, 2, 3, 4].map((i) => ({ id: i, item_id: String(i) })) }),
      'GET /items/:id': ({ params }) => {
        const status = failing.get(params.id);
        if (status === 0) return { json: { id: params.id, name: 'late' }, delayMs: 1500 };
        if (status) return { status, json: { error: 'boom' } };
        if (missing.has(params.id)) return { status: 404, json: { error: 'no such item' } };
        return { json: { id: params.id, name: `Item ${params.id}` } };
      },
      'GET /items': ({ query }) => {
        const ids = splitIds(query.get('ids'));
        if (ids.some((id) => failing.has(id))) return { status: 502, json: { error: 'bad gateway' } };
        return { json: ids.filter((id) => !missing.has(id)).map((id) => ({ id, name: `Item ${id}` })) };
      },
    });
    const options = {
      schemas: { 'schema.graphqls': SCHEMA },
      sources: {
        accounts: { url: accounts.url, forwardHeaders: ['authorization'] },
        public: { url: publicSource.url, timeoutMs: 500 },
      },
      extraToml: `[cache.memcached]\nservers = ["${mc.address}"]\nkey_prefix = "safety${process.pid}:"\n`,
    };
    a = await startTestGateway(options);
    b = await startTestGateway(options);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await accounts?.close();
    await publicSource?.close();
    await mc?.stop();
  });

  const secretOf = async (gw: TestGateway, authorization: string | undefined): Promise<unknown> => {
    const res = await gw.query('{ me(id: 7) { secret } }', undefined, authorization ? { authorization } : {});
    assert.equal(res.status, 200, res.text);
    return (res.body.data?.me as { secret?: string } | null)?.secret;
  };

  test("user A, user B and anonymous each get their own data, never another caller's cached answer", async () => {
    accounts.reset();
    assert.equal(await secretOf(a, 'Bearer token-A'), 'secret of Bearer token-A');
    assert.equal(await secretOf(a, 'Bearer token-A'), 'secret of Bearer token-A');
    assert.equal(accounts.count(), 1, "A's second query is a cache hit");
    assert.equal(await secretOf(a, 'Bearer token-B'), 'secret of Bearer token-B');
    assert.equal(accounts.count(), 2, "B is not served A's entry");
    assert.equal(await secretOf(a, undefined), 'secret of nobody');
    assert.equal(accounts.count(), 3, 'an anonymous caller is not served an authenticated entry');
    assert.equal(await secretOf(a, 'Bearer token-A'), 'secret of Bearer token-A');
    assert.equal(await secretOf(a, 'Bearer token-B'), 'secret of Bearer token-B');
    assert.equal(await secretOf(a, undefined), 'secret of nobody');
    assert.equal(accounts.count(), 3, 'each caller hits its own entry');
    const forwarded = accounts.requests.map((r) => r.headers.authorization ?? null);
    assert.deepEqual(forwarded, ['Bearer token-A', 'Bearer token-B', null], 'the header reaches the source as sent');
  });

  test("a second gateway reads each caller's entry from memcached and still keeps them apart", async () => {
    // Writes to memcached are not awaited by responses: wait until the three entries are there.
    await pollUntil(
      async () => (await listItems(mc.address)).filter((it) => it.key.includes('accounts:')).length,
      (n) => n >= 3,
    );
    accounts.reset();
    assert.equal(await secretOf(b, 'Bearer token-B'), 'secret of Bearer token-B');
    assert.equal(await secretOf(b, undefined), 'secret of nobody');
    assert.equal(await secretOf(b, 'Bearer token-A'), 'secret of Bearer token-A');
    assert.equal(accounts.count(), 0, 'all three answered from memcached');
    assert.equal(await secretOf(b, 'Bearer token-C'), 'secret of Bearer token-C');
    assert.equal(accounts.count(), 1, 'a new caller goes to the source');
  });

  test('forwarded values never appear in clear in a cache key', async () => {
    const keys = (await listItems(mc.address)).map((it) => it.key);
    const accountKeys = keys.filter((k) => k.includes('accounts:'));
    assert.ok(accountKeys.length >= 3, `account entries stored: ${accountKeys.join(', ')}`);
    for (const k of keys) assert.doesNotMatch(k, /token|Bearer/, `key ${k}`);
    assert.equal(new Set(accountKeys).size, accountKeys.length);
  });

  test('5xx answers, timeouts and missing keys are never cached', async () => {
    publicSource.reset();
    failing.set('50', 503);
    const first = await a.query('{ item(id: 50) { name } }');
    assert.equal(first.body.data?.item, null);
    assert.equal(first.body.errors?.[0]?.extensions?.code, 'UPSTREAM_HTTP_ERROR');
    failing.delete('50');
    const second = await a.query('{ item(id: 50) { name } }');
    assert.deepEqual(second.body.data?.item, { name: 'Item 50' }, 'the error was not cached');

    failing.set('51', 0);
    const slow = await a.query('{ item(id: 51) { name } }');
    assert.equal(slow.body.errors?.[0]?.extensions?.code, 'UPSTREAM_TIMEOUT');
    failing.delete('51');
    assert.deepEqual((await a.query('{ item(id: 51) { name } }')).body.data?.item, { name: 'Item 51' }, 'the timeout was not cached');

    const none = await a.query('{ item(id: 404) { name } }');
    assert.equal(none.body.data?.item, null);
    missing.delete('404');
    assert.deepEqual((await a.query('{ item(id: 404) { name } }')).body.data?.item, { name: 'Item 404' }, 'a 404 was not cached');
    assert.equal(publicSource.count('GET /items/:id'), 6);
  });

  test('a failed batch chunk and keys a batch did not answer are not cached', async () => {
    publicSource.reset();
    failing.set('3', 500);
    missing.add('4');
    const broken = await b.query('{ posts { id item { name } } }');
    // The failed chunk is split once (docs/hardening.md): [1, 2] then answers, [3, 4] fails again.
    assert.deepEqual(
      (broken.body.data?.posts as Array<{ item: unknown }>).map((p) => p.item),
      [{ name: 'Item 1' }, { name: 'Item 2' }, null, null],
      'only the failing half is null',
    );
    failing.delete('3');
    const partial = await b.query('{ posts { id item { name } } }');
    assert.deepEqual(
      (partial.body.data?.posts as Array<{ item: unknown }>).map((p) => p.item),
      [{ name: 'Item 1' }, { name: 'Item 2' }, { name: 'Item 3' }, null],
      'the failed keys were not cached; the missing key is null',
    );
    missing.delete('4');
    const whole = await b.query('{ posts { id item { name } } }');
    assert.deepEqual(
      (whole.body.data?.posts as Array<{ item: unknown }>).map((p) => p.item),
      [{ name: 'Item 1' }, { name: 'Item 2' }, { name: 'Item 3' }, { name: 'Item 4' }],
      'the key the batch had not answered was not cached as null',
    );
    const batchKeys = publicSource.requestsFor('GET /items').map((r) => splitIds(r.query.get('ids')).join(','));
    assert.deepEqual(batchKeys.slice(-1), ['4'], 'the last batch asks only for the key that was never cached');
  });
});
