import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * GraphQL-over-HTTP answers for bad requests (docs/hardening.md "Status codes"):
 * - POST bodies must be `application/json` (or `application/graphql+json`); anything else is 415
 *   with a message saying so (yoga would also take form posts, multipart and `application/graphql`).
 * - A response without `data` is a request error (nothing was executed: bad JSON, no query, a syntax
 *   or validation error, invalid variables, an unknown operation, a limit): 400 whatever the
 *   `Accept` header, unless an error asks for another 4xx (405 GET mutation, 413 body too large)
 *   or is an unexpected internal error (500). Responses with `data` stay 200.
 *   Such errors without a code (invalid variables) get code BAD_REQUEST.
 * - Unless debug is on, "Did you mean ...?" suggestions are cut from error messages, so the schema
 *   cannot be probed by typos.
 * - A 413 closes the connection, so the rest of an oversized body is not read.
 * - "Could not determine what operation to execute" says which: an unknown operationName, or a
 *   document with several operations and none named.
 */
export function useHttpAnswers(options: { readonly debug: boolean }): Plugin {
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
    onResultProcess({ request, result, setResult }) {
      if (Array.isArray(result) || !isExecutionResult(result)) return;
      const next = presentResult(result, { debug: options.debug, operationName: operationNameOf.get(request) });
      if (next !== result) setResult(next);
    },
    onResponse({ response }) {
      if (response.status === 413) response.headers.set('connection', 'close');
    },
  };
}

/**
 * The result as a client may see it: operation-resolution errors explained, suggestions cut unless
 * debug, and a result without `data` (a request error) marked with its HTTP status in
 * `extensions.http` (400 unless an error asks for more; none for an unexpected error) and its errors
 * given a code. Returns `result` itself when nothing changes. Shared by yoga's pipeline and the
 * fast path, so both answer alike.
 */
export function presentResult(result: ExecutionResult, options: { readonly debug: boolean; readonly operationName: unknown }): ExecutionResult {
  const errors = result.errors;
  if (!errors || errors.length === 0) return result;
  let shown = errors.map((e) => {
    const explained = explainOperationResolution(e, options.operationName);
    return options.debug ? explained : withoutSuggestion(explained);
  });
  const status = 'data' in result ? undefined : requestErrorStatus(shown);
  if (status !== undefined) shown = shown.map(withCode);
  if (status === undefined && shown.every((e, i) => e === errors[i])) return result;
  const next: ExecutionResult = { ...result, errors: shown };
  if (status !== undefined) next.extensions = { ...result.extensions, http: { status } };
  return next;
}

function isExecutionResult(value: unknown): value is ExecutionResult {
  return typeof value === 'object' && value !== null && ('errors' in value || 'data' in value);
}

/**
 * The status of a response that carries only errors: 400 unless an error declares a larger
 * status (405, 413, ...); undefined (yoga decides, 500) when an error is unexpected.
 */
function requestErrorStatus(errors: readonly GraphQLError[]): number | undefined {
  let status = 400;
  for (const e of errors) {
    if (!(e instanceof GraphQLError) || e.extensions?.unexpected) return undefined;
    const declared = (e.extensions?.http as { status?: unknown } | undefined)?.status;
    if (typeof declared === 'number' && declared > status) status = declared;
  }
  return status;
}

function withCode(error: GraphQLError): GraphQLError {
  return error.extensions?.code === undefined ? rebuilt(error, error.message, { ...error.extensions, code: 'BAD_REQUEST' }) : error;
}

/** A copy of `error` with another message or extensions (GraphQLError's own fields are read-only). */
function rebuilt(error: GraphQLError, message: string, extensions = error.extensions): GraphQLError {
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions,
  });
}

function explainOperationResolution(error: GraphQLError, operationName: unknown): GraphQLError {
  if (error.extensions?.code !== 'OPERATION_RESOLUTION_FAILURE') return error;
  const message =
    typeof operationName === 'string' && operationName !== ''
      ? `Unknown operation named "${operationName}".`
      : 'Could not determine what operation to execute: send a document with one operation, or name one in "operationName".';
  return new GraphQLError(message, { extensions: error.extensions });
}

const SUGGESTION = / ?Did you mean [^?]*\?/g;

function withoutSuggestion(error: GraphQLError): GraphQLError {
  return error.message.includes('Did you mean') ? rebuilt(error, error.message.replace(SUGGESTION, '').trimEnd()) : error;
}
