/**
 * What one operation has done, as X-GQL-Rounds, X-GQL-Subrequests and X-GQL-Batches report it (docs/reference.md
 * "Rounds, dedupe and the debug headers"): subrequests and batches are charged by the dispatch's
 * count layer only (execute/dispatch.ts), rounds by the loop that runs them (run-rounds.ts, mutation.ts).
 */
export interface OperationStats {
  rounds: number;
  subrequests: number;
  batches: number;
  /** Revalidations of this operation answered 304 (a poll's `not_modified`, docs/live-data.md). */
  notModified?: number;
}
