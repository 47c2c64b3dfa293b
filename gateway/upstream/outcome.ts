import type { UpstreamErrorCode } from '../execute/listener.js';

/**
 * What one HTTP subrequest came to. A 404 is its own outcome: the field decides whether it is a
 * null (nullable field) or a NOT_FOUND error (non-null field).
 */
export type UpstreamOutcome =
  | { readonly kind: 'ok'; readonly body: unknown }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'error'; readonly error: UpstreamFailure };

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
}

export function failure(code: UpstreamErrorCode, source: string, message: string, detail: string, status?: number): UpstreamOutcome {
  return { kind: 'error', error: { code, source, status, message, detail } };
}
