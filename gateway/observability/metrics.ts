/**
 * gqlgw's Prometheus metrics: one `createMetrics()` per gateway, each with its own prom-client
 * Registry (never the global one), so several gateways in one process never collide.
 *
 * WIRING (gateway/server/start.ts does this):
 *   1. At start-up, when `config.metrics.enabled`: `const metrics = createMetrics();`
 *   2. `metrics.listener` is the executor's ExecutionListener, one object for every request.
 *   3. `GET config.metrics.path` answers 200 with `content-type: metrics.contentType` and the body
 *      `await metrics.render()` (500 if rendering throws).
 *   4. The memcached tier (MemcachedTierEvents) gets
 *      `{ onFailure: metrics.onCacheTierFailure, onSkip: metrics.onCacheTierSkip }`.
 *   Without steps 2 and 4, /metrics shows the Node process metrics and empty gqlgw_* families.
 *
 * Exported series: every gqlgw_* family that definitions.ts defines (the one list of names, help
 * texts, labels and buckets), plus the Node process metrics as gqlgw_process_* / gqlgw_nodejs_*
 * (collectDefaultMetrics).
 *
 * Cardinality: the `operation` label is the operation name, "anonymous" for an unnamed operation,
 * and "other" for a name that is not a GraphQL Name of at most 100 characters; the names of trusted
 * documents always have their own, the rest share MAX_OPERATION_LABELS slots that a name in
 * regular use keeps (operation-labels.ts), so clients can neither grow the series count nor push a
 * real name out.
 * `coordinate` and `source` come from the schema and config; they are checked for shape (never an
 * id or URL) and capped the same way as a safety net.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import type {
  CacheEvent,
  ExecutionListener,
  LookupEventKind,
  OperationEvent,
  RateLimitReason,
  SubrequestEvent,
} from '../execute/send/listener.js';
import { CACHE_TIER_NAMES } from '../cache/tier.js';
import { MEMCACHED_FAILURE_KINDS, MEMCACHED_OPERATIONS, type MemcachedFailureKind, type MemcachedOperation } from '../cache/memcached.js';
import { UPSTREAM_ERROR_CODES } from '../errors.js';
import { BoundedLabel, isErrorCode, isFieldCoordinate, isSourceName, OTHER_LABEL } from './bounded-label.js';
import { OperationLabels } from './operation-labels.js';
import { DEFAULT_METRICS_PREFIX, defineMetrics, type MetricSet } from './definitions.js';

/** Operation names (besides the trusted documents') that hold a label value at once (operation-labels.ts). */
export const MAX_OPERATION_LABELS = 100;
/** How fast a slot's score halves: a name used less than about once per this long can be displaced. */
export const OPERATION_LABEL_HALF_LIFE_MS = 10 * 60_000;
/** Safety caps for schema-derived labels (a schema with more coordinates than this is unusual). */
export const MAX_COORDINATE_LABELS = 2000;
export const MAX_SOURCE_LABELS = 200;
export const ANONYMOUS_OPERATION = 'anonymous';
/** Distinct `code` values of gqlgw_http_requests_total; the gateway's own codes are far fewer. */
export const MAX_CODE_LABELS = 64;

export interface GatewayMetrics {
  /** This gateway's own registry, holding its metrics and the Node process metrics. */
  readonly registry: Registry;
  /** Records executor events. Every method is total: it never throws, whatever it is given. */
  readonly listener: Required<ExecutionListener>;
  /** Content-Type of `render()`'s text (Prometheus text exposition format 0.0.4). */
  readonly contentType: string;
  /** A shared-tier call failed or timed out and was served as a miss (or dropped). Never throws. */
  onCacheTierFailure(kind: MemcachedFailureKind, operation?: MemcachedOperation): void;
  /** A shared-tier call was skipped because the tier is cooling down. Never throws. */
  onCacheTierSkip(operation?: MemcachedOperation): void;
  /** An answer on the GraphQL path was sent (gqlgw_http_requests_total). Never throws. */
  onHttpAnswer(status: number, code: string): void;
  /** The fast path served a request (gqlgw_http_fast_path_total). Never throws. */
  onFastPath(): void;
  /** A document text was parsed (gqlgw_documents_parsed_total). Never throws. */
  onDocumentParsed(): void;
  /** The operation names that always keep their `operation` label (the trusted documents'); replaces the last set. */
  pinOperations(names: Iterable<string>): void;
  /** Trace spans were dropped before export (gqlgw_tracing_dropped_spans_total). Never throws. */
  onSpansDropped(spans: number): void;
  /** The Prometheus text of every metric in `registry`. */
  render(): Promise<string>;
}

export function createMetrics(): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: DEFAULT_METRICS_PREFIX });
  const set = defineMetrics(registry);
  const labels: MetricLabels = {
    coordinate: new BoundedLabel(MAX_COORDINATE_LABELS, isFieldCoordinate),
    source: new BoundedLabel(MAX_SOURCE_LABELS, isSourceName),
    code: new BoundedLabel(MAX_CODE_LABELS, isErrorCode),
  };
  const guarded = guardedBy(set);
  // One label object per label set (bounded like the labels), so hot-metrics.ts finds its child by identity.
  const operationLabels = new Map<string, { readonly operation: string }>();
  const operations = new OperationLabels(MAX_OPERATION_LABELS, OPERATION_LABEL_HALF_LIFE_MS, (name) => {
    const at = operationLabels.get(name) ?? { operation: name };
    operationLabels.delete(name);
    for (const series of [set.operationDuration, set.operationRounds, set.operationSubrequests, set.operationBatches]) series.remove(at);
  });
  const answerLabels = new Map<string, { readonly status: string; readonly code: string }>();

  return {
    registry,
    listener: createListener({ set, labels, guarded, operations, operationLabels }),
    contentType: registry.contentType,
    onCacheTierFailure: guarded((kind: MemcachedFailureKind, operation?: MemcachedOperation) => {
      set.cacheTierFailures.inc({ kind: oneOf(kind, MEMCACHED_FAILURE_KINDS), call: oneOf(operation, MEMCACHED_OPERATIONS) });
    }),
    onCacheTierSkip: guarded((operation?: MemcachedOperation) => {
      set.cacheTierSkips.inc({ call: oneOf(operation, MEMCACHED_OPERATIONS) });
    }),
    onHttpAnswer: guarded((status: number, code: string) => {
      const shownStatus = Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : OTHER_LABEL;
      const shownCode = labels.code.value(String(code));
      set.httpRequests.inc(stableLabels(answerLabels, `${shownStatus} ${shownCode}`, () => ({ status: shownStatus, code: shownCode })));
    }),
    onFastPath: guarded(() => set.fastPath.inc()),
    onDocumentParsed: guarded(() => set.documentsParsed.inc()),
    pinOperations: (names) => operations.pin(names),
    onSpansDropped: guarded((spans: number) => set.tracingDroppedSpans.inc(count(spans) ?? 1)),
    render: () => registry.metrics(),
  };
}

/** The bounded labels whose values come from the schema, the config and the answers. */
interface MetricLabels {
  readonly coordinate: BoundedLabel;
  readonly source: BoundedLabel;
  readonly code: BoundedLabel;
}

/** Wraps a recorder so that it never throws: a failure counts in gqlgw_metrics_listener_errors_total instead. */
type Guard = <F extends (...args: never[]) => void>(record: F) => F;

function guardedBy(set: MetricSet): Guard {
  // Two fixed parameters (every recorder takes at most two): no rest array per event.
  return <F extends (...args: never[]) => void>(record: F): F => {
    const call = record as unknown as (a: unknown, b: unknown) => void;
    return ((a: unknown, b: unknown): void => {
      try {
        call(a, b);
      } catch {
        try {
          set.listenerErrors.inc();
        } catch {
          // Nothing left to record with; a metric must never fail a query.
        }
      }
    }) as unknown as F;
  };
}

const BUDGET_REASON = { reason: 'budget' } as const;
const COST_REASON = { reason: 'cost' } as const;

/** The executor's listener: every event recorded in `set`, through the bounded labels. */
function createListener(parts: {
  readonly set: MetricSet;
  readonly labels: MetricLabels;
  readonly guarded: Guard;
  readonly operations: OperationLabels;
  readonly operationLabels: Map<string, { readonly operation: string }>;
}): Required<ExecutionListener> {
  const { set, labels, guarded, operations, operationLabels } = parts;
  const sites = new SiteLabels(labels.coordinate, labels.source);
  const where = (event: { coordinate: string; source: string }) => sites.of(event).at;
  return {
    onSubrequest: guarded((event: SubrequestEvent) => recordSubrequest(set, sites.of(event), event)),
    onCache: guarded((event: CacheEvent) => {
      set.cacheRequests.inc(sites.of(event).cacheLabels(event.tier, event.hit === true), count(event.count ?? 1) ?? 1);
    }),
    onDedupe: guarded((event: { readonly coordinate: string; readonly source: string; readonly count?: number }) => {
      set.dedupeSaved.inc(where(event), count(event.count ?? 1) ?? 1);
    }),
    onLookups: guarded(
      (event: { readonly coordinate: string; readonly source: string; readonly kind: LookupEventKind; readonly count: number }) => {
        const counter = lookupCounter(set, event.kind);
        if (counter) counter.inc(where(event), count(event.count) ?? 1);
      },
    ),
    onRevalidation: guarded(
      (event: { readonly coordinate: string; readonly source: string; readonly result: 'not_modified' | 'modified' }) => {
        set.revalidations.inc({ ...where(event), result: event.result === 'not_modified' ? 'not_modified' : 'modified' });
      },
    ),
    onRedirect: guarded((event: { readonly coordinate: string; readonly source: string; readonly followed: boolean }) => {
      set.redirects.inc({ ...where(event), result: event.followed ? 'followed' : 'refused' });
    }),
    onClientRateLimited: guarded((event: { readonly reason: 'budget' | 'cost' }) => {
      set.rateLimited.inc(event.reason === 'budget' ? BUDGET_REASON : COST_REASON);
    }),
    onRateLimited: guarded((event: { readonly source: string; readonly reason: RateLimitReason }) => {
      const reason = event.reason === 'held' || event.reason === 'local' ? event.reason : 'upstream';
      set.upstreamRateLimited.inc({ source: labels.source.value(event.source), reason });
    }),
    onOperation: guarded((event: OperationEvent) => {
      const name = event.operationName ? String(event.operationName) : ANONYMOUS_OPERATION;
      recordOperation(
        set,
        stableLabels(operationLabels, name === ANONYMOUS_OPERATION ? name : operations.value(name), (operation) => ({ operation })),
        event,
      );
    }),
  };
}

function recordSubrequest(set: MetricSet, site: Site, event: SubrequestEvent): void {
  const isBatch = event.batchSize !== undefined;
  set.subrequests.inc(isBatch ? site.batch : site.single);
  if (isBatch) {
    set.batches.inc(site.field);
    const size = count(event.batchSize);
    if (size !== undefined) set.batchSize.observe(site.field, size);
    set.batchRequests.observe(site.field, count(event.requests ?? 1) ?? 1);
  }
  const seconds = toSeconds(event.durationMs);
  if (seconds !== undefined) set.upstreamDuration.observe(site.at, seconds);
  if (event.errorCode !== undefined) {
    set.upstreamErrors.inc({
      ...site.at,
      code: oneOf(event.errorCode, UPSTREAM_ERROR_CODES),
    });
  }
}

type CacheLabels = { readonly coordinate: string; readonly source: string; readonly tier: string; readonly result: 'hit' | 'miss' };

/** The label objects of one (coordinate, source): built once, passed to prom-client as they are. */
class Site {
  readonly at: { readonly coordinate: string; readonly source: string };
  readonly field: { readonly coordinate: string };
  readonly single: { readonly coordinate: string; readonly source: string; readonly kind: 'single' };
  readonly batch: { readonly coordinate: string; readonly source: string; readonly kind: 'batch' };
  /** gqlgw_cache_requests_total labels by tier: [miss, hit]. */
  private readonly cache = new Map<string, [CacheLabels, CacheLabels]>();

  constructor(coordinate: string, source: string) {
    this.at = { coordinate, source };
    this.field = { coordinate };
    this.single = { coordinate, source, kind: 'single' };
    this.batch = { coordinate, source, kind: 'batch' };
  }

  cacheLabels(rawTier: unknown, hit: boolean): CacheLabels {
    const tier = oneOf(rawTier, CACHE_TIER_NAMES);
    let pair = this.cache.get(tier);
    if (!pair) {
      const { coordinate, source } = this.at;
      pair = [
        { coordinate, source, tier, result: 'miss' },
        { coordinate, source, tier, result: 'hit' },
      ];
      this.cache.set(tier, pair);
    }
    return pair[hit ? 1 : 0];
  }
}

/** Distinct raw (coordinate, source) pairs whose label objects are kept; past it they are built per event. */
const MAX_SITES = 4096;

/**
 * The label objects of every (coordinate, source) an event names, bounded like the labels: events
 * come by the hundred per query, and building their label objects each time was most of what a
 * subrequest cost the metrics.
 */
class SiteLabels {
  private readonly byCoordinate = new Map<string, Map<string, Site>>();
  private count = 0;

  constructor(
    private readonly coordinate: BoundedLabel,
    private readonly source: BoundedLabel,
  ) {}

  of(event: { readonly coordinate: string; readonly source: string }): Site {
    const bySource = this.byCoordinate.get(event.coordinate);
    const known = bySource?.get(event.source);
    if (known) return known;
    const coordinate = this.coordinate.value(String(event.coordinate));
    const source = this.source.value(String(event.source));
    const site = new Site(coordinate, source);
    if (this.count < MAX_SITES && typeof event.coordinate === 'string' && typeof event.source === 'string') {
      this.count++;
      if (bySource) bySource.set(event.source, site);
      else this.byCoordinate.set(event.coordinate, new Map([[event.source, site]]));
    }
    return site;
  }
}

function lookupCounter(set: MetricSet, kind: LookupEventKind): MetricSet['coalesced'] | undefined {
  switch (kind) {
    case 'coalesced':
      return set.coalesced;
    case 'stale-served':
      return set.staleServed;
    case 'refreshed':
      return set.refreshes;
    case 'missing-served':
      return set.missingServed;
    default:
      return undefined;
  }
}

/** The label object kept under `key`, made by `make` the first time. */
function stableLabels<T>(kept: Map<string, T>, key: string, make: (key: string) => T): T {
  let labels = kept.get(key);
  if (labels === undefined) {
    labels = make(key);
    kept.set(key, labels);
  }
  return labels;
}

function recordOperation(set: MetricSet, at: { readonly operation: string }, event: OperationEvent): void {
  const seconds = toSeconds(event.durationMs);
  if (seconds !== undefined) set.operationDuration.observe(at, seconds);
  const rounds = count(event.rounds);
  if (rounds !== undefined) set.operationRounds.observe(at, rounds);
  const subrequests = count(event.subrequests);
  if (subrequests !== undefined) set.operationSubrequests.observe(at, subrequests);
  const batches = count(event.batches);
  if (batches !== undefined) set.operationBatches.observe(at, batches);
}

/** `value` when it is one of `allowed`, else "other": keeps fixed-set labels fixed. */
function oneOf(value: unknown, allowed: readonly string[]): string {
  return typeof value === 'string' && allowed.includes(value) ? value : 'other';
}

function toSeconds(ms: unknown): number | undefined {
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms / 1000 : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
