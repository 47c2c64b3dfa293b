import type { Plugin } from 'graphql-yoga';
import type { ExecutionArgs } from 'graphql';
import type { RequestAccess } from '../auth/access.js';
import type { Answers } from './answers.js';
import type { GatewayRequest } from './http-request.js';
import type { OperationPath } from './operation.js';

/**
 * Yoga's way through the one operation path (operation.ts), the same steps the fast path takes:
 * onParams resolves the text to run (persisted documents: a refusal is thrown, yoga answers it) and
 * checks the token before anything is parsed (a refused token is the result: yoga parses nothing);
 * yoga's parse and validation are answered from the document store (documents.ts); and its execute
 * is the operation path's, which runs the gateway's round-by-round executor. A throw nobody
 * expected becomes `answers.unexpectedError`, so it is the same 500 as on the fast path.
 */
export function useOperationPath(operations: OperationPath, answers: Answers): Plugin {
  const accessOf = new WeakMap<GatewayRequest, RequestAccess | undefined>();
  return {
    async onParams({ params, setParams, setResult, context }) {
      const http = (context as { http: GatewayRequest }).http;
      const begun = await operations.begin(http, params);
      if ('refused' in begun) return setResult(begun.refused.result);
      accessOf.set(http, begun.access);
      if (begun.text !== undefined && begun.text !== params.query) setParams({ ...params, query: begun.text });
    },
    onExecute({ setExecuteFn }) {
      setExecuteFn(async (args: ExecutionArgs) => {
        // The one request reader (http-request.ts): yoga's entrance hands it in as `http`.
        const http = (args.contextValue as { http: GatewayRequest }).http;
        try {
          const executed = await operations.execute(http, {
            document: args.document,
            operationName: args.operationName,
            variables: args.variableValues as Record<string, unknown> | null | undefined,
            access: accessOf.get(http),
            keepStats: true,
          });
          return executed ? executed.result : { errors: [answers.unexpectedError(new Error(CLIENT_GONE))] };
        } catch (err) {
          return { errors: [answers.unexpectedError(err)] };
        }
      });
    },
  };
}

/** What yoga answers (to nobody) when the client went away while its operation ran. */
const CLIENT_GONE = 'the client closed the connection';
