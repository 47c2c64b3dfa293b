/**
 * A background refresh of a stale entry (docs/caching.md "stale while revalidate") runs with what a
 * request has (execute/send/request-context.ts refreshState): an answer over
 * `limits.max_operation_upstream_bytes` is cut and refused as a request's would be, so the refresh
 * fails (counted in gqlgw_upstream_errors_total, in no request) and the stale entry keeps answering;
 * it never becomes the cached value. Real gateway over HTTP, a counting upstream on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { metricValue } from '../support/prom-text.js';
import { pollUntil, until } from '../support/wait.js';

const SCHEMA = `
type Query {
  news: News @fetch(source: "s", path: "/news") @cache(ttl: 1, stale: 30)
  latest: News @fetch(source: "s", path: "/news")
}
type News { version: Int text: String }
`;

describe('a background refresh is held to max_operation_upstream_bytes', { timeout: 30_000 }, () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    // The first answer is small; every later one is larger than an operation may take (2000 bytes).
    upstream = await startUpstream({
      'GET /news': () => (upstream.count() <= 1 ? { json: { version: 1, text: 'x' } } : { json: { version: 2, text: 'x'.repeat(5000) } }),
    });
    gw = await startTestGateway({
      schemas: { 's.graphqls': SCHEMA },
      sources: { s: { url: upstream.url } },
      extraToml: '[limits]\nmax_operation_upstream_bytes = 2000\n',
    });
  });
  after(async () => {
    await gw?.close();
    await upstream?.close();
  });

  const bytesLimitErrors = async (coordinate: string): Promise<number> =>
    metricValue((await gw.get('/metrics')).text, 'gqlgw_upstream_errors_total', {
      coordinate,
      source: 's',
      code: 'UPSTREAM_BYTES_LIMIT',
    }) || 0;

  test('the refresh of an answer over the limit fails as a request would, and the stale entry serves on', async () => {
    const first = await gw.query('{ news { version } }');
    const fetchedAt = Date.now();
    assert.deepEqual(first.body.data, { news: { version: 1 } });

    // The request path: the same answer, asked by a request, is cut and refused at its field.
    const asked = await gw.query('{ latest { version } }');
    assert.deepEqual(asked.body.data, { latest: null });
    assert.deepEqual(
      asked.body.errors?.map((e) => [e.extensions?.code, e.path]),
      [['UPSTREAM_BYTES_LIMIT', ['latest']]],
    );
    assert.equal(await bytesLimitErrors('Query.latest'), 1);

    await until(() => Date.now() > fetchedAt + 1050, 'the ttl is over');
    const stale = await gw.query('{ news { version } }');
    assert.deepEqual(stale.body.data, { news: { version: 1 } });
    assert.equal(debugCounts(stale).subrequests, 0, 'the refresh is in no request');
    await until(() => upstream.count() === 3, 'the background refresh reached the source');
    const refused = await pollUntil(
      () => bytesLimitErrors('Query.news'),
      (n) => n > 0,
    );
    assert.equal(refused, 1, 'the refresh was cut at max_operation_upstream_bytes, as a request is');

    // Nothing was stored: the stale entry answers, and (the refresh having ended) starts the next one.
    const later = await gw.query('{ news { version } }');
    assert.deepEqual(later.body.data, { news: { version: 1 } });
    await until(() => upstream.count() === 4, 'the next stale answer refreshes again');
  });
});
