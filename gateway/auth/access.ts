/**
 * Who is asking, as far as guarded fields care (docs/observability.md): the claims of the
 * request's verified token, or none. Made once per request by the token check (authenticate.ts);
 * the executor only reads it.
 */
export interface RequestAccess {
  /** The verified token's claims; undefined without a valid token. */
  readonly claims: Readonly<Record<string, unknown>> | undefined;
  /** The scopes the token grants: its `scope` claim split at spaces, or its `scp` list. */
  readonly scopes: ReadonlySet<string>;
}

/** The access of a request without a token. */
export const ANONYMOUS: RequestAccess = Object.freeze({ claims: undefined, scopes: new Set<string>() });

/** What the token check says about a request: who asks, or why it is refused (401). */
export type Authentication = { readonly access: RequestAccess } | { readonly refused: string };

/**
 * Checks a request's Authorization header (authenticate.ts). The HTTP entrances call it before the
 * document is parsed (server/operation.ts); the streaming transports and polls through the hub and
 * the executor. Its message never holds the token or a claim.
 */
export type Authenticate = (authorization: string | undefined) => Authentication | Promise<Authentication>;

/** The request error of a refused token: 401 with `WWW-Authenticate: Bearer` (server/answers.ts reads `http`). */
export { unauthenticatedRequest } from '../errors.js';
