import { GraphQLError } from 'graphql';
import type { UpstreamFailure } from '../upstream/outcome.js';

/**
 * The GraphQL errors a failed or missing lookup becomes (SPEC.md "Errors"): `code` and `source` in
 * `extensions`, `status` for HTTP errors, and the upstream detail only in debug mode.
 */
export function upstreamError(failure: UpstreamFailure, exposeDetail: boolean): GraphQLError {
  const extensions: Record<string, unknown> = { code: failure.code, source: failure.source };
  if (failure.status !== undefined) extensions.status = failure.status;
  if (exposeDetail) extensions.detail = failure.detail;
  return new GraphQLError(failure.message, { extensions });
}

/**
 * A non-null value (field or list item) whose lookup found nothing. In debug mode `detail` (method,
 * path, status, as UPSTREAM_HTTP_ERROR's) is in `extensions.detail` when the lookup has one.
 */
export function notFoundError(coordinate: string, source: string, detail?: string): GraphQLError {
  const extensions: Record<string, unknown> = { code: 'NOT_FOUND', source };
  if (detail !== undefined) extensions.detail = detail;
  return new GraphQLError(`${coordinate} was not found`, { extensions });
}
