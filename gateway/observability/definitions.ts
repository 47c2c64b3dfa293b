/**
 * Every metric gqlgw exports, defined in one place: names, help texts, label names and buckets.
 * Names are part of the product contract (docs/observability.md); the Grafana dashboard in
 * examples/grafana/ and test/observability/dashboard.test.ts depend on them. Rename nothing
 * without updating both.
 *
 * Label values are bounded: `coordinate` is a schema coordinate `Type.field`, `source` a
 * gateway.toml source name, `operation` a capped operation name (see metrics.ts), `tier`, `kind`, `call`,
 * `result` and `code` small fixed sets. No label ever holds an id, a key, a path or a URL.
 */
import type { Registry } from 'prom-client';
import { HotCounter, HotHistogram } from './hot-metrics.js';

/** Keys per @batch request: @batch `max` defaults to 100; the buckets reach 1000. */
export const BATCH_SIZE_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
/** GraphQL requests sharing one @batch call (batch_across_requests). */
export const BATCH_REQUESTS_BUCKETS = [1, 2, 3, 5, 10, 20, 50, 100];
/** Seconds, from a sub-millisecond local call to a 10 s timeout. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
export const ROUND_BUCKETS = [0, 1, 2, 3, 4, 5, 6, 8, 10, 15, 20];
export const SUBREQUEST_BUCKETS = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/** Prefix of the Node process metrics (`collectDefaultMetrics`), e.g. `gqlgw_process_cpu_seconds_total`. */
export const DEFAULT_METRICS_PREFIX = 'gqlgw_';

export interface MetricSet {
  readonly batches: HotCounter<'coordinate'>;
  readonly batchSize: HotHistogram<'coordinate'>;
  readonly batchRequests: HotHistogram<'coordinate'>;
  readonly subrequests: HotCounter<'coordinate' | 'source' | 'kind'>;
  readonly cacheRequests: HotCounter<'coordinate' | 'source' | 'tier' | 'result'>;
  readonly upstreamDuration: HotHistogram<'coordinate' | 'source'>;
  readonly upstreamErrors: HotCounter<'coordinate' | 'source' | 'code'>;
  readonly dedupeSaved: HotCounter<'coordinate' | 'source'>;
  readonly coalesced: HotCounter<'coordinate' | 'source'>;
  readonly staleServed: HotCounter<'coordinate' | 'source'>;
  readonly refreshes: HotCounter<'coordinate' | 'source'>;
  readonly missingServed: HotCounter<'coordinate' | 'source'>;
  readonly operationDuration: HotHistogram<'operation'>;
  readonly operationRounds: HotHistogram<'operation'>;
  readonly operationSubrequests: HotHistogram<'operation'>;
  readonly operationBatches: HotHistogram<'operation'>;
  readonly cacheTierFailures: HotCounter<'kind' | 'call'>;
  readonly cacheTierSkips: HotCounter<'call'>;
  readonly listenerErrors: HotCounter;
  readonly httpRequests: HotCounter<'status' | 'code'>;
  readonly fastPath: HotCounter;
  readonly documentsParsed: HotCounter;
  readonly tracingDroppedSpans: HotCounter;
  readonly revalidations: HotCounter<'coordinate' | 'source' | 'result'>;
  readonly redirects: HotCounter<'coordinate' | 'source' | 'result'>;
  readonly rateLimited: HotCounter<'reason'>;
  readonly upstreamRateLimited: HotCounter<'source' | 'reason'>;
}

/**
 * Registers gqlgw's own metrics (not the Node process ones) in `registry`, group by group in this
 * order (the order of /metrics).
 */
export function defineMetrics(registry: Registry): MetricSet {
  const registers = [registry];
  return {
    ...lookupMetrics(registers),
    ...operationMetrics(registers),
    ...entranceMetrics(registers),
    ...sourceMannerMetrics(registers),
  };
}

/** Where a group registers its metrics. */
type Registers = Registry[];

/** Lookups per field and source: subrequests, batches, cache tiers, dedupe and coalescing. */
function lookupMetrics(registers: Registers) {
  /** A counter of lookups per field and source (the labels of most per-field series). */
  const perField = (name: string, help: string) => new HotCounter({ name, help, labelNames: ['coordinate', 'source'] as const, registers });
  return {
    batches: new HotCounter({
      name: 'gqlgw_batches_total',
      help: '@batch requests sent to sources (one per chunk of at most `max` keys).',
      labelNames: ['coordinate'],
      registers,
    }),
    batchSize: new HotHistogram({
      name: 'gqlgw_batch_size',
      help: 'Keys per @batch request.',
      labelNames: ['coordinate'],
      buckets: BATCH_SIZE_BUCKETS,
      registers,
    }),
    batchRequests: new HotHistogram({
      name: 'gqlgw_batch_requests',
      help: 'GraphQL requests whose keys one @batch request carried (more than 1: shared across requests, batch_across_requests).',
      labelNames: ['coordinate'],
      buckets: BATCH_REQUESTS_BUCKETS,
      registers,
    }),
    subrequests: new HotCounter({
      name: 'gqlgw_subrequests_total',
      help: 'HTTP requests sent to sources; kind is "single" (@fetch) or "batch" (@batch).',
      labelNames: ['coordinate', 'source', 'kind'],
      registers,
    }),
    cacheRequests: new HotCounter({
      name: 'gqlgw_cache_requests_total',
      help: 'Cache lookups per tier (l1 request memo, l2 process LRU, memcached); result is "hit" or "miss".',
      labelNames: ['coordinate', 'source', 'tier', 'result'],
      registers,
    }),
    upstreamDuration: new HotHistogram({
      name: 'gqlgw_upstream_duration_seconds',
      help: 'Duration of HTTP requests to sources, failed ones included.',
      labelNames: ['coordinate', 'source'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    upstreamErrors: new HotCounter({
      name: 'gqlgw_upstream_errors_total',
      help: 'Failed HTTP requests to sources, by error code (UPSTREAM_HTTP_ERROR, UPSTREAM_TIMEOUT, ...).',
      labelNames: ['coordinate', 'source', 'code'],
      registers,
    }),
    dedupeSaved: perField(
      'gqlgw_dedupe_saved_total',
      'Lookups answered by an identical subrequest already made in the same GraphQL request.',
    ),
    coalesced: perField(
      'gqlgw_coalesced_total',
      "Lookups (keys, for @batch) answered by an identical call in flight for another GraphQL request; not in that request's X-GQL-Subrequests.",
    ),
    staleServed: perField('gqlgw_cache_stale_served_total', 'Lookups answered by an expired cache entry within its @cache(stale) window.'),
    refreshes: perField(
      'gqlgw_cache_refreshes_total',
      'Keys a background refresh of a stale cache entry renewed (one per key per process at a time).',
    ),
    missingServed: perField(
      'gqlgw_cache_missing_served_total',
      'Lookups answered by a remembered miss (@cache(missing)): null, or NOT_FOUND for a non-null field.',
    ),
  };
}

/** Per GraphQL operation, by its capped name: duration, rounds, subrequests and batches. */
function operationMetrics(registers: Registers) {
  return {
    operationDuration: new HotHistogram({
      name: 'gqlgw_operation_duration_seconds',
      help: 'Execution time of GraphQL operations; operation is the capped operation name or "anonymous".',
      labelNames: ['operation'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    operationRounds: new HotHistogram({
      name: 'gqlgw_operation_rounds',
      help: 'Rounds run per GraphQL operation (as X-GQL-Rounds).',
      labelNames: ['operation'],
      buckets: ROUND_BUCKETS,
      registers,
    }),
    operationSubrequests: new HotHistogram({
      name: 'gqlgw_operation_subrequests',
      help: 'HTTP requests sent to sources per GraphQL operation (as X-GQL-Subrequests).',
      labelNames: ['operation'],
      buckets: SUBREQUEST_BUCKETS,
      registers,
    }),
    operationBatches: new HotHistogram({
      name: 'gqlgw_operation_batches',
      help: '@batch requests per GraphQL operation (as X-GQL-Batches).',
      labelNames: ['operation'],
      buckets: SUBREQUEST_BUCKETS,
      registers,
    }),
  };
}

/** The process as a whole: the memcached tier, the metrics listener, the GraphQL entrance and tracing. */
function entranceMetrics(registers: Registers) {
  return {
    cacheTierFailures: new HotCounter({
      name: 'gqlgw_cache_tier_failures_total',
      help: 'Failed calls to memcached: a get served as misses, a set dropped, a delete (@invalidate) not confirmed. kind is timeout, error or garbage; call is get, set or delete.',
      labelNames: ['kind', 'call'],
      registers,
    }),
    cacheTierSkips: new HotCounter({
      name: 'gqlgw_cache_tier_skips_total',
      help: 'memcached calls (call is get, set or delete) skipped while it cools down after repeated failures.',
      labelNames: ['call'],
      registers,
    }),
    listenerErrors: new HotCounter({
      name: 'gqlgw_metrics_listener_errors_total',
      help: 'Events the metrics listener could not record (a gqlgw bug; the query was unaffected).',
      registers,
    }),
    httpRequests: new HotCounter({
      name: 'gqlgw_http_requests_total',
      help: 'Answers on the GraphQL path (/graphql, preflights included) by HTTP status and code: the request error code (FIELD_LIMIT, PERSISTED_QUERY_NOT_FOUND, ...) or "ok".',
      labelNames: ['status', 'code'],
      registers,
    }),
    fastPath: new HotCounter({
      name: 'gqlgw_http_fast_path_total',
      help: 'GraphQL answers served by the fast path for plain POST JSON requests (the rest went through yoga).',
      registers,
    }),
    documentsParsed: new HotCounter({
      name: 'gqlgw_documents_parsed_total',
      help: 'GraphQL document texts parsed and validated (document cache misses); both entrances share one cache.',
      registers,
    }),
    tracingDroppedSpans: new HotCounter({
      name: 'gqlgw_tracing_dropped_spans_total',
      help: 'Finished trace spans never exported: the export queue was full, or their export failed or timed out ([tracing]).',
      registers,
    }),
  };
}

/** How sources are called beyond lookups: revalidations, redirects, and the client and source rate limits. */
function sourceMannerMetrics(registers: Registers) {
  return {
    revalidations: new HotCounter({
      name: 'gqlgw_cache_revalidations_total',
      help: 'Conditional refetches (If-None-Match / If-Modified-Since) of expired or stale cache entries, background refreshes included; result is "not_modified" (a 304 renewed the entry) or "modified".',
      labelNames: ['coordinate', 'source', 'result'],
      registers,
    }),
    redirects: new HotCounter({
      name: 'gqlgw_upstream_redirects_total',
      help: 'Redirects sources answered to GETs; result is "followed" (same origin and base path, within follow_redirects) or "refused" (an UPSTREAM_HTTP_ERROR with its status).',
      labelNames: ['coordinate', 'source', 'result'],
      registers,
    }),
    rateLimited: new HotCounter({
      name: 'gqlgw_rate_limited_total',
      help: 'Operations [rate_limit] refused before anything was sent; reason is "budget" (429 RATE_LIMITED: the client\'s bucket holds too little now) or "cost" (400 COST_LIMIT: the planned bound exceeds the whole bucket). Never labelled by client.',
      labelNames: ['reason'],
      registers,
    }),
    upstreamRateLimited: new HotCounter({
      name: 'gqlgw_upstream_rate_limited_total',
      help: 'Calls that met a source\'s rate limit; reason is "upstream" (a 429/503 asking to wait arrived), "held" (refused unsent while the source is held) or "local" (refused unsent by its rate_limit bucket).',
      labelNames: ['source', 'reason'],
      registers,
    }),
  };
}
