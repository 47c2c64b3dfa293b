/**
 * Revalidation (docs/caching.md, `revalidate = true`, *new*) against a real upstream that answers
 * ETags / Last-Modified and 304s, two gateways and a real memcached: an expired entry's refetch
 * sends If-None-Match / If-Modified-Since (with the User-Agent and forwarded Authorization), a 304
 * renews the entry in every tier without a body and counts as a subrequest, a changed value
 * replaces it, a stale-served entry's background refresh revalidates too, and
 * gqlgw_cache_revalidations_total counts each. `revalidate = false` refetches in full.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream, type RecordedRequest } from '../support/upstream.js';
import { listItems, startMemcached, type RunningMemcached } from '../support/memcached.js';
import { pollUntil, until } from '../support/wait.js';
import { metricValue } from '../support/prom-text.js';
import { PACKAGE_VERSION } from '../../gateway/config/version.js';
import { decodeCacheEntry, encodeCacheEntry } from '../../gateway/cache/cache-value.js';

const SCHEMA = `
type Query {
  repo(name: String!): Repo @fetch(source: "gh", path: "/repos/{args.name}") @cache(ttl: 1)
  dated(name: String!): Repo @fetch(source: "gh", path: "/dated/{args.name}") @cache(ttl: 1)
  news: Repo @fetch(source: "gh", path: "/news") @cache(ttl: 1, stale: 30)
  plain(name: String!): Repo @fetch(source: "plain", path: "/repos/{args.name}") @cache(ttl: 1)
}
type Repo { name: String version: Int }
`;
const LAST_MODIFIED = 'Wed, 21 Oct 2026 07:28:00 GMT';

describe('revalidate: ETag / Last-Modified and 304s', { timeout: 30_000 }, () => {
  let mc: RunningMemcached;
  let gh: CountingUpstream;
  let a: TestGateway;
  let b: TestGateway;
  let version = 1;

  const conditional = (r: RecordedRequest): string =>
    [
      r.method,
      r.url,
      r.headers['if-none-match'] ?? '-',
      r.headers['if-modified-since'] ?? '-',
      r.headers['user-agent'],
      r.headers.authorization ?? '-',
    ].join(' ');
  const revalidations = async (gw: TestGateway, coordinate: string, result: string): Promise<number> =>
    metricValue((await gw.get('/metrics')).text, 'gqlgw_cache_revalidations_total', { coordinate, source: 'gh', result }) || 0;
  /** The memcached expiry (s) of the one entry whose key holds `part`; 0 when there is none. */
  const memcachedExpiry = async (part: string): Promise<number> =>
    (await listItems(mc.address)).find((i) => i.key.includes(part))?.exp ?? 0;
  /** Waits until an entry fetched before `t0` (ms) with ttl 1 s has expired. */
  const expired = (t0: number): Promise<void> => until(() => Date.now() > t0 + 1050, 'the ttl is over', 3000);

  before(async () => {
    mc = await startMemcached();
    gh = await startUpstream({
      'GET /repos/:name': ({ params, headers }) =>
        headers['if-none-match'] === `"v${version}"`
          ? { status: 304, body: '', headers: { etag: `"v${version}"` } }
          : { json: { name: params.name, version }, headers: { etag: `"v${version}"` } },
      'GET /dated/:name': ({ params, headers }) =>
        headers['if-modified-since'] === LAST_MODIFIED
          ? { status: 304, body: '' }
          : { json: { name: params.name, version }, headers: { 'last-modified': LAST_MODIFIED } },
      'GET /news': ({ headers }) =>
        headers['if-none-match'] === '"n1"' ? { status: 304, body: '' } : { json: { name: 'news', version: 1 }, headers: { etag: '"n1"' } },
    });
    const options = {
      sources: {
        gh: { url: gh.url, forwardHeaders: ['authorization'] },
        plain: { url: gh.url, extra: 'revalidate = false' },
      },
      schemas: { 'schema.graphqls': SCHEMA },
      extraToml: `[cache.memcached]\nservers = ["${mc.address}"]\nkey_prefix = "reval${process.pid}:"`,
    };
    a = await startTestGateway(options);
    b = await startTestGateway(options);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await gh?.close();
    await mc?.stop();
  });
  beforeEach(() => gh.reset());

  const auth = { authorization: 'token t1' };

  test('an expired entry sends If-None-Match; a 304 renews it in every tier (a subrequest, no body); a new ETag replaces it', async () => {
    const ua = `gqlgw/${PACKAGE_VERSION}`;
    const first = await a.query('{ repo(name: "hello") { name version } }', {}, auth);
    let t0 = Date.now();
    assert.deepEqual(first.body.data, { repo: { name: 'hello', version: 1 } });
    assert.deepEqual(gh.requests.map(conditional), [`GET /repos/hello - - ${ua} token t1`]);
    await expired(t0);
    gh.reset();
    const before304 = await revalidations(a, 'Query.repo', 'not_modified');
    const keptUntil = await pollUntil(
      () => memcachedExpiry('gh:/repos/hello'),
      (exp) => exp > 0,
    );
    const again = await a.query('{ repo(name: "hello") { name version } }', {}, auth);
    t0 = Date.now();
    assert.deepEqual(again.body.data, { repo: { name: 'hello', version: 1 } });
    assert.deepEqual(gh.requests.map(conditional), [`GET /repos/hello "v1" - ${ua} token t1`]);
    assert.equal(debugCounts(again).subrequests, 1, 'a 304 is a subrequest of the request that sent it');
    assert.equal((await revalidations(a, 'Query.repo', 'not_modified')) - before304, 1);
    // Renewed in L2 (a asks nothing) and in memcached (b, with an empty L2, asks nothing either).
    gh.reset();
    assert.deepEqual((await a.query('{ repo(name: "hello") { version } }', {}, auth)).body.data, { repo: { version: 1 } });
    const renewed = await pollUntil(
      () => memcachedExpiry('gh:/repos/hello'),
      (exp) => exp > keptUntil,
    );
    assert.ok(renewed > keptUntil, 'the 304 renewed the memcached entry');
    assert.deepEqual((await b.query('{ repo(name: "hello") { version } }', {}, auth)).body.data, { repo: { version: 1 } });
    assert.deepEqual(gh.requests, []);
    // The resource changes: the next revalidation gets a 200 with the new value and ETag.
    version = 2;
    await expired(t0);
    const beforeModified = await revalidations(a, 'Query.repo', 'modified');
    const changed = await a.query('{ repo(name: "hello") { version } }', {}, auth);
    assert.deepEqual(changed.body.data, { repo: { version: 2 } });
    assert.deepEqual(gh.requests.map(conditional), [`GET /repos/hello "v1" - ${ua} token t1`]);
    assert.equal((await revalidations(a, 'Query.repo', 'modified')) - beforeModified, 1);
    gh.reset();
    t0 = Date.now();
    await expired(t0);
    await a.query('{ repo(name: "hello") { version } }', {}, auth);
    assert.deepEqual(gh.requests.map(conditional), [`GET /repos/hello "v2" - ${ua} token t1`]);
  });

  test('Last-Modified is revalidated with If-Modified-Since; another gateway revalidates an entry it read from memcached', async () => {
    await a.query('{ dated(name: "x") { version } }');
    const t0 = Date.now();
    assert.ok(
      (await pollUntil(
        () => memcachedExpiry('gh:/dated/x'),
        (exp) => exp > 0,
      )) > 0,
      'a wrote the entry to memcached',
    );
    await expired(t0);
    gh.reset();
    // b has never seen it: the expired entry (kept for revalidation) comes from memcached.
    const res = await b.query('{ dated(name: "x") { name version } }');
    assert.deepEqual(res.body.data, { dated: { name: 'x', version } });
    assert.deepEqual(
      gh.requests.map((r) => `${r.method} ${r.url} ${r.headers['if-modified-since'] ?? '-'} ${r.headers['if-none-match'] ?? '-'}`),
      [`GET /dated/x ${LAST_MODIFIED} -`],
    );
  });

  test('a stale-served entry is revalidated by its background refresh, counted in the metric and in no request', async () => {
    await a.query('{ news { version } }');
    const t0 = Date.now();
    await expired(t0);
    gh.reset();
    const before304 = await revalidations(a, 'Query.news', 'not_modified');
    const stale = await a.query('{ news { version } }');
    assert.deepEqual(stale.body.data, { news: { version: 1 } });
    assert.equal(debugCounts(stale).subrequests, 0);
    await until(() => gh.count() === 1, 'the background refresh');
    assert.equal(gh.requests[0]!.headers['if-none-match'], '"n1"');
    const counted = await pollUntil(
      async () => (await revalidations(a, 'Query.news', 'not_modified')) - before304,
      (n) => n === 1,
    );
    assert.equal(counted, 1);
  });

  test('revalidate = false: an expired entry is refetched in full, without conditional headers', async () => {
    await a.query('{ plain(name: "p") { version } }');
    const t0 = Date.now();
    await expired(t0);
    gh.reset();
    await a.query('{ plain(name: "p") { version } }');
    assert.deepEqual(
      gh.requests.map((r) => `${r.url} ${r.headers['if-none-match'] ?? '-'}`),
      ['/repos/p -'],
    );
  });

  test('memcached entries: validators are kept in the gqlgw3 form; entries of the previous format (gqlgw2) still read', () => {
    const entry = {
      value: { a: 1 },
      missing: false,
      freshUntil: 1000,
      staleUntil: 2000,
      keepUntil: 5000,
      validators: { etag: '"e"', lastModified: undefined },
    };
    const encoded = encodeCacheEntry(entry)!;
    assert.equal(encoded.bytes.toString('utf8'), 'gqlgw3 1000 2000 5000 v\n{"etag":"\\"e\\""}\n{"a":1}');
    assert.deepEqual(decodeCacheEntry(encoded.bytes), { kind: 'entry', entry });
    const old = Buffer.from('gqlgw2 1000 2000 v\n{"a":1}');
    assert.deepEqual(decodeCacheEntry(old), {
      kind: 'entry',
      entry: { value: { a: 1 }, missing: false, freshUntil: 1000, staleUntil: 2000 },
    });
    assert.equal(encodeCacheEntry({ value: 1, missing: false, freshUntil: 1, staleUntil: 2 })!.bytes.toString('latin1'), 'gqlgw2 1 2 v\n1');
    assert.equal(decodeCacheEntry(Buffer.from('gqlgw3 1000 2000 5000 v\n{"etag":7}\n1')).kind, 'garbage');
  });
});
