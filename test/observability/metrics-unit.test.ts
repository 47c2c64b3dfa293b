/**
 * createMetrics() fed with executor events directly: exact rendered values, bounded labels, and
 * a listener that never throws. The end-to-end counterpart over HTTP is metrics-e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SubrequestEvent } from '../../gateway/execute/send/listener.js';
import { createMetrics, MAX_OPERATION_LABELS } from '../../gateway/observability/metrics.js';
import { parsePromText, samplesOf, valueOf, type PromText } from '../support/prom-text.js';

const author = { coordinate: 'Post.author', source: 'users' } as const;

function batch(size: number, extra: Partial<SubrequestEvent> = {}): SubrequestEvent {
  return { ...author, batchSize: size, durationMs: 4, errorCode: undefined, ...extra };
}

async function scrape(metrics: ReturnType<typeof createMetrics>): Promise<PromText> {
  return parsePromText(await metrics.render());
}

describe('gqlgw metrics: @batch', () => {
  it('one batch of 100 keys is batches_total 1 and batch_size count 1 sum 100', async () => {
    const metrics = createMetrics();
    metrics.listener.onSubrequest(batch(100));
    const text = await scrape(metrics);
    assert.equal(text.types.get('gqlgw_batches_total'), 'counter');
    assert.equal(text.types.get('gqlgw_batch_size'), 'histogram');
    assert.equal(valueOf(text, 'gqlgw_batches_total', { coordinate: 'Post.author' }), 1);
    assert.equal(valueOf(text, 'gqlgw_batch_size_count', { coordinate: 'Post.author' }), 1);
    assert.equal(valueOf(text, 'gqlgw_batch_size_sum', { coordinate: 'Post.author' }), 100);
    assert.equal(valueOf(text, 'gqlgw_batch_size_bucket', { coordinate: 'Post.author', le: '50' }), 0);
    assert.equal(valueOf(text, 'gqlgw_batch_size_bucket', { coordinate: 'Post.author', le: '100' }), 1);
    assert.equal(valueOf(text, 'gqlgw_subrequests_total', { ...author, kind: 'batch' }), 1);
    assert.equal(valueOf(text, 'gqlgw_subrequests_total', { ...author, kind: 'single' }), undefined);
  });

  it('95 keys in chunks of 10 are 10 batches with sizes summing to 95', async () => {
    const metrics = createMetrics();
    for (let i = 0; i < 9; i++) metrics.listener.onSubrequest(batch(10));
    metrics.listener.onSubrequest(batch(5));
    const text = await scrape(metrics);
    assert.equal(valueOf(text, 'gqlgw_batches_total', { coordinate: 'Post.author' }), 10);
    assert.equal(valueOf(text, 'gqlgw_batch_size_count', { coordinate: 'Post.author' }), 10);
    assert.equal(valueOf(text, 'gqlgw_batch_size_sum', { coordinate: 'Post.author' }), 95);
    assert.equal(valueOf(text, 'gqlgw_batch_size_bucket', { coordinate: 'Post.author', le: '5' }), 1);
    assert.equal(valueOf(text, 'gqlgw_batch_size_bucket', { coordinate: 'Post.author', le: '10' }), 10);
    assert.equal(valueOf(text, 'gqlgw_upstream_duration_seconds_count', author), 10);
    assert.ok(Math.abs((valueOf(text, 'gqlgw_upstream_duration_seconds_sum', author) ?? 0) - 0.04) < 1e-9);
  });

  it('a single fetch counts as a subrequest, not a batch', async () => {
    const metrics = createMetrics();
    metrics.listener.onSubrequest({
      coordinate: 'Query.user',
      source: 'users',
      batchSize: undefined,
      durationMs: 2,
      errorCode: undefined,
    });
    const text = await scrape(metrics);
    assert.equal(valueOf(text, 'gqlgw_subrequests_total', { coordinate: 'Query.user', source: 'users', kind: 'single' }), 1);
    assert.deepEqual(samplesOf(text, 'gqlgw_batches_total'), []);
    assert.deepEqual(samplesOf(text, 'gqlgw_batch_size_count'), []);
  });

  it('failed requests are counted by code and still timed', async () => {
    const metrics = createMetrics();
    metrics.listener.onSubrequest(batch(3, { errorCode: 'UPSTREAM_TIMEOUT', durationMs: 5000 }));
    metrics.listener.onSubrequest(batch(3, { errorCode: 'UPSTREAM_HTTP_ERROR' }));
    metrics.listener.onSubrequest(batch(3, { errorCode: 'UPSTREAM_HTTP_ERROR' }));
    const text = await scrape(metrics);
    assert.equal(valueOf(text, 'gqlgw_upstream_errors_total', { ...author, code: 'UPSTREAM_TIMEOUT' }), 1);
    assert.equal(valueOf(text, 'gqlgw_upstream_errors_total', { ...author, code: 'UPSTREAM_HTTP_ERROR' }), 2);
    assert.equal(valueOf(text, 'gqlgw_upstream_duration_seconds_count', author), 3);
    assert.equal(valueOf(text, 'gqlgw_upstream_duration_seconds_bucket', { ...author, le: '5' }), 3);
    assert.equal(valueOf(text, 'gqlgw_upstream_duration_seconds_bucket', { ...author, le: '2.5' }), 2);
    assert.equal(valueOf(text, 'gqlgw_batches_total', { coordinate: 'Post.author' }), 3);
  });
});

describe('gqlgw metrics: cache, dedupe, memcached tier', () => {
  it('counts hits and misses per tier, dedupe savings, tier failures and skips', async () => {
    const metrics = createMetrics();
    const l = metrics.listener;
    for (let i = 0; i < 4; i++) l.onCache({ ...author, tier: 'l1', hit: false });
    for (let i = 0; i < 3; i++) l.onCache({ ...author, tier: 'l2', hit: true });
    l.onCache({ ...author, tier: 'l2', hit: false });
    l.onCache({ ...author, tier: 'memcached', hit: false });
    l.onCache({ ...author, tier: 'memcached', hit: true, count: 40 });
    l.onCache({ coordinate: 'Query.user', source: 'users', tier: 'l1', hit: true });
    l.onDedupe(author);
    l.onDedupe({ ...author, count: 6 });
    metrics.onCacheTierFailure('timeout', 'get');
    metrics.onCacheTierFailure('timeout', 'get');
    metrics.onCacheTierFailure('error', 'set');
    metrics.onCacheTierSkip('get');
    metrics.onCacheTierSkip('set');
    metrics.onCacheTierSkip('get');
    const text = await scrape(metrics);
    const cache = (tier: string, result: string, at: Record<string, string> = author) =>
      valueOf(text, 'gqlgw_cache_requests_total', { ...at, tier, result });
    assert.equal(cache('l1', 'miss'), 4);
    assert.equal(cache('l1', 'hit'), undefined);
    assert.equal(cache('l2', 'hit'), 3);
    assert.equal(cache('l2', 'miss'), 1);
    assert.equal(cache('memcached', 'miss'), 1);
    assert.equal(cache('memcached', 'hit'), 40, 'a round reports its count in one event');
    assert.equal(cache('l1', 'hit', { coordinate: 'Query.user', source: 'users' }), 1);
    assert.equal(valueOf(text, 'gqlgw_dedupe_saved_total', author), 7);
    assert.equal(valueOf(text, 'gqlgw_cache_tier_failures_total', { kind: 'timeout', call: 'get' }), 2);
    assert.equal(valueOf(text, 'gqlgw_cache_tier_failures_total', { kind: 'error', call: 'set' }), 1);
    assert.equal(valueOf(text, 'gqlgw_cache_tier_skips_total', { call: 'get' }), 2);
    assert.equal(valueOf(text, 'gqlgw_cache_tier_skips_total', { call: 'set' }), 1);
  });

  it('counts coalesced lookups, stale serves, refreshes and remembered misses per coordinate and source', async () => {
    const metrics = createMetrics();
    const l = metrics.listener;
    l.onLookups({ ...author, kind: 'coalesced', count: 19 });
    l.onLookups({ ...author, kind: 'coalesced', count: 2 });
    l.onLookups({ ...author, kind: 'stale-served', count: 5 });
    l.onLookups({ ...author, kind: 'refreshed', count: 1 });
    l.onLookups({ coordinate: 'Query.user', source: 'users', kind: 'missing-served', count: 3 });
    l.onLookups({ ...author, kind: 'bogus' as never, count: 1 });
    const text = await scrape(metrics);
    assert.equal(valueOf(text, 'gqlgw_coalesced_total', author), 21);
    assert.equal(valueOf(text, 'gqlgw_cache_stale_served_total', author), 5);
    assert.equal(valueOf(text, 'gqlgw_cache_refreshes_total', author), 1);
    assert.equal(valueOf(text, 'gqlgw_cache_missing_served_total', { coordinate: 'Query.user', source: 'users' }), 3);
    assert.equal(valueOf(text, 'gqlgw_metrics_listener_errors_total'), 0, 'an unknown kind is ignored, not an error');
  });
});

describe('gqlgw metrics: operations', () => {
  it('records duration, rounds, subrequests and batches per operation name', async () => {
    const metrics = createMetrics();
    metrics.listener.onOperation({ operationName: 'Feed', durationMs: 250, rounds: 2, subrequests: 2, batches: 1 });
    metrics.listener.onOperation({ operationName: 'Feed', durationMs: 50, rounds: 2, subrequests: 101, batches: 0 });
    metrics.listener.onOperation({ operationName: '', durationMs: 1, rounds: 1, subrequests: 1, batches: 0 });
    const text = await scrape(metrics);
    const feed = { operation: 'Feed' };
    assert.equal(valueOf(text, 'gqlgw_operation_duration_seconds_count', feed), 2);
    assert.ok(Math.abs((valueOf(text, 'gqlgw_operation_duration_seconds_sum', feed) ?? 0) - 0.3) < 1e-9);
    assert.equal(valueOf(text, 'gqlgw_operation_rounds_sum', feed), 4);
    assert.equal(valueOf(text, 'gqlgw_operation_subrequests_sum', feed), 103);
    assert.equal(valueOf(text, 'gqlgw_operation_subrequests_bucket', { ...feed, le: '100' }), 1);
    assert.equal(valueOf(text, 'gqlgw_operation_subrequests_bucket', { ...feed, le: '200' }), 2);
    assert.equal(valueOf(text, 'gqlgw_operation_batches_sum', feed), 1);
    assert.equal(valueOf(text, 'gqlgw_operation_rounds_count', { operation: 'anonymous' }), 1);
  });

  it(`keeps at most ${MAX_OPERATION_LABELS} operation names at once; one-off names displace one-off names, not names in use`, async () => {
    const metrics = createMetrics();
    const op = (operationName: string) =>
      metrics.listener.onOperation({ operationName, durationMs: 1, rounds: 1, subrequests: 1, batches: 0 });
    metrics.pinOperations(['CheckoutPage']);
    for (let i = 0; i < 3; i++) op('ProductPage');
    for (let i = 0; i < MAX_OPERATION_LABELS + 50; i++) op(`Op${i}`);
    op('CheckoutPage');
    op('ProductPage');
    const text = await scrape(metrics);
    const counts = samplesOf(text, 'gqlgw_operation_rounds_count');
    assert.equal(counts.length, MAX_OPERATION_LABELS + 1, 'the slots and the pinned name');
    assert.equal(valueOf(text, 'gqlgw_operation_rounds_count', { operation: 'other' }), undefined);
    assert.equal(valueOf(text, 'gqlgw_operation_rounds_count', { operation: 'CheckoutPage' }), 1);
    assert.equal(valueOf(text, 'gqlgw_operation_rounds_count', { operation: 'ProductPage' }), 4);
    assert.equal(valueOf(text, 'gqlgw_operation_rounds_count', { operation: 'Op0' }), undefined, 'displaced: its series are gone');
    assert.equal(valueOf(text, 'gqlgw_operation_rounds_count', { operation: `Op${MAX_OPERATION_LABELS + 49}` }), 1);
  });
});

describe('gqlgw metrics: label safety and robustness', () => {
  it('never lets an id, a path or a URL into a label', async () => {
    const metrics = createMetrics();
    const l = metrics.listener;
    l.onSubrequest(batch(1, { coordinate: 'users:/users/42' }));
    l.onSubrequest(batch(1, { source: 'http://127.0.0.1:4001' }));
    l.onSubrequest(batch(1, { source: '42' }));
    l.onCache({ coordinate: '12345', source: 'users', tier: 'l2', hit: true });
    l.onOperation({ operationName: 'query { user(id: 7) { name } }', durationMs: 1, rounds: 1, subrequests: 1, batches: 0 });
    const text = await scrape(metrics);
    const gqlgw = text.samples.filter(
      (s) => s.name.startsWith('gqlgw_') && !s.name.startsWith('gqlgw_nodejs_') && !s.name.startsWith('gqlgw_process_'),
    );
    assert.ok(gqlgw.length > 0);
    for (const sample of gqlgw) {
      for (const [name, value] of Object.entries(sample.labels)) {
        if (name === 'le') continue;
        assert.doesNotMatch(value, /\/|http|^\d+$/, `${sample.name} ${name}="${value}"`);
      }
    }
    assert.equal(valueOf(text, 'gqlgw_batches_total', { coordinate: 'other' }), 1);
    assert.equal(valueOf(text, 'gqlgw_subrequests_total', { coordinate: 'Post.author', source: 'other', kind: 'batch' }), 2);
    assert.equal(valueOf(text, 'gqlgw_operation_rounds_count', { operation: 'other' }), 1);
  });

  it('listener methods never throw, whatever they get, and count what they could not record', async () => {
    const metrics = createMetrics();
    const l = metrics.listener as unknown as Record<string, ((event: unknown) => void) | undefined>;
    const junk: unknown[] = [undefined, null, 42, 'x', {}, { coordinate: Symbol('s') }];
    for (const name of ['onSubrequest', 'onCache', 'onDedupe', 'onOperation']) {
      const method = l[name];
      assert.equal(typeof method, 'function', `the listener has ${name}`);
      for (const event of junk) assert.doesNotThrow(() => method?.(event));
    }
    assert.doesNotThrow(() => metrics.onCacheTierFailure('nonsense' as 'error'));
    metrics.listener.onSubrequest(batch(7, { durationMs: Number.NaN }));
    const text = await scrape(metrics);
    assert.ok((valueOf(text, 'gqlgw_metrics_listener_errors_total') ?? 0) > 0);
    assert.equal(valueOf(text, 'gqlgw_cache_tier_failures_total', { kind: 'other', call: 'other' }), 1);
    assert.equal(valueOf(text, 'gqlgw_batch_size_sum', { coordinate: 'Post.author' }), 7);
  });

  it('each createMetrics() has its own registry', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.listener.onSubrequest(batch(100));
    const textA = await scrape(a);
    const textB = await scrape(b);
    assert.equal(valueOf(textA, 'gqlgw_batches_total', { coordinate: 'Post.author' }), 1);
    assert.equal(valueOf(textB, 'gqlgw_batches_total', { coordinate: 'Post.author' }), undefined);
    assert.equal(textB.types.get('gqlgw_process_cpu_seconds_total'), 'counter');
  });

  it('renders the Prometheus text format 0.0.4', async () => {
    const metrics = createMetrics();
    metrics.listener.onSubrequest(batch(2));
    assert.match(metrics.contentType, /^text\/plain; version=0\.0\.4/);
    assert.match(await metrics.render(), /^gqlgw_batches_total\{coordinate="Post.author"\} 1$/m);
  });
});
