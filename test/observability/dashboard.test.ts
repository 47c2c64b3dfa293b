/**
 * Every PromQL expression of examples/grafana/gqlgw-dashboard.json (panel targets and template
 * variable queries) reads only series that createMetrics() exports, with labels those series carry.
 * The exported names come from a rendered registry (its `# TYPE` lines) after one event of each kind,
 * so renaming a metric, or a typo in a panel, fails this test.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { defineMetrics } from '../../gateway/observability/definitions.js';
import { createMetrics } from '../../gateway/observability/metrics.js';
import { createLiveMetrics } from '../../gateway/observability/live-metrics.js';
import { familyOf, parsePromText, type PromText } from '../support/prom-text.js';
import { readPromQL } from './promql-names.js';

const DASHBOARD = new URL('../../../examples/grafana/gqlgw-dashboard.json', import.meta.url);
/** Labels Prometheus adds to every scraped series (target labels), not the gateway. */
const TARGET_LABELS = ['instance', 'job'];

interface Query {
  readonly where: string;
  readonly expr: string;
  readonly legend: string | undefined;
}

async function exported(): Promise<PromText> {
  const metrics = createMetrics();
  const at = { coordinate: 'Post.author', source: 'users' };
  metrics.listener.onSubrequest({ ...at, batchSize: 3, durationMs: 2, errorCode: 'UPSTREAM_TIMEOUT' });
  metrics.listener.onSubrequest({ ...at, batchSize: undefined, durationMs: 2, errorCode: undefined });
  metrics.listener.onCache({ ...at, tier: 'l2', hit: true });
  metrics.listener.onDedupe(at);
  for (const kind of ['coalesced', 'stale-served', 'refreshed', 'missing-served'] as const)
    metrics.listener.onLookups({ ...at, kind, count: 1 });
  metrics.listener.onOperation({ operationName: 'Feed', durationMs: 5, rounds: 2, subrequests: 2, batches: 1 });
  metrics.onCacheTierFailure('timeout', 'get');
  metrics.onCacheTierSkip('get');
  metrics.onHttpAnswer(200, 'ok');
  metrics.listener.onRevalidation({ ...at, result: 'not_modified' });
  metrics.listener.onRedirect({ ...at, followed: true });
  metrics.listener.onClientRateLimited({ reason: 'budget' });
  metrics.listener.onRateLimited({ source: 'users', reason: 'held' });
  const live = createLiveMetrics(metrics.registry);
  live.onActive('Subscription.ticket', 1);
  live.onPoll('Subscription.ticket', 'changed');
  live.onEvents('Subscription.ticket', 1);
  live.onWebhook('zendesk', 'accepted');
  return parsePromText(await metrics.render());
}

/** Every query of the dashboard, rows' nested panels included. */
function queriesOf(dashboard: unknown): Query[] {
  const queries: Query[] = [];
  const d = dashboard as {
    panels?: Array<{ title?: string; panels?: unknown[]; targets?: Array<{ expr?: string; legendFormat?: string }> }>;
    templating?: { list?: Array<{ name: string; query?: string | { query?: string } }> };
  };
  const visit = (panels: typeof d.panels = []) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) {
        if (target.expr !== undefined) queries.push({ where: `panel "${panel.title}"`, expr: target.expr, legend: target.legendFormat });
      }
      visit(panel.panels as typeof d.panels);
    }
  };
  visit(d.panels);
  for (const variable of d.templating?.list ?? []) {
    const q = typeof variable.query === 'string' ? variable.query : variable.query?.query;
    const labelValues = q === undefined ? null : /^label_values\(\s*(.+?)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)$/.exec(q);
    if (labelValues) {
      queries.push({ where: `variable $${variable.name}`, expr: `sum by (${labelValues[2]}) (${labelValues[1]})`, legend: undefined });
    }
  }
  return queries;
}

/** Problems of one expression against the exported series; empty when it reads only those. */
function problemsOf(query: Query, text: PromText): string[] {
  const labelsBySample = new Map<string, Set<string>>();
  for (const sample of text.samples) {
    const set = labelsBySample.get(sample.name) ?? new Set(TARGET_LABELS);
    for (const label of Object.keys(sample.labels)) set.add(label);
    labelsBySample.set(sample.name, set);
  }
  const problems: string[] = [];
  const { selectors, groupingLabels } = readPromQL(query.expr);
  if (selectors.length === 0) problems.push(`${query.where}: no metric in ${query.expr}`);
  const readable = new Set<string>(TARGET_LABELS);
  for (const { metric, labels } of selectors) {
    const family = familyOf(text, metric);
    const isSeries = text.types.has(family) && (family !== metric || text.types.get(metric) !== 'histogram');
    if (!isSeries) {
      problems.push(`${query.where}: ${metric} is not exported by the gateway`);
      continue;
    }
    const has = labelsBySample.get(metric) ?? new Set(TARGET_LABELS);
    for (const label of labels) {
      if (!has.has(label)) problems.push(`${query.where}: ${metric} has no label "${label}"`);
    }
    for (const label of has) readable.add(label);
  }
  for (const label of groupingLabels) {
    if (!readable.has(label)) problems.push(`${query.where}: groups by "${label}", which none of its series has`);
  }
  for (const [, label = ''] of (query.legend ?? '').matchAll(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g)) {
    if (!readable.has(label)) problems.push(`${query.where}: legend uses "${label}", which none of its series has`);
  }
  return problems;
}

describe('Grafana dashboard', () => {
  it('reads only series and labels that createMetrics() exports', async () => {
    const dashboard: unknown = JSON.parse(await readFile(DASHBOARD, 'utf8'));
    const text = await exported();
    const queries = queriesOf(dashboard);
    assert.ok(queries.length >= 20, `found only ${queries.length} queries`);
    const problems = queries.flatMap((q) => problemsOf(q, text));
    assert.deepEqual(problems, []);

    const read = new Set(queries.flatMap((q) => readPromQL(q.expr).selectors.map((s) => familyOf(text, s.metric))));
    for (const required of [
      'gqlgw_batches_total',
      'gqlgw_batch_size',
      'gqlgw_cache_requests_total',
      'gqlgw_upstream_duration_seconds',
      'gqlgw_upstream_errors_total',
      'gqlgw_operation_rounds',
      'gqlgw_operation_subrequests',
      'gqlgw_cache_revalidations_total',
      'gqlgw_upstream_redirects_total',
    ]) {
      assert.ok(read.has(required), `no panel reads ${required}`);
    }
  });

  it('the check itself rejects unknown names, bare histogram names and unknown labels', async () => {
    const text = await exported();
    const check = (expr: string, legend?: string) => problemsOf({ where: 'test', expr, legend }, text);
    assert.deepEqual(
      check('sum by (coordinate) (rate(gqlgw_batches_total{coordinate=~"$coordinate"}[$__rate_interval]))', '{{coordinate}}'),
      [],
    );
    assert.deepEqual(check('rate(gqlgw_batch_size_sum[5m]) / rate(gqlgw_batch_size_count[5m])'), []);
    assert.deepEqual(check('rate(gqlgw_batch_total[5m])'), ['test: gqlgw_batch_total is not exported by the gateway']);
    assert.deepEqual(check('rate(gqlgw_batch_size[5m])'), ['test: gqlgw_batch_size is not exported by the gateway']);
    assert.deepEqual(check('rate(gqlgw_batches_total_sum[5m])'), ['test: gqlgw_batches_total_sum is not exported by the gateway']);
    assert.deepEqual(check('gqlgw_batches_total{source="users"}'), ['test: gqlgw_batches_total has no label "source"']);
    assert.deepEqual(check('sum by (tier) (gqlgw_batches_total)', '{{tier}}'), [
      'test: groups by "tier", which none of its series has',
      'test: legend uses "tier", which none of its series has',
    ]);
  });

  it('is an importable dashboard with a Prometheus datasource variable', async () => {
    const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as {
      uid: string;
      title: string;
      schemaVersion: number;
      templating: { list: Array<{ type: string; name: string; query: unknown }> };
      panels: Array<{ type: string; datasource?: { type: string; uid: string }; gridPos: object }>;
    };
    assert.equal(typeof dashboard.uid, 'string');
    assert.equal(typeof dashboard.title, 'string');
    assert.ok(dashboard.schemaVersion >= 30);
    const ds = dashboard.templating.list.find((v) => v.type === 'datasource');
    assert.deepEqual([ds?.name, ds?.query], ['datasource', 'prometheus']);
    for (const panel of dashboard.panels) {
      assert.ok(panel.gridPos, `${panel.type} panel without gridPos`);
      if (panel.type !== 'row') assert.deepEqual(panel.datasource, { type: 'prometheus', uid: '${datasource}' });
    }
  });

  it('every panel has a unique id and its own place on the 24-column grid', async () => {
    interface Panel {
      readonly id: number;
      readonly title?: string;
      readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
      readonly panels?: Panel[];
    }
    const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as { panels: Panel[] };
    const all: Panel[] = [];
    const visit = (panels: readonly Panel[] = []) => {
      for (const panel of panels) {
        all.push(panel);
        visit(panel.panels);
      }
    };
    visit(dashboard.panels);
    const ids = all.map((p) => p.id);
    assert.ok(
      ids.every((id) => Number.isInteger(id) && id > 0),
      'every id is a positive integer',
    );
    assert.deepEqual(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      [],
      'duplicated panel ids',
    );
    const overlaps: string[] = [];
    for (const [i, a] of all.entries()) {
      const g = a.gridPos;
      assert.ok(g.x >= 0 && g.y >= 0 && g.w > 0 && g.h > 0 && g.x + g.w <= 24, `panel ${a.id} "${a.title}" is off the grid`);
      for (const b of all.slice(i + 1)) {
        const o = b.gridPos;
        if (g.x < o.x + o.w && o.x < g.x + g.w && g.y < o.y + o.h && o.y < g.y + g.h)
          overlaps.push(`${a.id} "${a.title}" / ${b.id} "${b.title}"`);
      }
    }
    assert.deepEqual(overlaps, [], 'panels that overlap');
  });

  it('every series the gateway defines has a panel', async () => {
    const registry = new Registry();
    defineMetrics(registry);
    const defined = registry.getMetricsAsArray().map((m) => m.name);
    assert.ok(defined.length >= 20);
    const text = await exported();
    const queries = queriesOf(JSON.parse(await readFile(DASHBOARD, 'utf8')));
    const read = new Set(queries.flatMap((q) => readPromQL(q.expr).selectors.map((s) => familyOf(text, s.metric))));
    assert.deepEqual(
      defined.filter((name) => !read.has(name)),
      [],
      'series without a panel',
    );
  });
});
