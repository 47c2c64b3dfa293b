import { GraphQLError } from 'graphql';
import type { AuthGuard } from '../blueprint/types.js';
import type { OutcomeSlot } from './state.js';

/**
 * Who is asking, as far as guarded fields care (SPEC.md "Authentication and authorization"): the
 * claims of the request's verified token, or none. Made once per request by the entrance that
 * verified the token; the executor only reads it.
 */
export interface RequestAccess {
  /** The verified token's claims; undefined without a valid token. */
  readonly claims: Readonly<Record<string, unknown>> | undefined;
  /** The scopes the token grants: its `scope` claim split at spaces, or its `scp` list. */
  readonly scopes: ReadonlySet<string>;
}

/** The access of a request without a token. */
export const ANONYMOUS: RequestAccess = Object.freeze({ claims: undefined, scopes: new Set<string>() });

/**
 * The slots a refused field is claimed with: an ok outcome whose value is the error, which both
 * shapers raise at the field's path (a resolver's Error value is a field error in graphql-js and
 * graphql-jit) and the JSON writer never writes. The message names what is missing, never a claim.
 */
const UNAUTHENTICATED: OutcomeSlot = Object.freeze({
  outcome: Object.freeze({
    kind: 'ok',
    body: new GraphQLError('this field needs a valid bearer token in the Authorization header', {
      extensions: { code: 'UNAUTHENTICATED' },
    }),
  }),
}) as OutcomeSlot;

const forbidden = new WeakMap<AuthGuard, OutcomeSlot>();

/** The slot of a refused field (UNAUTHENTICATED or FORBIDDEN), or undefined when `access` may read it. */
export function refusal(guard: AuthGuard, access: RequestAccess | undefined): OutcomeSlot | undefined {
  if (!access || access.claims === undefined) return UNAUTHENTICATED;
  for (const scope of guard.scopes) if (!access.scopes.has(scope)) return forbiddenSlot(guard);
  return undefined;
}

function forbiddenSlot(guard: AuthGuard): OutcomeSlot {
  let slot = forbidden.get(guard);
  if (!slot) {
    const error = new GraphQLError(`this field needs the scopes ${guard.scopes.join(', ')}`, { extensions: { code: 'FORBIDDEN' } });
    slot = Object.freeze({ outcome: Object.freeze({ kind: 'ok', body: error }) }) as OutcomeSlot;
    forbidden.set(guard, slot);
  }
  return slot;
}

/** Whether an outcome's value is a refusal (what the JSON writer gives up on). */
export function isRefusal(body: unknown): boolean {
  return body instanceof GraphQLError;
}

/** What the entrance's token check says about a request: who asks, or why it is refused (401). */
export type Authentication = { readonly access: RequestAccess } | { readonly refused: string };

/**
 * Checks the request's Authorization header (gateway/auth/); the executor calls it once per
 * request, before anything is planned or fetched. Its message never holds the token or a claim.
 */
export type Authenticate = (authorization: string | undefined) => Authentication | Promise<Authentication>;

/** The request error of a refused token: 401 with `WWW-Authenticate: Bearer` (server/answers.ts reads `http`). */
export function unauthenticatedRequest(message: string): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: 'UNAUTHENTICATED', http: { status: 401, headers: { 'www-authenticate': 'Bearer' } } },
  });
}
