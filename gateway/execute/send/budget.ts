import type { OperationStats } from './operation-stats.js';

/** Raised before sending when a round would take the operation over its subrequest limit. */
export class SubrequestLimitError extends Error {
  constructor(readonly limit: number) {
    super(`this operation needs more than ${limit} subrequests (limits.max_subrequests); ask for less data per query`);
  }
}

/**
 * A request's `limits.max_subrequests` (docs/hardening.md), the one place that compares
 * what a request has sent (`stats.subrequests`, charged by the dispatch's count layer only,
 * execute/send/dispatch.ts) with it. It is asked at exactly three moments, each a decision about several
 * calls at once that no single call's layer could take:
 * - `reserve(n)`: the calls a round (round.ts) or a mutation step (mutation.ts) is about to send,
 *   all at once, before the first goes out: over the limit, SubrequestLimitError and nothing is sent
 *   (a per-call check would send the first calls of a round and fail the rest);
 * - `affords(senders, n)`: whether an extra attempt fits the budget of every request it counts for:
 *   a re-send or a redirect hop (the dispatch's resend and redirect layers), or the two halves of a
 *   split chunk (batch.ts: both or neither, so it is asked before either half is sent); an extra
 *   that does not fit is simply not made.
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

/** Whether every request in `senders` can afford `n` more subrequests (see SubrequestBudget). */
export function affords(senders: ReadonlyArray<{ readonly budget: SubrequestBudget }>, n: number): boolean {
  for (const s of senders) if (!s.budget.spare(n)) return false;
  return true;
}
