import type { UpstreamErrorCode } from '../upstream/outcome.js';

/**
 * What the executor reports while it runs. Debug headers and Prometheus metrics both listen here;
 * the executor itself never imports either. Every method is optional and must not throw.
 * `coordinate` is the schema coordinate `Type.field` of the field that needed the lookup;
 * `source` is the gateway.toml source name. Neither ever carries an id or a URL.
 */
export type CacheTierName = 'l1' | 'l2' | 'l3';

export interface SubrequestEvent {
  readonly coordinate: string;
  readonly source: string;
  /** Keys in the request for a @batch request, undefined for a single fetch. */
  readonly batchSize: number | undefined;
  readonly durationMs: number;
  /** undefined when the request succeeded. */
  readonly errorCode: UpstreamErrorCode | undefined;
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
}
