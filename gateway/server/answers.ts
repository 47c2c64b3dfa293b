import type { ServerResponse } from 'node:http';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { createGraphQLError } from '@graphql-tools/utils';
import type { OperationStats } from '../execute/send/operation-stats.js';
import { ResponseLimitError, responseLimitError, textOverResponseLimit } from '../execute/answer/answer-size.js';
import { CODE, hasCode, internalError, originNotAllowed, unsupportedMediaType } from '../errors.js';
import type { CorsPolicy } from './cors.js';
import { addDebugExtensions, addDebugHeaders, WORKER_HEADER } from './debug-headers.js';
import type { AnswerType, GatewayRequest } from './http-request.js';
import { rebuilt, withCode } from './error-copy.js';

/**
 * The one place that decides what an answer is on the wire (gateway/execute/README.md;
 * docs/hardening.md "Status codes"): its status, body and headers — content type, CORS, debug
 * headers, the worker header, error masking, the 500 body — and the `gqlgw_http_requests_total`
 * count. The fast path and yoga (as its result processor) only hand results here and write what
 * comes back, so the two entrances cannot disagree. Preflights (`OPTIONS /graphql`), the 415 of a
 * body that is no JSON, `/readyz`, the metrics path and the 404 of every other path are answered
 * here too, and every answer the server writes goes out through `write`.
 */
export interface WireAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Node sends no body for a HEAD request, whatever is here. */
  readonly body: string | Buffer;
}

/** What an answer depends on besides the result: read from the request by the entrance. */
export interface AnswerRequest {
  /** The Origin header. */
  readonly origin: string | undefined;
  /** What Accept asks for (http-request.ts reads it). */
  readonly answerType: AnswerType;
  /** The operationName the client sent (to explain an unknown one). */
  readonly operationName: unknown;
  /** The executor's counts, when an operation ran. */
  readonly stats: OperationStats | undefined;
}

export interface AnswerOptions {
  /** debug_headers: X-GQL-* headers and `extensions.gqlgw`, unmasked errors, suggestions kept. */
  readonly debugMode: boolean;
  /** [gateway] introspection; false: no "did you mean" suggestion in any error, debug or not. Default true. */
  readonly introspection?: boolean;
  /** [cors]; undefined: no CORS headers. */
  readonly cors: CorsPolicy | undefined;
  /** Called once per answer with its status and code (the request error's code, or "ok"). */
  readonly onAnswer?: (status: number, code: string) => void;
  /** With `--workers` and debug headers: this worker's id, sent as X-GQL-Worker on every answer. */
  readonly worker?: string;
  /** limits.max_response_bytes: a larger answer is replaced by 400 RESPONSE_LIMIT; absent: no bound. */
  readonly maxResponseBytes?: number;
  /** Told of every error nobody expected, before it is answered as a 500 (the operator's log line). */
  readonly onUnexpected?: (error: unknown) => void;
}

export interface Answers {
  /**
   * The answer to a GraphQL result (a response, or a request error without `data`). `dataJson`:
   * the response's `data`, already JSON text (execute/answer/write-data.ts), for a result without `data`.
   */
  graphql(result: ExecutionResult, request: AnswerRequest, dataJson?: string): WireAnswer;
  /** The 500 answer to an error nobody expected (an entrance's catch). */
  unexpected(error: unknown, request: AnswerRequest): WireAnswer;
  /**
   * The answer to `OPTIONS /graphql`. A CORS preflight (Origin and Access-Control-Request-Method)
   * from an allowed origin gets 204 with the CORS headers; from any other origin 403
   * ORIGIN_NOT_ALLOWED without CORS headers. An OPTIONS that is no preflight gets 204 with `Allow`.
   */
  options(origin: string | undefined, requestMethod: string | undefined): WireAnswer;
  /** 415 UNSUPPORTED_MEDIA_TYPE: a POST to the GraphQL path whose body is no JSON (http-request.ts BODY_TYPES). */
  unsupportedMediaType(request: GatewayRequest): WireAnswer;
  /** The error of a throw nobody expected, as yoga's execute hands it on: a 500 once answered. */
  unexpectedError(error: unknown): GraphQLError;
  /** 404 for a path the server has no route for. */
  notFound(): WireAnswer;
  /** `GET /readyz`: 200 `{"status":"ready"}`, or 503 `{"status":"draining"}`. */
  readiness(ready: boolean): WireAnswer;
  /** The metrics path: the Prometheus text, or 500 when rendering failed (`text` undefined). */
  metrics(text: string | undefined, contentType: string): WireAnswer;
  /** A static file (GraphiQL's assets), cached by browsers for an hour. */
  asset(type: string, body: Buffer): WireAnswer;
  /** 401 for a metrics request without `[metrics] token` as its bearer token. */
  unauthorized(): WireAnswer;
  /** Writes an answer to a Node response: the server's only way out. */
  write(res: ServerResponse, answer: WireAnswer): void;
}

export const UNEXPECTED_MESSAGE = 'Unexpected error.';
const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';
const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json; charset=utf-8';

export function createAnswers(options: AnswerOptions): Answers {
  const { debugMode, cors, maxResponseBytes } = options;
  const count = options.onAnswer ?? (() => {});

  /**
   * answerOf, and when writing the result throws (an error nobody expected, such as a value too
   * deep for JSON.stringify), the 500 of an unexpected error instead: the same on every entrance.
   */
  function graphql(result: ExecutionResult, request: AnswerRequest, dataJson?: string): WireAnswer {
    try {
      return answerOf(result, request, dataJson);
    } catch (err) {
      return answerOf({ errors: [unexpectedError(err)] }, request);
    }
  }

  function answerOf(result: ExecutionResult, request: AnswerRequest, dataJson?: string): WireAnswer {
    let shown = presentResult(result, {
      suggestions: debugMode && options.introspection !== false,
      operationName: request.operationName,
    });
    if (!debugMode && shown.errors) shown = { ...shown, errors: shown.errors.map(masked) };
    const declared = (shown.extensions?.http as { status?: number } | undefined)?.status;
    const status = declared ?? (shown.errors?.length && !('data' in shown) ? 500 : 200);
    const headers: Record<string, string> = {
      'content-type': request.answerType === 'graphql-response' ? GRAPHQL_RESPONSE_TYPE : JSON_TYPE,
    };
    for (const error of shown.errors ?? []) {
      const extra = (error.extensions?.http as { headers?: Record<string, string> } | undefined)?.headers;
      if (extra) for (const [name, value] of Object.entries(extra)) headers[name.toLowerCase()] = value;
    }
    shown = withoutInternals(shown);
    if (debugMode) {
      if (request.stats) addDebugExtensions(shown as { extensions?: Record<string, unknown> }, request.stats);
      addDebugHeaders(request.stats, headers);
    }
    cors?.addAnswerHeaders(request.origin, headers);
    // A plain success written by the data writer has nothing besides its data (no stringify of `{}`).
    const body = dataJson !== undefined && shown.errors === undefined && shown.extensions === undefined ? '{}' : JSON.stringify(shown);
    const whole = dataJson === undefined ? body : withData(dataJson, body);
    // The walk measured an estimate before shaping (execute/answer/answer-size.ts); this is the exact check
    // of what would be sent, so an answer over the limit is never sent, not even in part.
    if (textOverResponseLimit(whole, maxResponseBytes))
      return answerOf({ errors: [responseLimitError(new ResponseLimitError('max_response_bytes', maxResponseBytes!))] }, request);
    count(status, status < 400 ? 'ok' : codeOf(shown.errors));
    return { status, headers, body: whole };
  }

  const unexpectedError = (error: unknown): GraphQLError => {
    options.onUnexpected?.(error);
    const message = debugMode && error instanceof Error ? error.message : UNEXPECTED_MESSAGE;
    return internalError(message, true);
  };
  const worker = debugMode ? options.worker : undefined;

  return {
    graphql,
    unexpectedError,
    unexpected: (error, request) => graphql({ errors: [unexpectedError(error)] }, request),
    unsupportedMediaType(request) {
      const type = request.bodyType;
      const error = unsupportedMediaType(
        `POST bodies must be sent as application/json, not ${type === '' ? 'without a content-type' : `"${type}"`}.`,
      );
      return graphql({ errors: [error] }, requestFacts(request));
    },
    ...fixedAnswers,
    write(res, answer) {
      if (worker !== undefined) answer.headers[WORKER_HEADER] = worker;
      writeAnswer(res, answer);
    },
    options: (origin, requestMethod) => optionsAnswer({ cors, count }, origin, requestMethod),
  };
}

const plain = (status: number, body: string, type = TEXT_TYPE): WireAnswer => ({ status, headers: { 'content-type': type }, body });

/** The answers that depend on nothing of the version: 404, readiness, metrics, assets, the metrics' 401. */
const fixedAnswers: Pick<Answers, 'notFound' | 'readiness' | 'metrics' | 'asset' | 'unauthorized'> = {
  notFound: () => plain(404, 'not found\n'),
  readiness: (ready) => ({
    status: ready ? 200 : 503,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify({ status: ready ? 'ready' : 'draining' }),
  }),
  metrics: (text, contentType) => (text === undefined ? plain(500, 'metrics unavailable\n', 'text/plain') : plain(200, text, contentType)),
  asset: (type, body) => ({ status: 200, headers: { 'content-type': type, 'cache-control': 'public, max-age=3600' }, body }),
  unauthorized: () => ({
    status: 401,
    headers: { 'content-type': TEXT_TYPE, 'www-authenticate': 'Bearer realm="metrics"' },
    body: 'the metrics path needs "Authorization: Bearer <[metrics] token>"\n',
  }),
};

/** `Answers.options`: a preflight's 204 or 403, or the `Allow` of an OPTIONS that is no preflight. */
function optionsAnswer(
  at: { readonly cors: CorsPolicy | undefined; readonly count: (status: number, code: string) => void },
  origin: string | undefined,
  requestMethod: string | undefined,
): WireAnswer {
  const { cors, count } = at;
  const headers: Record<string, string> = {};
  if (origin === undefined || requestMethod === undefined) {
    headers['allow'] = 'GET, POST, OPTIONS';
    cors?.addAnswerHeaders(origin, headers);
    count(204, 'ok');
    return { status: 204, headers, body: '' };
  }
  if (!cors?.allows(origin)) {
    if (cors) headers['vary'] = 'Origin';
    headers['content-type'] = JSON_TYPE;
    count(403, CODE.ORIGIN_NOT_ALLOWED);
    const message = cors
      ? `The origin ${origin} is not allowed ([cors] origins).`
      : 'Cross-origin requests are not allowed (no [cors] table).';
    return { status: 403, headers, body: JSON.stringify({ errors: [originNotAllowed(message)] }) };
  }
  cors.addPreflightHeaders(origin, headers);
  count(204, 'ok');
  return { status: 204, headers, body: '' };
}

/** `{"data":…}` first, then the members of the rest of the result (its `extensions`): JSON.stringify's order. */
function withData(dataJson: string, rest: string): string {
  return rest === '{}' ? `{"data":${dataJson}}` : `{"data":${dataJson},${rest.slice(1)}`;
}

function writeAnswer(res: ServerResponse, answer: WireAnswer): void {
  const headers = answer.headers;
  headers['content-length'] = String(Buffer.byteLength(answer.body));
  res.writeHead(answer.status, headers).end(answer.body);
}

/** The request facts an answer depends on. */
export function requestFacts(request: GatewayRequest, operationName?: unknown, stats?: OperationStats): AnswerRequest {
  return { origin: request.origin, answerType: request.answerType, operationName, stats };
}

/** The code of a request error for the metric: the first error's `extensions.code`. */
function codeOf(errors: readonly GraphQLError[] | undefined): string {
  const code = errors?.[0]?.extensions?.code;
  return typeof code === 'string' ? code : CODE.INTERNAL_SERVER_ERROR;
}

/**
 * yoga's masking (its `maskError`, outside development), here so that answering never loads
 * graphql-yoga: an error that is not a GraphQL error of the gateway's own (one whose
 * `originalError` chain holds anything but GraphQL errors) becomes "Unexpected error." with code
 * INTERNAL_SERVER_ERROR and `unexpected`, keeping its locations, path and `extensions.http`.
 */
function masked(error: GraphQLError): GraphQLError {
  if (isOwnGraphQLError(error)) return error;
  const extensions: Record<string, unknown> = { code: CODE.INTERNAL_SERVER_ERROR, unexpected: true };
  if (error.extensions?.http) extensions.http = error.extensions.http;
  const { nodes, source, positions, path } = error;
  return createGraphQLError(UNEXPECTED_MESSAGE, { nodes, source, positions, path, extensions });
}

function isOwnGraphQLError(error: unknown): boolean {
  if (!(error instanceof GraphQLError)) return false;
  return error.originalError == null || isOwnGraphQLError(error.originalError);
}

/**
 * The result as a client may see it: operation-resolution errors explained, suggestions cut unless
 * debug with introspection on, and a result without `data` (a request error) marked with its HTTP status in
 * `extensions.http` (400 unless an error asks for more; none for an unexpected error) and its errors
 * given a code. Returns `result` itself when nothing changes.
 */
function presentResult(
  result: ExecutionResult,
  options: { readonly suggestions: boolean; readonly operationName: unknown },
): ExecutionResult {
  const errors = result.errors;
  if (!errors || errors.length === 0) return result;
  let shown = errors.map((e) => {
    const explained = explainOperationResolution(e, options.operationName);
    return options.suggestions ? explained : withoutSuggestion(explained);
  });
  const status = 'data' in result ? undefined : requestErrorStatus(shown);
  if (status !== undefined) shown = shown.map((e) => withCode(e, CODE.BAD_REQUEST));
  if (status === undefined && shown.every((e, i) => e === errors[i])) return result;
  const next: ExecutionResult = { ...result, errors: shown };
  if (status !== undefined) next.extensions = { ...result.extensions, http: { status } };
  return next;
}

/**
 * The status of a response that carries only errors: 400 unless an error declares a larger
 * status (405, 413, ...); undefined (500) when an error is unexpected.
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

function explainOperationResolution(error: GraphQLError, operationName: unknown): GraphQLError {
  if (!hasCode(error, CODE.OPERATION_RESOLUTION_FAILURE)) return error;
  const message =
    typeof operationName === 'string' && operationName !== ''
      ? `Unknown operation named "${operationName}".`
      : 'Could not determine what operation to execute: send a document with one operation, or name one in "operationName".';
  return new GraphQLError(message, { extensions: error.extensions });
}

/** graphql-js's " Did you mean …?" and gqlgw's own "; did you mean …?" (directives/suggest.ts). */
const SUGGESTION = /;? ?did you mean [^?]*\?/gi;

function withoutSuggestion(error: GraphQLError): GraphQLError {
  return /did you mean/i.test(error.message) ? rebuilt(error, error.message.replace(SUGGESTION, '').trimEnd()) : error;
}

/**
 * Drops what only travels inside the gateway: `extensions.http` (the status carrier) on the result
 * and on each error, and `unexpected`.
 */
function withoutInternals(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length && !result.extensions?.http) return result;
  const next: ExecutionResult = { ...result };
  if (result.errors) next.errors = result.errors.map(rebuiltForOutput);
  if (result.extensions) {
    const { http: _http, ...rest } = result.extensions;
    if (Object.keys(rest).length > 0) next.extensions = rest;
    else delete next.extensions;
  }
  return next;
}

function rebuiltForOutput(error: GraphQLError): GraphQLError {
  const { http: _http, unexpected: _unexpected, ...extensions } = (error.toJSON().extensions ?? {}) as Record<string, unknown>;
  return createGraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError ?? undefined,
    extensions: Object.keys(extensions).length ? extensions : undefined,
  });
}
