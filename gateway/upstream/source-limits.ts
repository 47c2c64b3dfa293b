import type { SourceRateLimit } from '../config/types.js';

/**
 * Until when a source asked to be left alone (docs/rest-shapes.md "Rate limits"): set by an answer
 * (upstream/rate-limit-headers.ts), read before every attempt to send it (execute/send/dispatch.ts).
 * One per source per process; a later answer may lengthen a hold, never shorten it.
 */
export class SourceHold {
  /** Epoch milliseconds; 0: never held. */
  private until = 0;

  /** Milliseconds the hold still lasts at `now` (epoch ms); 0 when the source is not held. */
  remainingMs(now: number): number {
    return this.until > now ? this.until - now : 0;
  }

  /** Holds the source `ms` from `now`, unless it is already held longer. */
  holdFor(ms: number, now: number): void {
    if (now + ms > this.until) this.until = now + ms;
  }
}

/**
 * `rate_limit = { requests, per_s }` of a source: a token bucket of `requests` tokens, refilled
 * at `requests` per `per_s` seconds, from which every attempt to send takes one (a shared call or
 * a batch chunk is one attempt, however many requests it serves). A token not there yet may be
 * reserved: the attempt waits for it, and the reservation counts against the attempts after it.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  /** Tokens per millisecond. */
  private readonly rate: number;

  constructor(
    private readonly limit: SourceRateLimit,
    now: number,
  ) {
    this.tokens = limit.requests;
    this.last = now;
    this.rate = limit.requests / (limit.perS * 1000);
  }

  /**
   * Takes a token at `now` (a monotonic clock in ms): 0 when one is there, else the milliseconds
   * until the one it reserves, or undefined (nothing taken) when that would be over `maxWaitMs`.
   */
  take(now: number, maxWaitMs: number): number | undefined {
    const wait = this.untilTokenMs(now);
    if (wait > maxWaitMs) return undefined;
    this.tokens -= 1;
    return wait;
  }

  /** Milliseconds from `now` until a token is there for the next attempt (0: one is there). */
  untilTokenMs(now: number): number {
    this.tokens = Math.min(this.limit.requests, this.tokens + (now - this.last) * this.rate);
    this.last = now;
    return this.tokens >= 1 ? 0 : Math.ceil((1 - this.tokens) / this.rate);
  }
}
