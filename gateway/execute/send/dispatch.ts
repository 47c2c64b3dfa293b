import type { HttpMethod } from '../../../directives/request.js';
import { isRedirectStatus, type SourceClient } from '../../upstream/client.js';
import type { Abortable } from '../../util/canceller.js';
import type { ByteBudget } from '../../upstream/byte-budget.js';
import { DeadlineScope } from '../../upstream/deadline.js';
import type { UpstreamOutcome } from '../../upstream/outcome.js';
import { shouldResend } from '../../upstream/retry-policy.js';
import { affords, type SubrequestBudget } from './budget.js';
import type { SharedCall } from './coalesce.js';
import type { ExecutionListener, RequestObserver } from './listener.js';
import type { OperationStats } from './operation-stats.js';
import { sourceLimitLayer, waitOutLayer } from './rate-limits.js';

/** One HTTP request to send for lookups: to which source, for which field, how its answer is judged. */
export interface Subrequest {
  readonly source: string;
  readonly coordinate: string;
  readonly method: HttpMethod;
  readonly path: string;
  /** JSON text for a method other than GET. */
  readonly body?: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Keys in the request for a @batch chunk; undefined for a single fetch. */
  readonly batchSize?: number;
  /** A reset connection may be answered by one more attempt (upstream/retry-policy.ts decides). */
  readonly mayResend: boolean;
  /** Turns a well-formed HTTP answer into what the lookup makes of it; identity when absent. */
  readonly judge?: ((outcome: UpstreamOutcome) => UpstreamOutcome) | undefined;
  /** `@fetch(response: true)`: the answer is `{status, headers, body}`. */
  readonly whole?: boolean;
  /** The answer's ETag / Last-Modified are kept (a @cache field of a source with revalidate). */
  readonly validators?: boolean;
  /** Redirects followed to get here (follow_redirects). */
  readonly hops?: number;
  /** 2 for the re-send of a reset attempt: it runs under a deadline of its own. */
  readonly attempt?: 1 | 2;
}

/** A request a subrequest counts for: its debug counts and its `limits.max_subrequests`. */
export interface Sender {
  readonly stats: OperationStats;
  readonly budget: SubrequestBudget;
  /** Observes the request's subrequests (tracing); absent: nothing is observed. */
  readonly observer?: RequestObserver;
  /** limits.max_operation_upstream_bytes of the request (upstream/byte-budget.ts). */
  readonly upstreamBytes?: ByteBudget;
  /** The request's memo (execute/send/memo-entry.ts): which entries of a shared chunk are its own. */
  readonly memo?: ReadonlyMap<string, { readonly key: string }>;
}

/** Who a subrequest is sent for, what cancels it, and the deadlines of the requests sent with it. */
export interface DispatchContext {
  /**
   * The requests it counts for: the one that sent it, or every request whose keys a shared @batch
   * call carries (docs/caching.md). Never empty.
   */
  readonly for: readonly Sender[];
  /** The client's signal, or a shared call's (execute/send/coalesce.ts); aborting it cancels the attempt. */
  readonly signal: Abortable | undefined;
  /**
   * The deadlines of the requests sent together with it (one per source), released by whoever made
   * the scope (see `releasing`); absent: the attempt runs under a deadline of its own.
   */
  readonly deadlines: DeadlineScope | undefined;
  /** Set when it is a call other requests may wait for or share (execute/send/coalesce.ts, batch-collector.ts). */
  readonly call?: SharedCall;
  /** The byte budget its answer is read under; absent: that of the first request in `for`. */
  readonly bytes?: ByteBudget;
}

/** Sends one subrequest; resolves with its outcome, rejects only with the caller's abort reason. */
export type Dispatch = (sub: Subrequest, ctx: DispatchContext) => Promise<UpstreamOutcome>;
/** One cross-cutting behaviour around the dispatch below it (as undici composes interceptors). */
export type Layer = (next: Dispatch) => Dispatch;

/** What the dispatch needs from the running gateway. */
export interface DispatchDeps {
  readonly clients: ReadonlyMap<string, SourceClient>;
  readonly listener: ExecutionListener;
  /**
   * Layers between `resend` and `count`, outermost first: each sees every attempt as one call with
   * its judged outcome (the place of a tracing client span).
   */
  readonly layers?: readonly Layer[];
}

/**
 * The one path every subrequest takes to its source, outermost first:
 * - `resend`: a reset GET is sent once more when upstream/retry-policy.ts allows it and the budget
 *   of every request it counts for has room (execute/send/budget.ts);
 * - `redirect`: a GET answered with a followable redirect (same origin and base path, decided by
 *   the client) is sent again to its Location while the source's `follow_redirects` allows and the
 *   budget has room; each hop is a subrequest;
 * - `waitOut` (execute/send/rate-limits.ts): a GET or batch chunk (or redirect hop) answered 429/503 is
 *   waited out and sent once more within `retry_after_max_ms`;
 * - `deps.layers` (tracing);
 * - `sourceLimit` (execute/send/rate-limits.ts, docs/rest-shapes.md "Rate limits"): an attempt to a held
 *   source fails unsent, and one of a source with `rate_limit` waits for its token (or fails
 *   unsent); neither is counted;
 * - `count`: each attempt counts for its requests (X-GQL-Subrequests, X-GQL-Batches) and is reported
 *   to the listener with what `judge` made of its answer (a 429/503 asking to wait also as rate limited);
 * - `deadline`: the attempt runs under its scope's deadline for the source, or under one of its own
 *   that this layer releases (the only deadline released outside `releasing`);
 * - the source's client (upstream/client.ts): admission (a connection's turn, upstream/admission.ts),
 *   exchange (undici dispatch, capped body, upstream/exchange.ts), decode (status and JSON into an
 *   outcome, upstream/decode.ts).
 */
export function createDispatch(deps: DispatchDeps): Dispatch {
  const { clients, listener } = deps;
  const layers: Layer[] = [
    resend,
    redirectLayer(deps),
    waitOutLayer(clients),
    ...(deps.layers ?? []),
    sourceLimitLayer(clients, listener),
    countLayer(listener),
    deadlineLayer,
  ];
  let dispatch = clientDispatch(deps.clients);
  for (let i = layers.length - 1; i >= 0; i--) dispatch = layers[i]!(dispatch);
  return dispatch;
}

const resend: Layer = (next) => (sub, ctx) =>
  next(sub, ctx).then((outcome) => {
    if (!sub.mayResend || outcome.kind !== 'error' || !shouldResend(outcome.error, sub.method) || !affords(ctx.for, 1)) return outcome;
    return next({ ...sub, mayResend: false, attempt: 2 }, ctx);
  });

/**
 * Follows redirects of GETs (docs/caching.md, follow_redirects): the client names the path a
 * redirect may be followed to (`error.redirect`); the hop is sent under the same deadlines and
 * keyed under the path asked; past `follow_redirects` hops, or without budget, the redirect is the
 * outcome (UPSTREAM_HTTP_ERROR with its status).
 */
function redirectLayer(deps: DispatchDeps): Layer {
  return (next) => {
    const follow = (sub: Subrequest, ctx: DispatchContext): Promise<UpstreamOutcome> =>
      next(sub, ctx).then((outcome) => {
        if (outcome.kind !== 'error' || sub.method !== 'GET' || !isRedirectStatus(outcome.error.status)) return outcome;
        const hops = sub.hops ?? 0;
        const to = outcome.error.redirect;
        const followed = to !== undefined && hops < deps.clients.get(sub.source)!.followRedirects && affords(ctx.for, 1);
        deps.listener.onRedirect?.({ coordinate: sub.coordinate, source: sub.source, followed });
        return followed ? follow({ ...sub, path: to, hops: hops + 1 }, ctx) : outcome;
      });
    return follow;
  };
}

/**
 * Tracing's client span (docs/observability.md): the first request the subrequest counts for that is
 * observed gets the span and sends its `traceparent`; the other requests of a shared call link to
 * it. Only in the dispatch when requests are observed ([tracing]).
 */
export const traceLayer: Layer = (next) => (sub, ctx) => {
  let observer: RequestObserver | undefined;
  for (const s of ctx.for) {
    if (!s.observer) continue;
    if (!observer) observer = s.observer;
    else if (ctx.call) s.observer.joined(ctx.call);
  }
  if (!observer) return next(sub, ctx);
  const observed = observer.subrequest(sub, ctx.call);
  return next({ ...sub, headers: { ...sub.headers, ...observed.headers } }, ctx).then(
    (outcome) => {
      observed.end(outcome, outcome);
      return outcome;
    },
    (err: unknown) => {
      observed.end(undefined, undefined);
      throw err;
    },
  );
};

function countLayer(listener: ExecutionListener): Layer {
  return (next) => (sub, ctx) => {
    const batch = sub.batchSize !== undefined;
    for (const s of ctx.for) {
      s.stats.subrequests++;
      if (batch) s.stats.batches++;
    }
    const t0 = performance.now();
    return next(sub, ctx).then((answer) => {
      const outcome = sub.judge ? sub.judge(answer) : answer;
      if (outcome.kind === 'error' && outcome.error.cause === 'rate-limited')
        listener.onRateLimited?.({ source: sub.source, reason: 'upstream' });
      listener.onSubrequest?.({
        coordinate: sub.coordinate,
        source: sub.source,
        batchSize: sub.batchSize,
        durationMs: performance.now() - t0,
        errorCode: outcome.kind === 'error' ? outcome.error.code : undefined,
        requests: ctx.for.length,
      });
      return outcome;
    });
  };
}

const deadlineLayer: Layer = (next) => (sub, ctx) => {
  if (sub.attempt !== 2 && ctx.deadlines) return next(sub, ctx);
  const own = new DeadlineScope(ctx.signal);
  return releasing(own, next(sub, { for: ctx.for, signal: ctx.signal, deadlines: own, call: ctx.call, bytes: ctx.bytes }));
};

function clientDispatch(clients: ReadonlyMap<string, SourceClient>): Dispatch {
  return (sub, ctx) => {
    const client = clients.get(sub.source)!;
    // The bytes count against the context's budget (a shared chunk's, execute/send/share-bytes.ts), else
    // against that of the request that sent it first (a shared call's leader).
    return client.send(sub, ctx.deadlines!.for(client), ctx.bytes ?? ctx.for[0]!.upstreamBytes);
  };
}

/** `work`, releasing `scope`'s deadlines once it has ended, either way. */
export function releasing<T>(scope: DeadlineScope, work: Promise<T>): Promise<T> {
  return work.then(
    (value) => {
      scope.release();
      return value;
    },
    (err: unknown) => {
      scope.release();
      throw err;
    },
  );
}
