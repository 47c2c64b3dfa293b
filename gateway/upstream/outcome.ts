/** The `extensions.code` of a GraphQL error caused by a failed lookup (SPEC.md "Errors and limits"). */
export const UPSTREAM_ERROR_CODES = [
  'UPSTREAM_HTTP_ERROR',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_BAD_RESPONSE',
  'UPSTREAM_UNREACHABLE',
  'NOT_FOUND',
] as const;
export type UpstreamErrorCode = (typeof UPSTREAM_ERROR_CODES)[number];

/**
 * What one HTTP subrequest came to. A 404 is its own outcome: the field decides whether it is a
 * null (nullable field) or a NOT_FOUND error (non-null field).
 */
export type UpstreamOutcome =
  | { readonly kind: 'ok'; readonly body: unknown }
  | { readonly kind: 'not-found' }
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
}

/** A failed outcome; `cause` defaults to 'status' when there is a status, else 'other'. */
export function failure(
  f: Omit<UpstreamFailure, 'status' | 'cause'> & { readonly status?: number; readonly cause?: FailureCause },
): UpstreamOutcome {
  const { code, source, message, detail, status } = f;
  return { kind: 'error', error: { code, source, status, message, detail, cause: f.cause ?? (status !== undefined ? 'status' : 'other') } };
}
