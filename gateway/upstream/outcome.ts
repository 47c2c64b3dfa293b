import { GraphQLError } from 'graphql';
import { CODE, type UpstreamErrorCode } from '../errors.js';

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
 * - `timeout`, `refused`, `overloaded`, `other`: as named; never retried;
 * - `rate-limited`: a 429 or 503 asking to wait (`retryAfterMs`); `held`: refused unsent because
 *   the source asked to be left alone; `bucket`: refused unsent by the source's `rate_limit`
 *   (docs/rest-shapes.md "Rate limits"). Only the first is ever re-sent (`retry_after_max_ms`).
 */
export type FailureCause =
  | 'reset'
  | 'status'
  | 'not-json'
  | 'too-large'
  | 'shape'
  | 'timeout'
  | 'refused'
  | 'overloaded'
  | 'other'
  | 'rate-limited'
  | 'held'
  | 'bucket';

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
  /** UPSTREAM_RATE_LIMITED: how long the source asked to be left alone (`extensions.retryAfter`, whole seconds). */
  readonly retryAfterMs?: number;
  /** `expose_errors`: the values of a 4xx JSON body the source lets callers read (`extensions.upstream`). */
  readonly upstream?: Readonly<Record<string, unknown>>;
}

/** A failed outcome; `cause` defaults to 'status' when there is a status, else 'other'. */
export function failure(
  f: Omit<UpstreamFailure, 'status' | 'cause'> & { readonly status?: number; readonly cause?: FailureCause },
): UpstreamOutcome {
  const { code, source, message, detail, status } = f;
  const error: UpstreamFailure = { code, source, status, message, detail, cause: f.cause ?? (status !== undefined ? 'status' : 'other') };
  if (f.redirect === undefined && f.retryAfterMs === undefined && f.upstream === undefined) return { kind: 'error', error };
  const { redirect, retryAfterMs, upstream } = f;
  return { kind: 'error', error: { ...error, redirect, retryAfterMs, upstream } };
}

/** An answer's ETag / Last-Modified: what a conditional refetch sends (docs/caching.md, revalidate). */
export interface Validators {
  readonly etag: string | undefined;
  readonly lastModified: string | undefined;
}

/** A 204, an empty 2xx body, or a null value without a request: null. */
export const NULL_BODY: UpstreamOutcome = Object.freeze({ kind: 'ok', body: null });
/** A 204 or empty answer of a mutation field of type Boolean (docs/mutations.md). */
export const TRUE_BODY: UpstreamOutcome = Object.freeze({ kind: 'ok', body: true });
/** A 404, a key a batch answer lacks, or a remembered miss (`@cache(missing:)`). */
export const NOT_FOUND: UpstreamOutcome = Object.freeze({ kind: 'not-found' });

/**
 * The value of a list-key @batch field (`topics` of `topicIds: [ID!]!`): one outcome per element,
 * in element order, repeats kept; undefined for an element with no key (a null element). Likewise
 * `Query._entities`, one per representation (execute/ask/entities.ts).
 */
export interface ElementsOutcome {
  readonly kind: 'elements';
  readonly elements: ReadonlyArray<UpstreamOutcome | RefusedOutcome | undefined>;
}

/**
 * A value the gateway answers with an error without asking any source: a guarded field this request
 * may not read (UNAUTHENTICATED, FORBIDDEN; execute/ask/access.ts), an `_entities` representation it
 * cannot read (BAD_USER_INPUT; execute/ask/entities.ts). Never an `ok` body: no value is ever an Error.
 */
export interface RefusedOutcome {
  readonly kind: 'refused';
  readonly error: GraphQLError;
}

/** What a field's lookup came to: one subrequest's outcome, one per element of a list key, or a refusal. */
export type FieldOutcome = UpstreamOutcome | ElementsOutcome | RefusedOutcome;

/**
 * A 404 where no null is meant (a @batch chunk, a mutation field): UPSTREAM_HTTP_ERROR with status
 * 404. `what` names the request in the message ("a batch request"; absent: none).
 */
export function notFoundAsHttpError(
  source: string,
  request: { readonly method: string; readonly path: string },
  what?: string,
): UpstreamOutcome {
  const to = what === undefined ? '' : ` to ${what}`;
  return failure({
    code: CODE.UPSTREAM_HTTP_ERROR,
    source,
    message: `source "${source}" answered HTTP 404${to}`,
    detail: `${request.method} ${request.path} → 404`,
    status: 404,
  });
}

/** What fieldValue needs to know of a field: its coordinate and source, and which of its nulls are allowed. */
export interface OutcomeField {
  readonly coordinate: string;
  readonly fetch: {
    readonly source: { readonly name: string };
    readonly isNonNull: boolean;
    readonly itemNonNull: boolean;
  };
}

/**
 * What an outcome becomes as the value of `field` (docs/hardening.md), the one decision
 * both the shaper (execute/answer/shape.ts) and the data writer (execute/answer/write-data.ts) take from here:
 * - ok: its body;
 * - not-found: null on a nullable field, a NOT_FOUND error on a non-null one;
 * - error: its GraphQL error (code, source, status; the detail only with `debugMode`);
 * - refused: its error;
 * - elements: the list of the elements' values in order, each decided the same way at its own
 *   path (a missing element is null, or NOT_FOUND when the items are non-null), so an error
 *   element is a GraphQLError in the list, which graphql-js locates at `field.i`.
 * A field-level error comes back as the GraphQLError itself (the shaper throws it).
 */
export function fieldValue(outcome: FieldOutcome, field: OutcomeField, debugMode: boolean): unknown {
  switch (outcome.kind) {
    case 'ok':
      return outcome.body;
    case 'not-found':
      return field.fetch.isNonNull
        ? notFoundError(field.coordinate, field.fetch.source.name, debugMode ? outcome.detail : undefined)
        : null;
    case 'error':
      return upstreamError(outcome.error, debugMode);
    case 'refused':
      return outcome.error;
    case 'elements': {
      const { elements } = outcome;
      const items = new Array<unknown>(elements.length);
      for (let i = 0; i < elements.length; i++) {
        const o = elements[i];
        if (o === undefined || o.kind === 'not-found') {
          items[i] =
            o && field.fetch.itemNonNull
              ? notFoundError(field.coordinate, field.fetch.source.name, debugMode ? o.detail : undefined)
              : null;
        } else {
          items[i] = o.kind === 'ok' ? o.body : o.kind === 'refused' ? o.error : upstreamError(o.error, debugMode);
        }
      }
      return items;
    }
  }
}

/** Whether fieldValue of this outcome holds no error at all (the data writer writes only those). */
export function isPlainValue(outcome: FieldOutcome, field: OutcomeField): boolean {
  switch (outcome.kind) {
    case 'ok':
      return true;
    case 'not-found':
      return !field.fetch.isNonNull;
    case 'error':
    case 'refused':
      return false;
    case 'elements':
      for (const o of outcome.elements) {
        if (o === undefined) continue;
        if (o.kind === 'error' || o.kind === 'refused' || (o.kind === 'not-found' && field.fetch.itemNonNull)) return false;
      }
      return true;
  }
}

/**
 * The GraphQL error of a failed lookup: `code` and `source` in `extensions`, `status` for HTTP
 * errors, `retryAfter` (whole seconds) for UPSTREAM_RATE_LIMITED, `upstream` (expose_errors)
 * in production too, and the upstream detail only in debug mode.
 */
export function upstreamError(f: UpstreamFailure, debugMode: boolean): GraphQLError {
  const extensions: Record<string, unknown> = { code: f.code, source: f.source };
  if (f.status !== undefined) extensions.status = f.status;
  if (f.retryAfterMs !== undefined) extensions.retryAfter = Math.ceil(f.retryAfterMs / 1000);
  if (f.upstream !== undefined) extensions.upstream = f.upstream;
  if (debugMode) extensions.detail = f.detail;
  return new GraphQLError(f.message, { extensions });
}

/**
 * A non-null value (field or list item) whose lookup found nothing. In debug mode `detail` (method,
 * path, status, as UPSTREAM_HTTP_ERROR's) is in `extensions.detail` when the lookup has one.
 */
export function notFoundError(coordinate: string, source: string, detail?: string): GraphQLError {
  const extensions: Record<string, unknown> = { code: CODE.NOT_FOUND, source };
  if (detail !== undefined) extensions.detail = detail;
  return new GraphQLError(`${coordinate} was not found`, { extensions });
}
