import type { OperationStats } from '../execute/send/operation-stats.js';

/**
 * The X-GQL-* headers of docs/reference.md ("Rounds, dedupe and the debug headers") and the same counts in a
 * result's `extensions.gqlgw`. Only `answers.ts` puts them on answers, and only with
 * `debug_headers = true`.
 */
export const DEBUG_HEADER_NAMES = ['X-GQL-Rounds', 'X-GQL-Subrequests', 'X-GQL-Batches', 'X-GQL-Cost'] as const;

/** With `--workers`, which worker answered (set by start.ts on every answer when debug headers are on). */
export const WORKER_HEADER = 'X-GQL-Worker';

/** The X-GQL-* headers for an operation's counts (zeros when nothing ran). */
export function addDebugHeaders(stats: OperationStats | undefined, headers: Record<string, string>): void {
  headers['X-GQL-Rounds'] = String(stats?.rounds ?? 0);
  headers['X-GQL-Subrequests'] = String(stats?.subrequests ?? 0);
  headers['X-GQL-Batches'] = String(stats?.batches ?? 0);
  // The planned bound (execute/ask/cost-gate.ts): 0 when no operation was planned.
  headers['X-GQL-Cost'] = String(stats?.cost ?? 0);
}

/**
 * Puts the same counts into the result's `extensions.gqlgw`; not beside a federated trace, whose
 * `extensions` hold `ftv1` alone (docs/federation.md).
 */
export function addDebugExtensions(result: { extensions?: Record<string, unknown> }, stats: OperationStats): void {
  if (result.extensions?.ftv1 !== undefined) return;
  result.extensions = {
    ...result.extensions,
    gqlgw: { rounds: stats.rounds, subrequests: stats.subrequests, batches: stats.batches, cost: stats.cost ?? 0 },
  };
}
