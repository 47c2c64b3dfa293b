import { GraphQLError, type ASTNode } from 'graphql';

/**
 * The one file that spells gqlgw's error codes (`extensions.code`, docs/reference.md "Error
 * codes"; docs/hardening.md has the statuses): the code union, one constructor per code a request
 * or a field error is made with, and the one way a limit becomes an error (`limitError`). It is the
 * lowest layer of gateway/ (it imports only graphql): every folder may import it, it imports none.
 */

/**
 * The codes of a failed lookup (upstream/outcome.ts UpstreamFailure carries one until it becomes a
 * GraphQL error there). UPSTREAM_URL_REFUSED (a `@fetch(url:)` value that is no URL of its source)
 * and BAD_USER_INPUT (an argument that would make a path segment `.`, `..` or empty) are lookups
 * refused before sending.
 */
export const UPSTREAM_ERROR_CODES = [
  'UPSTREAM_HTTP_ERROR',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_BAD_RESPONSE',
  'UPSTREAM_UNREACHABLE',
  'NOT_FOUND',
  'UPSTREAM_URL_REFUSED',
  'BAD_USER_INPUT',
  'UPSTREAM_BYTES_LIMIT',
  'UPSTREAM_RATE_LIMITED',
] as const;
export type UpstreamErrorCode = (typeof UPSTREAM_ERROR_CODES)[number];

/** The codes of a limit (docs/hardening.md "Limits"); each becomes an error through `limitError` only. */
const LIMIT_CODES = [
  'TOKEN_LIMIT',
  'DEPTH_LIMIT',
  'ALIAS_LIMIT',
  'FIELD_LIMIT',
  'INTROSPECTION_LIMIT',
  'SUBREQUEST_LIMIT',
  'COST_LIMIT',
  'RATE_LIMITED',
  'RESPONSE_LIMIT',
  'SUBSCRIPTION_LIMIT',
] as const;
export type LimitCode = (typeof LIMIT_CODES)[number];

/** Every other code gqlgw writes. REQUEST_ENTITY_TOO_LARGE is graphql-yoga's own (a body over max_body_bytes). */
const REQUEST_CODES = [
  'BAD_REQUEST',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'OPERATION_RESOLUTION_FAILURE',
  'REQUEST_ENTITY_TOO_LARGE',
  'INTROSPECTION_DISABLED',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_HASH_MISMATCH',
  'PERSISTED_QUERY_INVALID',
  'PERSISTED_QUERY_REQUIRED',
  'ORIGIN_NOT_ALLOWED',
  'UNSUPPORTED_MEDIA_TYPE',
  'INTERNAL_SERVER_ERROR',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'SHUTTING_DOWN',
  'BATCH_MATCHED_NOTHING',
] as const;

/** Every `extensions.code` gqlgw writes. */
export const ERROR_CODES = [...REQUEST_CODES, ...LIMIT_CODES, ...UPSTREAM_ERROR_CODES] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The codes by name, for what carries a code before (or instead of) being a GraphQLError: an
 * upstream failure, a debug warning, a comparison with an error's code.
 */
export const CODE = Object.freeze(Object.fromEntries(ERROR_CODES.map((c) => [c, c]))) as { readonly [C in ErrorCode]: C };

/** A trace span's status for a request error that carries no code of its own; never an `extensions.code`. */
export const UNCODED_ERROR = 'GRAPHQL_ERROR';

/** Whether `error` carries `code` in its extensions. */
export function hasCode(error: { readonly extensions?: Readonly<Record<string, unknown>> } | undefined, code: ErrorCode): boolean {
  return error?.extensions?.code === code;
}

/** The error of `code`: its extensions are the code, then `more` in its order (the answer's bytes keep that order). */
function coded(code: ErrorCode, message: string, more?: Readonly<Record<string, unknown>>, nodes?: ASTNode): GraphQLError {
  const extensions = more === undefined ? { code } : { code, ...more };
  return new GraphQLError(message, nodes === undefined ? { extensions } : { nodes, extensions });
}

// Request and field errors, one constructor per code. `extensions.http` (a status, headers) is
// read by server/answers.ts and never reaches the client.

/** BAD_REQUEST: a request the gateway cannot read (400). */
export const badRequest = (message: string): GraphQLError => coded(CODE.BAD_REQUEST, message);
/** BAD_USER_INPUT: a variable, argument or claim the gateway cannot use; `nodes`: where in the document. */
export const badUserInput = (message: string, nodes?: ASTNode): GraphQLError => coded(CODE.BAD_USER_INPUT, message, undefined, nodes);
/** INTERNAL_SERVER_ERROR; `unexpected`: an error nobody expected, answered as a 500. */
export const internalError = (message: string, unexpected?: true): GraphQLError =>
  coded(CODE.INTERNAL_SERVER_ERROR, message, unexpected ? { unexpected } : undefined);
/** UNSUPPORTED_MEDIA_TYPE: a POST body that is no JSON (415, `Accept: application/json`). */
export const unsupportedMediaType = (message: string): GraphQLError =>
  coded(CODE.UNSUPPORTED_MEDIA_TYPE, message, { http: { status: 415, headers: { accept: 'application/json' } } });
/** ORIGIN_NOT_ALLOWED: a CORS preflight from an origin not allowed (403). */
export const originNotAllowed = (message: string): GraphQLError => coded(CODE.ORIGIN_NOT_ALLOWED, message);
/** INTROSPECTION_DISABLED: `__schema` / `__type` with introspection off (400). */
export const introspectionDisabled = (message: string): GraphQLError =>
  coded(CODE.INTROSPECTION_DISABLED, message, { http: { status: 400 } });
/** A persisted-document refusal (400): PERSISTED_QUERY_NOT_FOUND, _HASH_MISMATCH, _INVALID or _REQUIRED. */
export const persistedQueryError = (
  code: 'PERSISTED_QUERY_NOT_FOUND' | 'PERSISTED_QUERY_HASH_MISMATCH' | 'PERSISTED_QUERY_INVALID' | 'PERSISTED_QUERY_REQUIRED',
  message: string,
): GraphQLError => coded(code, message, { http: { status: 400 } });
/** UNAUTHENTICATED without a status of its own: a guarded field without a valid token (at its path), a subscription's token. */
export const unauthenticated = (message: string): GraphQLError => coded(CODE.UNAUTHENTICATED, message);
/** UNAUTHENTICATED for the whole request: 401 with `WWW-Authenticate: Bearer`. */
export const unauthenticatedRequest = (message: string): GraphQLError =>
  coded(CODE.UNAUTHENTICATED, message, { http: { status: 401, headers: { 'www-authenticate': 'Bearer' } } });
/** FORBIDDEN at a field's path: a token without one of the field's scopes. */
export const forbidden = (message: string): GraphQLError => coded(CODE.FORBIDDEN, message);
/** SHUTTING_DOWN: a subscription while the gateway completes its streams. */
export const shuttingDown = (message: string): GraphQLError => coded(CODE.SHUTTING_DOWN, message);

// Limits: every limit becomes an error here, through `limitError`.

/** The error of a limit passed: its code, then the limit's own fields in order. */
function limitError(code: LimitCode, message: string, fields?: Readonly<Record<string, unknown>>): GraphQLError {
  return coded(code, message, fields);
}

/** A document limit ([limits] max_tokens, max_depth, max_aliases, max_fields; one `__schema`): 400, `extensions.limit`. */
export const documentLimit = (
  code: 'TOKEN_LIMIT' | 'DEPTH_LIMIT' | 'ALIAS_LIMIT' | 'FIELD_LIMIT' | 'INTROSPECTION_LIMIT',
  message: string,
  limit: number,
): GraphQLError => limitError(code, message, { limit, http: { status: 400 } });
/** SUBREQUEST_LIMIT: over limits.max_subrequests (`extensions.limit`). */
export const subrequestLimit = (message: string, limit: number): GraphQLError => limitError(CODE.SUBREQUEST_LIMIT, message, { limit });
/** COST_LIMIT: a planned bound over max_planned_subrequests or a client's whole budget (`extensions.cost`, `limit`). */
export const costLimit = (message: string, cost: number, limit: number): GraphQLError =>
  limitError(CODE.COST_LIMIT, message, { cost, limit });
/** RATE_LIMITED: the client's bucket holds too little now: 429 with `Retry-After` (`extensions.cost`, `retryAfter`). */
export const rateLimited = (message: string, cost: number, retryAfter: number): GraphQLError =>
  limitError(CODE.RATE_LIMITED, message, { cost, retryAfter, http: { status: 429, headers: { 'retry-after': String(retryAfter) } } });
/** RESPONSE_LIMIT: an answer over max_result_nodes or max_response_bytes (`extensions.limit`: key and value). */
export const responseLimit = (message: string, key: string, value: number): GraphQLError =>
  limitError(CODE.RESPONSE_LIMIT, message, { limit: { key, value } });
/** SUBSCRIPTION_LIMIT: over [subscriptions] max_per_connection or max_total. */
export const subscriptionLimit = (message: string): GraphQLError => limitError(CODE.SUBSCRIPTION_LIMIT, message);

// Value errors.

/**
 * A value a source answered that does not fit its schema type, refused by a hook gqlgw owns (a
 * custom scalar's `serialize`, execute/answer/shape.ts): UPSTREAM_BAD_RESPONSE, carried by the error
 * itself so that execute/answer/value-errors.ts need not read the engine's wording. Its message is the
 * detail (debug mode only); `shown` is what a client reads, never the value. It carries no
 * `extensions`: the engine's located copy would inherit them and be taken as already presented.
 */
export class ValueError extends GraphQLError {
  readonly code = CODE.UPSTREAM_BAD_RESPONSE;

  constructor(
    detail: string,
    readonly shown: string,
  ) {
    super(detail);
  }
}
