import type { UpstreamErrorCode } from '../../errors.js';
import type { CacheTierName } from '../../cache/tier.js';
import type { DocumentNode } from 'graphql';
import type { UpstreamOutcome } from '../../upstream/outcome.js';
import type { SharedCall } from './coalesce.js';

/**
 * What the executor reports while it runs. Debug headers and Prometheus metrics both listen here;
 * the executor itself never imports either. Every method is optional and must not throw.
 * `coordinate` is the schema coordinate `Type.field` of the field that needed the lookup;
 * `source` is the gateway.toml source name. Neither ever carries an id or a URL.
 */
export type { CacheTierName } from '../../cache/tier.js';

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

/**
 * Why a call met a rate limit (docs/rest-shapes.md "Rate limits"): `upstream` (a 429/503 asking to
 * wait arrived), `held` (refused unsent while its source is held), `local` (its `rate_limit` bucket).
 */
export type RateLimitReason = 'upstream' | 'held' | 'local';

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
   * requests (docs/caching.md); 1 when absent.
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
  /** A GET answered a redirect: followed (same origin and base, hops left) or refused (its status is the error). */
  onRedirect?(event: { readonly coordinate: string; readonly source: string; readonly followed: boolean }): void;
  /** An expired or stale entry was revalidated: a 304 (`not_modified`) or a new value (`modified`). */
  onRevalidation?(event: { readonly coordinate: string; readonly source: string; readonly result: 'not_modified' | 'modified' }): void;
  /** A call met a rate limit (one event per attempt, however many requests it served). */
  onRateLimited?(event: { readonly source: string; readonly reason: RateLimitReason }): void;
  onLookups?(event: { readonly coordinate: string; readonly source: string; readonly kind: LookupEventKind; readonly count: number }): void;
  /**
   * `[rate_limit]` refused an operation before anything was sent: `budget` (429 RATE_LIMITED, the
   * client's bucket holds too little now) or `cost` (400 COST_LIMIT, more than the whole bucket). Never names the client.
   */
  onClientRateLimited?(event: { readonly reason: 'budget' | 'cost' }): void;
}

/** What a request observer is told when the request starts. */
export interface RequestStart {
  /** The operation's name; undefined for an anonymous operation. */
  readonly operationName: string | undefined;
  /** `query` or `mutation`; undefined when the document has no such operation. */
  readonly operationType: string | undefined;
  /** The document, or its text when the request was refused before parsing (a refused token: server/operation.ts). */
  readonly document: DocumentNode | string;
  /** Reads a request header (lower-case name), for an incoming `traceparent`. */
  readonly header: (name: string) => string | null | undefined;
}

/** One subrequest about to be sent, as a request observer sees it. */
export interface SubrequestStart {
  readonly coordinate: string;
  readonly source: string;
  readonly method: string;
  /** The resolved path and query, as sent. */
  readonly path: string;
  /** Keys in a @batch request; undefined for a single fetch. */
  readonly batchSize?: number;
}

/** An observed subrequest: the headers it is sent with beyond its own, and its end. */
export interface ObservedSubrequest {
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The subrequest ended: `answer` as the source gave it, `outcome` as the lookup judged it;
   * both undefined when it was cancelled.
   */
  end(answer: UpstreamOutcome | undefined, outcome: UpstreamOutcome | undefined): void;
}

/**
 * Observes one GraphQL request while it runs (tracing, docs/observability.md). Made per request by
 * `ObserveRequests`; without one, the executor calls nothing and allocates nothing for it. Methods
 * must not throw.
 */
export interface RequestObserver {
  /** A round starts (`index` from 1, as X-GQL-Rounds counts) with this many lookups. */
  roundStarted(index: number, lookups: number): void;
  roundEnded(): void;
  /** Lookups a cache tier answered in the current round. */
  cacheHits(event: CacheEvent): void;
  /** A subrequest is sent for this request; `call` is set when it is a call other requests may share. */
  subrequest(start: SubrequestStart, call: SharedCall | undefined): ObservedSubrequest;
  /** This request waits for `call`, another request's call in flight (coalescing). */
  joined(call: SharedCall): void;
  /** The request is done; `errorCode` is its request error's code, if it failed as a whole. */
  ended(errorCode: string | undefined): void;
}

/** Makes the observer of each request (or none for it, e.g. not sampled and nothing to propagate). */
export type ObserveRequests = (start: RequestStart) => RequestObserver | undefined;
