import type { Plugin } from 'graphql-yoga';
import type { ExecutionArgs } from 'graphql';
import type { Executor } from '../execute/executor.js';
import type { Answers } from './answers.js';
import type { GatewayRequest } from './http-request.js';
import type { OperationStats } from '../execute/operation-stats.js';

/**
 * Replaces yoga's execute with the gateway's round-by-round executor. Yoga has already parsed and
 * validated the document (with its cache), so an invalid operation never reaches here and sends no
 * subrequest. The counts of each request are kept for the debug headers and metrics. A throw nobody
 * expected becomes `answers.unexpectedError`, so it is the same 500 as on the fast path.
 */
export function useGatewayExecutor(executor: Executor, answers: Answers, statsOf: WeakMap<Request, OperationStats>): Plugin {
  return {
    onExecute({ setExecuteFn }) {
      setExecuteFn(async (args: ExecutionArgs) => {
        const context = args.contextValue as { request?: Request; http?: GatewayRequest } | undefined;
        const request = context?.request;
        let outcome;
        try {
          outcome = await executor.execute({
            document: args.document,
            operationName: args.operationName,
            variables: args.variableValues as Record<string, unknown> | null | undefined,
            // The one header reader (http-request.ts): yoga's entrance hands it in as `http`.
            header: context!.http!.header,
            // Aborts when the client disconnects: pending subrequests are cancelled.
            signal: request?.signal,
            peer: context!.http!.node.socket.remoteAddress,
          });
        } catch (err) {
          return { errors: [answers.unexpectedError(err)] };
        }
        const { result, stats } = outcome;
        if (request) {
          const prior = statsOf.get(request);
          if (prior) {
            prior.rounds += stats.rounds;
            prior.subrequests += stats.subrequests;
            prior.batches += stats.batches;
            if (stats.cost !== undefined) prior.cost = (prior.cost ?? 0) + stats.cost;
          } else statsOf.set(request, { ...stats });
        }
        return result;
      });
    },
  };
}
