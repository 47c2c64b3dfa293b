import { GraphQLError } from 'graphql';
import { forbidden as forbiddenError, unauthenticated } from '../../errors.js';
import type { AuthGuard } from '../../blueprint/types.js';
import type { RefusedOutcome } from '../../upstream/outcome.js';
import type { OutcomeSlot } from '../send/memo-entry.js';
import type { RequestAccess } from '../../auth/access.js';

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
