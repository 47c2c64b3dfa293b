import type { PlanEntry, PlanSelection, SelectionCompletion } from '../../plan/types.js';
import type { ResultStore } from '../send/result-store.js';
import { fieldValue, type FieldOutcome, type OutcomeField } from '../../upstream/outcome.js';
import { conditionsHold } from './conditions.js';

/**
 * Completing partial objects (docs/federation.md): an object of a type with a
 * @lookup that lacks a selected field (absent, not null) without its own @fetch is looked up by
 * its key in the next round, batched with every such object of that round through the round's
 * usual memo, caches and @lookupBatch groups; after the round the lookup's JSON is merged over the
 * embedded JSON into a new object (fetched JSON is shared with caches and other requests, so it
 * is never changed), and the walk goes on into the merge. The shaper reads the merge in place of
 * the partial object (ResultStore.completedValue).
 */

/** A partial object sent to be completed, and where the walk resumes once it is. */
export interface PendingCompletion {
  readonly selection: PlanSelection;
  readonly completion: SelectionCompletion;
  readonly parent: object;
  readonly entry: PlanEntry;
}

/**
 * Whether `parent` must be completed before the walk goes into it: the lookup to run (the first of
 * the type whose key it has), or undefined when it is complete, lacks no selected field, or has no
 * key to look it up by (then its absent fields are null, as without @lookup).
 */
export function lookupToComplete(
  completion: SelectionCompletion,
  parent: object,
  walk: { readonly store: ResultStore; readonly variables: Readonly<Record<string, unknown>> },
): PlanEntry | undefined {
  if (walk.store.isComplete(parent)) return undefined;
  let absent = false;
  for (const k of completion.keys) {
    if (!Object.hasOwn(parent, k)) {
      absent = true;
      break;
    }
  }
  // A field under @skip/@include on a variable counts only when it is selected in this request.
  for (let i = 0; !absent && i < completion.conditional.length; i++) {
    const c = completion.conditional[i]!;
    absent = !Object.hasOwn(parent, c.key) && conditionsHold(c.conditions, walk.variables);
  }
  if (!absent) return undefined;
  const { lookups } = completion;
  for (let i = 0; i < lookups.length; i++) if (lookups[i]!.hasKey(parent)) return completion.entries[i];
  return undefined;
}

/**
 * The merge of a completed object: the lookup's JSON over the embedded JSON. Not found (or a
 * non-object answer) leaves the embedded JSON; a failed lookup makes each absent selected field
 * its error (at that field's path), so the fields the embedded JSON had are still served.
 */
export function mergeCompletion(
  pending: PendingCompletion,
  outcome: FieldOutcome | undefined,
  debugMode: boolean,
): Record<string, unknown> {
  const embedded = pending.parent as Record<string, unknown>;
  if (outcome?.kind === 'ok') {
    const body = outcome.body;
    // Spread, not Object.assign: a JSON key "__proto__" stays an own key, never the prototype.
    if (body !== null && typeof body === 'object' && !Array.isArray(body)) return { ...embedded, ...(body as Record<string, unknown>) };
    return { ...embedded };
  }
  const merged: Record<string, unknown> = { ...embedded };
  if (outcome?.kind === 'error') {
    // What the failure becomes is upstream/outcome.ts's decision (its GraphQL error); the shaper
    // raises it at each absent field's path, as a resolver's Error value.
    const error = fieldValue(outcome, pending.entry.blueprint as OutcomeField, debugMode);
    const { keys, conditional } = pending.completion;
    for (const k of keys) if (!Object.hasOwn(merged, k)) merged[k] = error;
    for (const c of conditional) if (!Object.hasOwn(merged, c.key)) merged[c.key] = error;
  }
  return merged;
}
