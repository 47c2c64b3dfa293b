/**
 * The `extensions.code` of a GraphQL error caused by a failed lookup (SPEC.md "Errors and limits").
 * UPSTREAM_URL_REFUSED (a `@fetch(url:)` value that is no URL of its source) and BAD_USER_INPUT (an
 * argument that would make a path segment `.`, `..` or empty) are lookups refused before sending.
 */
export const UPSTREAM_ERROR_CODES = [
  'UPSTREAM_HTTP_ERROR',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_BAD_RESPONSE',
  'UPSTREAM_UNREACHABLE',
  'NOT_FOUND',
  'UPSTREAM_URL_REFUSED',
  'BAD_USER_INPUT',
] as const;
export type UpstreamErrorCode = (typeof UPSTREAM_ERROR_CODES)[number];

/**
 * What one HTTP subrequest came to. A 404 is its own outcome: the field decides whether it is a
 * null (nullable field) or a NOT_FOUND error (non-null field).
 */
export type UpstreamOutcome =
  /** `validators`: the answer's ETag / Last-Modified, when the request asked for them (revalidate). */
  | { readonly kind: 'ok'; readonly body: unknown; readonly validators?: Validators }
  /** `detail`: method, path and status, for debug mode (absent when a cache tier remembered the miss). */
  | { readonly kind: 'not-found'; readonly detail?: string }
  | { readonly kind: 'error'; readonly error: UpstreamFailure };

/**
 * Why a subrequest failed, finer than its code, for the retry policy (upstream/retry-policy.ts):
 * - `reset`: the connection was reset or closed before the whole answer arrived;
 * - `status`: the source answered a non-2xx status (see `status`);
 * - `not-json`, `too-large`: the body was not JSON, or over max_response_bytes;
 * - `shape`: the body was JSON of the wrong shape (a batch answer that is not an array);
 * - `timeout`, `refused`, `overloaded`, `other`: as named; never retried.
 */
export type FailureCause = 'reset' | 'status' | 'not-json' | 'too-large' | 'shape' | 'timeout' | 'refused' | 'overloaded' | 'other';

/** A failed subrequest, as it appears in a GraphQL error's `extensions`. */
export interface UpstreamFailure {
  readonly code: UpstreamErrorCode;
  readonly source: string;
  /** The upstream's HTTP status, for UPSTREAM_HTTP_ERROR. */
  readonly status: number | undefined;
  /** Safe for clients: never the upstream body, URL or a stack. */
  readonly message: string;
  /** For logs and debug mode only: what exactly went wrong. */
  readonly detail: string;
  /** For the retry policy; never shown to clients. */
  readonly cause: FailureCause;
  /** A followable redirect (follow_redirects): the path after the source's base its Location names. */
  readonly redirect?: string;
}

/** A failed outcome; `cause` defaults to 'status' when there is a status, else 'other'. */
export function failure(
  f: Omit<UpstreamFailure, 'status' | 'cause'> & { readonly status?: number; readonly cause?: FailureCause },
): UpstreamOutcome {
  const { code, source, message, detail, status } = f;
  const error: UpstreamFailure = { code, source, status, message, detail, cause: f.cause ?? (status !== undefined ? 'status' : 'other') };
  return { kind: 'error', error: f.redirect === undefined ? error : { ...error, redirect: f.redirect } };
}

/** An answer's ETag / Last-Modified: what a conditional refetch sends (SPEC.md "@cache", revalidate). */
export interface Validators {
  readonly etag: string | undefined;
  readonly lastModified: string | undefined;
}
