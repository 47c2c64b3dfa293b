import type { OperationStats } from './state.js';

/** Raised before sending when a round would take the operation over its subrequest limit. */
export class SubrequestLimitError extends Error {
  constructor(readonly limit: number) {
    super(`this operation needs more than ${limit} subrequests (limits.max_subrequests); ask for less data per query`);
  }
}

/**
 * A request's `limits.max_subrequests` (SPEC.md "Errors and limits"), the one place that compares
 * what a request has sent (`stats.subrequests`, counted by the dispatch's count layer) with it:
 * - `reserve(n)`: the calls a round (or a mutation step) is about to send, all at once, before the
 *   first goes out: over the limit, SubrequestLimitError and nothing is sent;
 * - `spare(n)`: whether an extra attempt fits (a re-send, the two halves of a split chunk); an
 *   extra that does not fit is simply not made.
 */
export class SubrequestBudget {
  constructor(
    private readonly stats: OperationStats,
    readonly limit: number,
  ) {}

  reserve(n: number): void {
    if (this.stats.subrequests + n > this.limit) throw new SubrequestLimitError(this.limit);
  }

  spare(n: number): boolean {
    return this.stats.subrequests + n <= this.limit;
  }
}
