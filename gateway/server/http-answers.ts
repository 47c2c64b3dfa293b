import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { OperationStats } from '../execute/state.js';
import type { Answers } from './answers.js';

/**
 * Yoga's side of the answer pipeline: every result yoga produces (executed, or a request error such
 * as bad JSON, a missing query, a wrong method, a body over the limit) is turned into a response by
 * `answers.graphql`, exactly as the fast path does. Also:
 * - POST bodies must be `application/json` (or `application/graphql+json`); anything else is 415
 *   with a message saying so (yoga would also take form posts, multipart and `application/graphql`).
 * - A 413 closes the connection, so the rest of an oversized body is not read.
 */
export function useHttpAnswers(answers: Answers, statsOf: WeakMap<Request, OperationStats>): Plugin {
  const operationNameOf = new WeakMap<Request, unknown>();
  return {
    onParams({ params, request }) {
      operationNameOf.set(request, params.operationName);
    },
    onRequestParse({ request, url }) {
      if (request.method !== 'POST' || url.pathname !== '/graphql') return;
      const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type === 'application/json' || type === 'application/graphql+json') return;
      throw new GraphQLError(`POST bodies must be sent as application/json, not ${type === '' ? 'without a content-type' : `"${type}"`}.`, {
        extensions: { code: 'UNSUPPORTED_MEDIA_TYPE', http: { status: 415, headers: { accept: 'application/json' } } },
      });
    },
    onResultProcess({ request, setResultProcessor }) {
      setResultProcessor((result, fetchAPI) => {
        const single = Array.isArray(result) ? result[0] : result;
        const executionResult: ExecutionResult = isExecutionResult(single)
          ? single
          : { errors: [new GraphQLError('Unexpected error.', { extensions: { unexpected: true } })] };
        const answer = answers.graphql(executionResult, {
          origin: request.headers.get('origin') ?? undefined,
          accept: request.headers.get('accept') ?? undefined,
          operationName: operationNameOf.get(request),
          stats: statsOf.get(request),
        });
        return new fetchAPI.Response(answer.body, { status: answer.status, headers: answer.headers });
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
