import type { SourceClient } from '../../upstream/client.js';
import { CODE } from '../../errors.js';
import type { Abortable } from '../../util/canceller.js';
import { failure, type UpstreamOutcome } from '../../upstream/outcome.js';
import { affords } from './budget.js';
import type { Dispatch, DispatchContext, Layer, Subrequest } from './dispatch.js';
import type { ExecutionListener, RateLimitReason } from './listener.js';

/**
 * A source's manners (docs/rest-shapes.md "Rate limits"), two layers of the dispatch:
 *
 * `sourceLimitLayer`, around every attempt (re-sends and redirect hops included), before it counts:
 * - while the source is held (a 429/503 with `Retry-After`, or a `RateLimit-Remaining: 0` with a
 *   reset, upstream/rate-limit-headers.ts) the attempt fails at once, unsent and uncounted, with
 *   UPSTREAM_RATE_LIMITED and the hold's remaining time (`held`);
 * - with `rate_limit` it takes a token of the source's bucket (upstream/source-limits.ts),
 *   waiting for one while the attempt's deadline allows, else it fails unsent (`local`).
 * (A 429/503 that asked to wait is reported as `upstream` by the dispatch's count layer.)
 * A shared call or a batch chunk is one attempt: its waiters all get the one outcome.
 *
 * `waitOutLayer`: with `retry_after_max_ms`, a GET or a batch chunk (never a mutation or another
 * write) answered 429/503 whose wait is at most that long and within its deadline is sent once
 * more once the wait is over, when every request it counts for affords one more subrequest.
 */
export function sourceLimitLayer(clients: ReadonlyMap<string, SourceClient>, listener: ExecutionListener): Layer {
  return (next) => {
    const admitted = (sub: Subrequest, ctx: DispatchContext, client: SourceClient): Promise<UpstreamOutcome> => {
      const held = client.hold.remainingMs(Date.now());
      return held > 0 ? Promise.resolve(refused(sub.source, held, 'held', listener)) : next(sub, ctx);
    };
    return (sub, ctx) => {
      const client = clients.get(sub.source)!;
      const bucket = client.bucket;
      if (!bucket || client.hold.remainingMs(Date.now()) > 0) return admitted(sub, ctx, client);
      const now = performance.now();
      const wait = bucket.take(now, deadlineLeft(sub, ctx, client));
      if (wait === undefined) return Promise.resolve(refused(sub.source, bucket.untilTokenMs(now), 'local', listener));
      if (wait === 0) return admitted(sub, ctx, client);
      return pause(wait, ctx.signal).then(() => admitted(sub, ctx, client));
    };
  };
}

export function waitOutLayer(clients: ReadonlyMap<string, SourceClient>): Layer {
  return (next: Dispatch) => (sub, ctx) =>
    next(sub, ctx).then((outcome) => {
      if (outcome.kind !== 'error' || outcome.error.cause !== 'rate-limited') return outcome;
      const client = clients.get(sub.source)!;
      const wait = outcome.error.retryAfterMs ?? Infinity;
      const mayWait = sub.method === 'GET' || sub.batchSize !== undefined;
      const max = client.retryAfterMaxMs;
      if (!mayWait || max <= 0 || wait > max || wait > deadlineLeft(sub, ctx, client) || !affords(ctx.for, 1)) return outcome;
      // A few ms past the hold: timers and Date.now() do not tick together.
      return pause(Math.min(wait, client.hold.remainingMs(Date.now())) + HOLD_MARGIN_MS, ctx.signal).then(() => next(sub, ctx));
    });
}

const HOLD_MARGIN_MS = 5;

/** How long an attempt may still wait: what is left of its scope's deadline for the source, or a whole timeout of its own. */
function deadlineLeft(sub: Subrequest, ctx: DispatchContext, client: SourceClient): number {
  return ctx.deadlines && sub.attempt !== 2 ? ctx.deadlines.for(client).remainingMs() : client.timeoutMs;
}

/** UPSTREAM_RATE_LIMITED for an attempt refused unsent, reported to the listener. */
function refused(
  source: string,
  retryAfterMs: number,
  reason: Exclude<RateLimitReason, 'upstream'>,
  listener: ExecutionListener,
): UpstreamOutcome {
  listener.onRateLimited?.({ source, reason });
  const why =
    reason === 'held'
      ? `source "${source}" asked to be left alone: retry after ${Math.ceil(retryAfterMs / 1000)} s`
      : `source "${source}" is at its rate_limit in this gateway: retry later`;
  return failure({
    code: CODE.UPSTREAM_RATE_LIMITED,
    source,
    message: why,
    detail: `not sent (${reason === 'held' ? 'source held' : 'rate_limit bucket empty'})`,
    cause: reason === 'held' ? 'held' : 'bucket',
    retryAfterMs,
  });
}

/** Resolves after `ms`, or rejects with `signal`'s reason once it aborts (the caller went away). */
function pause(ms: number, signal: Abortable | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
