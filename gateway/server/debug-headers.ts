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
      const r = result as { extensions?: Record<string, unknown> };
      r.extensions = { ...r.extensions, gqlgw: { rounds: stats.rounds, subrequests: stats.subrequests, batches: stats.batches } };
    },
    onResponse({ request, response }) {
      const stats = statsOf.get(request);
      response.headers.set('X-GQL-Rounds', String(stats?.rounds ?? 0));
      response.headers.set('X-GQL-Subrequests', String(stats?.subrequests ?? 0));
      response.headers.set('X-GQL-Batches', String(stats?.batches ?? 0));
    },
  };
}
