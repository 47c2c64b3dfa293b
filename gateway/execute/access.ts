import { GraphQLError } from 'graphql';
import { forbidden as forbiddenError, unauthenticated } from '../errors.js';
import type { AuthGuard } from '../blueprint/types.js';
import type { RefusedOutcome } from '../upstream/outcome.js';
import type { OutcomeSlot } from './memo-entry.js';

/**
 * Who is asking, as far as guarded fields care (docs/observability.md): the
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
 * The slots a refused field is claimed with: a refused outcome (upstream/outcome.ts), which both
 * shapers raise at the field's path and the JSON writer never writes. The message names what is
 * missing, never a claim.
 */
const UNAUTHENTICATED: OutcomeSlot = refusedSlot(unauthenticated('this field needs a valid bearer token in the Authorization header'));

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
    slot = refusedSlot(forbiddenError(`this field needs the scopes ${guard.scopes.join(', ')}`));
    forbidden.set(guard, slot);
  }
  return slot;
}

function refusedSlot(error: GraphQLError): OutcomeSlot {
  const outcome: RefusedOutcome = Object.freeze({ kind: 'refused', error });
  return Object.freeze({ outcome }) as OutcomeSlot;
}

/** What the entrance's token check says about a request: who asks, or why it is refused (401). */
export type Authentication = { readonly access: RequestAccess } | { readonly refused: string };

/**
 * Checks the request's Authorization header (gateway/auth/); the executor calls it once per
 * request, before anything is planned or fetched. Its message never holds the token or a claim.
 */
export type Authenticate = (authorization: string | undefined) => Authentication | Promise<Authentication>;

/** The request error of a refused token: 401 with `WWW-Authenticate: Bearer` (server/answers.ts reads `http`). */
export { unauthenticatedRequest } from '../errors.js';
