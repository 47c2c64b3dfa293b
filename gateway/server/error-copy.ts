import { GraphQLError } from 'graphql';
import type { ErrorCode } from '../errors.js';

/** A copy of `error` with another message or extensions (GraphQLError's own fields are read-only). */
export function rebuilt(error: GraphQLError, message: string, extensions = error.extensions): GraphQLError {
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions,
  });
}

/**
 * `error` itself when it already has an `extensions.code`; otherwise a copy with `code` (and
 * `more`, after it) added to its extensions.
 */
export function withCode(error: GraphQLError, code: ErrorCode, more?: Readonly<Record<string, unknown>>): GraphQLError {
  if (error.extensions?.code !== undefined) return error;
  return rebuilt(error, error.message, { ...error.extensions, code, ...more });
}
