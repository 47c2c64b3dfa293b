import { getArgumentValues } from 'graphql';
import type { PlanEntry } from '../../plan/types.js';
import type { Abortable } from '../../util/canceller.js';
import { ByteBudget } from '../../upstream/byte-budget.js';
import type { BatchWarning } from './batch.js';
import type { BatchCollector } from './batch-collector.js';
import { SubrequestBudget } from './budget.js';
import type { CacheTiers } from '../../cache/tier.js';
import type { InFlight } from './coalesce.js';
import type { Dispatch } from './dispatch.js';
import type { ExecutionListener, RequestObserver } from './listener.js';
import type { RequestAccess } from '../../auth/access.js';
import { ResultStore } from './result-store.js';
import type { HeaderForwarder } from './forwarded-headers.js';
import type { MemoEntry } from './memo-entry.js';
import type { OperationStats } from './operation-stats.js';
import type { SubrequestKeys } from './subrequest-keys.js';
import { FirstKeyMap } from '../../util/first-key-map.js';

/** What a round needs from the running gateway (one per executor). */
export interface RoundDeps extends CacheTiers {
  /** Every subrequest goes through it (execute/send/dispatch.ts). */
  readonly dispatch: Dispatch;
  readonly listener: ExecutionListener;
  readonly maxSubrequests: number;
  /** limits.max_operation_upstream_bytes: the body bytes one operation (or background refresh) may take from its sources. */
  readonly maxOperationUpstreamBytes: number;
  /** Calls in flight in this process, for coalescing and background refreshes (one per executor). */
  readonly inFlight: InFlight;
  /** Chunks shared across requests, waiting for the end of the turn (one per executor). */
  readonly collector: BatchCollector;
  /** @batch lookups' keys, built once per distinct key value (one per executor). */
  readonly keys: SubrequestKeys;
  /** Debug mode: upstream details go into error extensions. */
  readonly debugMode?: boolean;
}

/** The per-request state a round reads and fills. */
export interface RequestState {
  readonly variables: Readonly<Record<string, unknown>>;
  readonly store: ResultStore;
  readonly memo: Map<string, MemoEntry>;
  readonly stats: OperationStats;
  /** `limits.max_subrequests` over `stats` (execute/send/budget.ts). */
  readonly budget: SubrequestBudget;
  readonly forwarder: HeaderForwarder;
  /** Argument values by plan entry, coerced once per request (`argsOf`). */
  readonly args: FirstKeyMap<PlanEntry, Record<string, unknown>>;
  /** Aborts when the client went away: no more subrequests are sent, in-flight ones are cancelled. */
  readonly signal?: Abortable;
  /** Debug mode only: what looked wrong without failing (a batch answer that matched none of its keys). */
  readonly warnings?: BatchWarning[];
  /**
   * Whether this request may share calls with other requests (execute/send/coalesce.ts), on sources with
   * `coalesce = true`: queries only. A mutation operation never coalesces (docs/mutations.md).
   */
  readonly coalesce: boolean;
  /** Who asks (the verified token's claims and scopes); undefined without [auth]. */
  readonly access?: RequestAccess;
  /** Observes this request's rounds and subrequests (tracing); undefined: nothing is observed. */
  readonly observer?: RequestObserver;
  /** Only while a federated trace is asked for (execute/answer/ftv1.ts): performance.now() at each round's end. */
  readonly roundEnds?: number[];
  /** limits.max_operation_upstream_bytes: what the operation may still take from its sources (upstream/byte-budget.ts). */
  readonly upstreamBytes?: ByteBudget;
  /** A poll's tick (gateway/live/): this field's lookups are refetched, never answered by a cache tier. */
  readonly poll?: string;
}

/** What every request state of an executor has alike: its limits (RoundDeps has them). */
export type StateLimits = Pick<RoundDeps, 'maxSubrequests' | 'maxOperationUpstreamBytes'>;

/** What one request's state is made of besides its limits and stats: RequestState's fields of the same names. */
export interface StateParts {
  readonly variables: Readonly<Record<string, unknown>>;
  readonly forwarder: HeaderForwarder;
  readonly access: RequestAccess | undefined;
  readonly coalesce: boolean;
  readonly signal: Abortable | undefined;
  readonly poll: string | undefined;
  readonly observer: RequestObserver | undefined;
  /** Debug mode: the state keeps `warnings`. */
  readonly warns: boolean;
  /** A federated trace is asked for: the state keeps `roundEnds`. */
  readonly traced: boolean;
}

/**
 * The one way a RequestState is made, for an operation (execute/executor.ts) and for a background
 * refresh (`refreshState`) alike: every state has its own memo, store and argument values, and is
 * held to `limits.max_subrequests` and `limits.max_operation_upstream_bytes` by budgets of its own.
 */
export function requestState(limits: StateLimits, stats: OperationStats, parts: StateParts): RequestState {
  return {
    variables: parts.variables,
    store: new ResultStore(),
    memo: new Map(),
    stats,
    budget: new SubrequestBudget(stats, limits.maxSubrequests),
    forwarder: parts.forwarder,
    args: new FirstKeyMap(),
    signal: parts.signal,
    warnings: parts.warns ? [] : undefined,
    coalesce: parts.coalesce,
    poll: parts.poll,
    access: parts.access,
    observer: parts.observer,
    roundEnds: parts.traced ? [] : undefined,
    upstreamBytes: new ByteBudget(limits.maxOperationUpstreamBytes),
  };
}

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The state of a background refresh of stale entries a request found (docs/caching.md stale): a
 * request of its own for the same caller (its forwarded headers and access), with budgets of its
 * own; counted in no request's stats (its own start at one round), bound to no client's abort,
 * observed by no request's tracing, its warnings kept by nobody. Its entries are its memo's (`memo`),
 * as a round's are: what is its own when a chunk is shared (share-bytes.ts, isolate.ts).
 */
export function refreshState(of: RequestState, limits: StateLimits, memo: readonly MemoEntry[]): RequestState {
  const state = requestState(
    limits,
    { rounds: 1, subrequests: 0, batches: 0 },
    {
      variables: NO_VARIABLES,
      forwarder: of.forwarder,
      access: of.access,
      coalesce: true,
      signal: undefined,
      poll: undefined,
      observer: undefined,
      warns: false,
      traced: false,
    },
  );
  for (const m of memo) state.memo.set(m.key, m);
  return state;
}

/** The values of a field without arguments: never written to (a template reads them). */
const NO_ARGS: Record<string, unknown> = Object.freeze({});

/** The field's argument values for this request (coerced once per plan entry). */
export function argsOf(entry: PlanEntry, state: RequestState): Readonly<Record<string, unknown>> {
  if (entry.constantArgs) return entry.constantArgs;
  let args = state.args.get(entry);
  if (!args) {
    args =
      entry.variableArgs?.(state.variables) ??
      (entry.fieldDef.args.length
        ? getArgumentValues(entry.fieldDef, entry.fieldNode, state.variables as Record<string, unknown>)
        : NO_ARGS);
    state.args.add(entry, args);
  }
  return args;
}
