import type { UpstreamErrorCode } from '../upstream/outcome.js';
import type { CacheTierName } from '../cache/tier.js';

/**
 * What the executor reports while it runs. Debug headers and Prometheus metrics both listen here;
 * the executor itself never imports either. Every method is optional and must not throw.
 * `coordinate` is the schema coordinate `Type.field` of the field that needed the lookup;
 * `source` is the gateway.toml source name. Neither ever carries an id or a URL.
 */
export type { CacheTierName } from '../cache/tier.js';

/**
 * What happened to lookups beyond a tier's hit or miss:
 * - `coalesced`: answered by an identical call in flight for another GraphQL request (per key for
 *   @batch); not a subrequest of this request;
 * - `stale-served`: answered by an expired entry within its `stale` window;
 * - `refreshed`: a key a background refresh of a stale entry renewed (its own subrequests are
 *   reported by onSubrequest and counted in no request's stats);
 * - `missing-served`: answered by a remembered miss (`@cache(missing)`).
 */
export type LookupEventKind = 'coalesced' | 'stale-served' | 'refreshed' | 'missing-served';

export interface SubrequestEvent {
  readonly coordinate: string;
  readonly source: string;
  /** Keys in the request for a @batch request, undefined for a single fetch. */
  readonly batchSize: number | undefined;
  readonly durationMs: number;
  /** undefined when the request succeeded. */
  readonly errorCode: UpstreamErrorCode | undefined;
  /**
   * How many GraphQL requests the call counted for: more than 1 for a @batch call shared across
   * requests (SPEC.md "Batching across requests"); 1 when absent.
   */
  readonly requests?: number;
}

export interface CacheEvent {
  readonly coordinate: string;
  readonly source: string;
  readonly tier: CacheTierName;
  readonly hit: boolean;
  /** How many lookups this event stands for (a round reports its counts once); 1 when absent. */
  readonly count?: number;
}

export interface OperationEvent {
  readonly operationName: string;
  readonly durationMs: number;
  readonly rounds: number;
  readonly subrequests: number;
  readonly batches: number;
}

export interface ExecutionListener {
  onSubrequest?(event: SubrequestEvent): void;
  onCache?(event: CacheEvent): void;
  /** A lookup answered by an identical subrequest already made in this request. */
  onDedupe?(event: { readonly coordinate: string; readonly source: string; readonly count?: number }): void;
  onOperation?(event: OperationEvent): void;
  onLookups?(event: { readonly coordinate: string; readonly source: string; readonly kind: LookupEventKind; readonly count: number }): void;
}
