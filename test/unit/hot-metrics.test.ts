/**
 * observability/hot-metrics.ts against prom-client itself: the same observations give the same
 * /metrics text and the same sums over workers (prom-client's AggregatorRegistry), for counters with and
 * without labels and for histograms, bounds included; invalid values throw like prom-client's.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { HotCounter, HotHistogram } from '../../gateway/observability/hot-metrics.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const VALUES = [0, 0.001, 0.0011, 0.01, 0.5, 1, 1.5, 30];

function both(): { theirs: Registry; ours: Registry } {
  return { theirs: new Registry(), ours: new Registry() };
}

/** What `--workers` serves: the JSON of two workers summed by prom-client's AggregatorRegistry. */
async function summedOverTwoWorkers(registry: Registry): Promise<string> {
  const json = await registry.getMetricsAsJSON();
  return AggregatorRegistry.aggregate([json, json]).metrics();
}

describe('hot metrics', () => {
  test('a histogram counts, sums and exports exactly as prom-client does (a value on a bound is in that bucket)', async () => {
    const { theirs, ours } = both();
    const a = new Histogram({ name: 'h', help: 'x', labelNames: ['coordinate', 'source'], buckets: BUCKETS, registers: [theirs] });
    const b = new HotHistogram({ name: 'h', help: 'x', labelNames: ['coordinate', 'source'], buckets: BUCKETS, registers: [ours] });
    const site = { coordinate: 'Post.author', source: 'users' };
    for (const v of VALUES) {
      a.observe(site, v);
      b.observe(site, v);
      a.observe({ coordinate: 'Query.posts', source: 'posts' }, v * 2);
      b.observe({ coordinate: 'Query.posts', source: 'posts' }, v * 2); // a new object each time: found by its values
    }
    assert.equal(await ours.metrics(), await theirs.metrics());
    assert.equal(await summedOverTwoWorkers(ours), await summedOverTwoWorkers(theirs));
    assert.match(await ours.metrics(), /^h_bucket\{le="0.001",coordinate="Post.author",source="users"\} 2$/m);
  });

  test('counters, with labels and without, export as prom-client does; an unlabelled one shows 0 at first', async () => {
    const { theirs, ours } = both();
    const a = new Counter({ name: 'c_total', help: 'x', labelNames: ['status', 'code'], registers: [theirs] });
    const b = new HotCounter({ name: 'c_total', help: 'x', labelNames: ['status', 'code'], registers: [ours] });
    const a0 = new Counter({ name: 'plain_total', help: 'y', registers: [theirs] });
    const b0 = new HotCounter({ name: 'plain_total', help: 'y', registers: [ours] });
    assert.equal(await ours.metrics(), await theirs.metrics());
    const ok = { status: '200', code: 'ok' };
    a.inc(ok);
    a.inc(ok, 4);
    a.inc({ status: '400', code: 'FIELD_LIMIT' });
    b.inc(ok);
    b.inc(ok, 4);
    b.inc({ status: '400', code: 'FIELD_LIMIT' });
    a0.inc();
    a0.inc(2);
    b0.inc();
    b0.inc(2);
    assert.equal(await ours.metrics(), await theirs.metrics());
    assert.equal(await summedOverTwoWorkers(ours), await summedOverTwoWorkers(theirs));
  });

  test('invalid values throw and change nothing', async () => {
    const registry = new Registry();
    const c = new HotCounter({ name: 'c_total', help: 'x', labelNames: ['k'], registers: [registry] });
    const h = new HotHistogram({ name: 'h', help: 'x', labelNames: ['k'], buckets: BUCKETS, registers: [registry] });
    assert.throws(() => c.inc({ k: 'a' }, -1), /not possible to decrease/);
    assert.throws(() => c.inc({ k: 'a' }, Number.NaN), /not a valid number/);
    assert.throws(() => h.observe({ k: 'a' }, Number.POSITIVE_INFINITY), /not a valid number/);
    assert.throws(() => h.observe({} as { k: string }, 1), /label "k" has no value/);
    c.inc({ k: 'a' });
    assert.match(await registry.metrics(), /^c_total\{k="a"\} 1$/m);
    assert.doesNotMatch(await registry.metrics(), /^h_count/m);
  });
});
