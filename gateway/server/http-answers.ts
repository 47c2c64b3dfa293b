import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requestFacts, UNEXPECTED_MESSAGE, type Answers } from './answers.js';
import type { GatewayRequest } from './http-request.js';
import type { OperationPath } from './operation.js';

/**
 * Yoga's side of the answer pipeline: every result yoga produces (executed, or a request error such
 * as bad JSON, a missing query, a wrong method, a body over the limit) is turned into a response by
 * `answers.graphql`, exactly as the fast path does, with the facts http-request.ts read from the
 * request (yoga's entrance hands them in as `serverContext.http`). A 413 closes the connection, so
 * the rest of an oversized body is not read. (Which bodies may carry an operation is the route
 * table's decision, before yoga: start.ts.)
 */
export function useHttpAnswers(answers: Answers, operations: Pick<OperationPath, 'stats'>): Plugin {
  const operationNameOf = new WeakMap<Request, unknown>();
  return {
    onParams({ params, request }) {
      operationNameOf.set(request, params.operationName);
    },
    onResultProcess({ request, setResultProcessor, serverContext }) {
      const http = (serverContext as { http?: GatewayRequest }).http!;
      setResultProcessor((result, fetchAPI) => {
        const single = Array.isArray(result) ? result[0] : result;
        const executionResult: ExecutionResult = isExecutionResult(single)
          ? single
          : { errors: [new GraphQLError(UNEXPECTED_MESSAGE, { extensions: { unexpected: true } })] };
        const answer = answers.graphql(executionResult, requestFacts(http, operationNameOf.get(request), operations.stats(http)));
        return new fetchAPI.Response(answer.body as string, { status: answer.status, headers: answer.headers });
      }, 'application/json');
    },
    onResponse({ response }) {
      if (response.status === 413) response.headers.set('connection', 'close');
    },
  };
}

function isExecutionResult(value: unknown): value is ExecutionResult {
  return typeof value === 'object' && value !== null && ('errors' in value || 'data' in value);
}
