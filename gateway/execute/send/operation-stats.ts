/**
 * What one operation has done, as X-GQL-Rounds, X-GQL-Subrequests and X-GQL-Batches report it (docs/reference.md
 * "Rounds, dedupe and the debug headers"): subrequests and batches are charged by the dispatch's
 * count layer only (execute/send/dispatch.ts), rounds by the loop that runs them (run-rounds.ts, mutation.ts).
 */
export interface OperationStats {
  rounds: number;
  subrequests: number;
  batches: number;
  /** The operation's planned bound (X-GQL-Cost), when it was computed (execute/ask/cost-gate.ts). */
  cost?: number;
  /** Revalidations of this operation answered 304 (a poll's `not_modified`, docs/live-data.md). */
  notModified?: number;
}
