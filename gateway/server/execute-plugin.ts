import type { Plugin } from 'graphql-yoga';
import type { ExecutionArgs } from 'graphql';
import type { Executor } from '../execute/executor.js';
import type { OperationStats } from '../execute/state.js';

/**
 * Replaces yoga's execute with the gateway's round-by-round executor. Yoga has already parsed and
 * validated the document (with its cache), so an invalid operation never reaches here and sends no
 * subrequest. The counts of each request are kept for the debug headers and metrics.
 */
export function useGatewayExecutor(executor: Executor, statsOf: WeakMap<Request, OperationStats>): Plugin {
  return {
    onExecute({ setExecuteFn }) {
      setExecuteFn(async (args: ExecutionArgs) => {
        const request = (args.contextValue as { request?: Request } | undefined)?.request;
        const { result, stats } = await executor.execute({
          document: args.document,
          operationName: args.operationName,
          variables: args.variableValues as Record<string, unknown> | null | undefined,
          header: (name) => request?.headers.get(name),
          // Aborts when the client disconnects: pending subrequests are cancelled.
          signal: request?.signal,
        });
        if (request) {
          const prior = statsOf.get(request);
          if (prior) {
            prior.rounds += stats.rounds;
            prior.subrequests += stats.subrequests;
            prior.batches += stats.batches;
          } else statsOf.set(request, { ...stats });
        }
        return result;
      });
    },
  };
}
