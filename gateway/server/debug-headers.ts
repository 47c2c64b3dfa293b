import type { Plugin } from 'graphql-yoga';
import type { OperationStats } from '../execute/state.js';

/**
 * Carries the executor's counts to the HTTP response: the X-GQL-* headers of SPEC.md on every
 * GraphQL response, and the same counts in the result's `extensions.gqlgw`. In the plugin list
 * only when `debug_headers = true`.
 */
export function useDebugHeaders(statsOf: WeakMap<Request, OperationStats>): Plugin {
  return {
    onExecutionResult({ request, result }) {
      const stats = statsOf.get(request);
      if (!stats || Array.isArray(result) || !result || typeof result !== 'object' || !('data' in result || 'errors' in result)) return;
      addDebugExtensions(result as { extensions?: Record<string, unknown> }, stats);
    },
    onResponse({ request, response }) {
      for (const [name, value] of debugHeaders(statsOf.get(request))) response.headers.set(name, value);
    },
  };
}

/** The X-GQL-* headers of SPEC.md for an operation's counts (zeros when nothing ran). */
export function debugHeaders(stats: OperationStats | undefined): Array<[string, string]> {
  return [
    ['X-GQL-Rounds', String(stats?.rounds ?? 0)],
    ['X-GQL-Subrequests', String(stats?.subrequests ?? 0)],
    ['X-GQL-Batches', String(stats?.batches ?? 0)],
  ];
}

/** Puts the same counts into the result's `extensions.gqlgw`. */
export function addDebugExtensions(result: { extensions?: Record<string, unknown> }, stats: OperationStats): void {
  result.extensions = { ...result.extensions, gqlgw: { rounds: stats.rounds, subrequests: stats.subrequests, batches: stats.batches } };
}
