/**
 * Reads the gateway's Prometheus endpoint and derives per-query wall times from it: the mean
 * operation duration and the upstream time per query. Series are found by name pattern
 * (`gqlgw_*operation*duration*`, `gqlgw_*upstream*` histograms), summed over their labels.
 */
import { request } from 'undici';
import type { GatewayTimings } from '../results.js';

/** Sum of every sample of each metric name (labels summed away). */
export type MetricTotals = Map<string, number>;

export async function scrapeMetrics(metricsUrl: string): Promise<MetricTotals> {
  const { statusCode, body } = await request(metricsUrl, { signal: AbortSignal.timeout(5000) });
  const text = await body.text();
  if (statusCode !== 200) throw new Error(`${metricsUrl} answered ${statusCode}`);
  const totals: MetricTotals = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{.*\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const [, name = '', raw] = m;
    const value = Number(raw);
    if (Number.isFinite(value)) totals.set(name, (totals.get(name) ?? 0) + value);
  }
  return totals;
}

export interface HistogramDelta {
  readonly name: string;
  /** Sum of observations in milliseconds. */
  readonly sumMs: number;
  readonly count: number;
}

/** The first histogram whose base name matches `pattern`, as a delta between two scrapes. */
export function histogramDelta(before: MetricTotals, after: MetricTotals, pattern: RegExp): HistogramDelta | undefined {
  for (const [name, sumAfter] of after) {
    if (!name.endsWith('_sum')) continue;
    const base = name.slice(0, -'_sum'.length);
    if (!pattern.test(base) || !after.has(`${base}_count`)) continue;
    const unit = /seconds/.test(base) ? 1000 : /micro/.test(base) ? 0.001 : 1;
    return {
      name: base,
      sumMs: (sumAfter - (before.get(name) ?? 0)) * unit,
      count: (after.get(`${base}_count`) ?? 0) - (before.get(`${base}_count`) ?? 0),
    };
  }
  return undefined;
}

export const OPERATION_DURATION = /^gqlgw_.*operation.*(duration|seconds|latency)/;
export const UPSTREAM_DURATION = /^gqlgw_.*(upstream|subrequest).*(duration|seconds|latency)/;

/** The gateway's own per-query timings between two scrapes that `queries` queries apart. */
export function gatewayTimings(before: MetricTotals, after: MetricTotals, queries: number): GatewayTimings {
  const operation = histogramDelta(before, after, OPERATION_DURATION);
  const upstream = histogramDelta(before, after, UPSTREAM_DURATION);
  const perQuery = operation !== undefined && operation.count > 0 ? operation.count : queries;
  return {
    operationAvgMs: operation !== undefined && operation.count > 0 ? operation.sumMs / operation.count : undefined,
    upstreamMsPerQuery: upstream !== undefined && perQuery > 0 ? upstream.sumMs / perQuery : undefined,
    upstreamRequestsPerQuery: upstream !== undefined && perQuery > 0 ? upstream.count / perQuery : undefined,
  };
}
