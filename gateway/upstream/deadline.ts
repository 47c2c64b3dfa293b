import { Canceller, type Abortable } from '../util/canceller.js';

/**
 * One deadline for the requests a round sends to one source (or for one shared call): one timer
 * and at most one listener on the caller's signal, however many requests use it, instead of an
 * AbortController, a timer and a listener per request.
 *
 * It is the signal of every request sent under it (upstream/exchange.ts listens on it): it aborts
 * every request still running when the time is up (`timedOut`) or when the caller's signal aborts
 * (`callerAborted`). The time counts from `SourceClient.deadline()`, so requests that share one
 * must be sent together (a round sends all of them at once); a request sent later (a re-send,
 * split halves) takes a new one. `release()` once no request uses it any more: it stops the timer
 * and leaves the caller's signal.
 */
export class Deadline extends Canceller {
  timedOut = false;
  private readonly timer: NodeJS.Timeout;
  /** When it passes, on performance.now()'s clock. */
  private readonly endsAt: number;

  constructor(
    timeoutMs: number,
    private readonly caller: Abortable | undefined,
  ) {
    super();
    this.endsAt = performance.now() + timeoutMs;
    this.timer = setTimeout(this.onTimeout, timeoutMs);
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** Whether the caller's signal aborted (the client went away); its reason is `callerReason`. */
  get callerAborted(): boolean {
    return this.caller?.aborted === true;
  }

  get callerReason(): unknown {
    return this.caller?.reason;
  }

  /** Milliseconds until it passes (0 once it has). */
  remainingMs(): number {
    return Math.max(0, this.endsAt - performance.now());
  }

  release(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }

  private readonly onTimeout = (): void => {
    if (this.aborted) return;
    this.timedOut = true;
    this.abort(new Error('deadline passed'));
  };

  private readonly onCallerAbort = (): void => {
    clearTimeout(this.timer);
    this.abort(this.caller!.reason);
  };
}

/**
 * The deadlines of requests sent together (a round's own subrequests, or one shared call): one
 * Deadline per source, made when first asked, all bound to one caller signal; `release()` once
 * every request sent under them has ended.
 */
export class DeadlineScope {
  /** Made at the first ask: a round whose lookups all wait in shared calls asks none. */
  private made: Map<string, Deadline> | undefined;

  constructor(private readonly caller: Abortable | undefined) {}

  /** The deadline of `source`'s requests in this scope (its timeout counts from the first ask). */
  for(source: DeadlineSource): Deadline {
    const made = (this.made ??= new Map());
    let deadline = made.get(source.name);
    if (!deadline) {
      deadline = source.deadline(this.caller);
      made.set(source.name, deadline);
    }
    return deadline;
  }

  release(): void {
    if (!this.made) return;
    for (const deadline of this.made.values()) deadline.release();
    this.made.clear();
  }
}

/** What makes a source's deadlines (upstream/client.ts SourceClient). */
export interface DeadlineSource {
  readonly name: string;
  deadline(caller: Abortable | undefined): Deadline;
}
