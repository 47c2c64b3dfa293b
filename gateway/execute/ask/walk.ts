import type { PlanEntry, PlanSelection } from '../../plan/types.js';
import { conditionsHold } from './conditions.js';
import type { ResultStore } from '../send/result-store.js';
import { ownValue, readDotted } from '../../../directives/dotted.js';
import { concreteTypeOf } from './concrete-type.js';
import { refusal } from './access.js';
import type { RequestAccess } from '../../auth/access.js';
import { lookupToComplete, type PendingCompletion } from './completion.js';
import { appended } from '../../util/appended.js';

/**
 * The @fetch fields a walk reached, each for one parent object: the lookups of the next round.
 * Two parallel arrays (`entries[i]` of `parents[i]`), no object per lookup: a round claims each in
 * the result store with the slot its answer lands in (round.ts), which also drops a (parent,
 * field) reached twice.
 */
export class Lookups {
  // Each array is made with its first element (appended.ts): most rounds have one lookup or a few.
  entries: PlanEntry[] = [];
  parents: object[] = [];

  get length(): number {
    return this.entries.length;
  }

  push(entry: PlanEntry, parent: object): void {
    this.entries = appended(this.entries, entry);
    this.parents = appended(this.parents, parent);
  }

  /** Partial objects sent to be completed by this round's lookups, resumed after it (execute/ask/completion.ts). */
  completions: PendingCompletion[] | undefined;
  /** What resumes once this round has answered, before the next walk ends (`_entities`, execute/ask/entities.ts). */
  after: AfterRound[] | undefined;
}

/** Work a walk leaves for after its round: it reads the round's outcomes and walks on into what they made. */
export interface AfterRound {
  resume(walk: Walk): void;
}

/** What one walk reads and where it puts the lookups it finds. */
export interface Walk {
  readonly variables: Readonly<Record<string, unknown>>;
  readonly store: ResultStore;
  readonly out: Lookups;
  /** Who asks, for fields guarded by @auth; undefined: nobody with a valid token. */
  readonly access?: RequestAccess;
}

/**
 * How a request walks fetched data: the interpreter below (`INTERPRETED_WALKER`, the reference) or a
 * plan's compiled walk (execute/ask/compiled-walk.ts), which finds the same lookups in the same order.
 */
export interface Walker {
  collect(selection: PlanSelection, object: object, typeName: string, walk: Walk): void;
  descend(entry: PlanEntry, value: unknown, walk: Walk): void;
}

/**
 * Walks data already fetched along the plan and collects the @fetch fields it reaches: the lookups
 * of the next round. Plain fields cost nothing; the walk goes into them only where a @fetch lies
 * below. A (parent, field) collected twice is looked up once: the round claims each. A guarded
 * field the caller may not read is claimed with its refusal instead: nothing is fetched for it or
 * below it (docs/observability.md).
 */
export function collectLookups(selection: PlanSelection, object: object, typeName: string, walk: Walk): void {
  const { variables, store, out } = walk;
  let parent = object;
  const completion = selection.completions?.get(typeName);
  if (completion !== undefined) {
    const merged = store.completedOf(parent);
    if (merged !== undefined) parent = merged;
    else {
      const entry = lookupToComplete(completion, parent, walk);
      // A caller who may not read the type gets no completion: its guarded fields are refused below.
      if (entry !== undefined && (entry.blueprint.auth === undefined || refusal(entry.blueprint.auth, walk.access) === undefined)) {
        out.push(entry, parent);
        (out.completions ??= []).push({ selection, completion, parent, entry });
        return;
      }
    }
  }
  for (const entry of selection.entries) {
    if (entry.possibleTypes && !entry.possibleTypes.has(typeName)) continue;
    if (entry.conditions.length && !conditionsHold(entry.conditions, variables)) continue;
    if (entry.blueprint.auth !== undefined) {
      const refused = refusal(entry.blueprint.auth, walk.access);
      if (refused) {
        store.claim(parent, entry.fieldNode, refused);
        continue;
      }
    }
    if (entry.blueprint.fetch) {
      out.push(entry, parent);
    } else if (entry.fetchBelow) {
      const { read, namespace } = entry.blueprint;
      const value = read.length === 1 ? ownValue(parent, read[0]!) : readDotted(parent, read);
      descend(entry, namespace ? (value ?? store.namespace(parent, read[0]!)) : value, walk);
    }
  }
}

/** Collects the lookups below a field's value (an object, a list of them, or null). */
export function descend(entry: PlanEntry, value: unknown, walk: Walk): void {
  if (value === null || typeof value !== 'object' || !entry.children || value instanceof Error) return;
  if (Array.isArray(value)) {
    for (const item of value) descend(entry, item, walk);
    return;
  }
  const typeName = entry.childIsAbstract ? concreteTypeOf(entry.blueprint.discriminator!, value) : entry.childType;
  // An item whose type cannot be told has nothing looked up below it; the shaper reports it.
  if (typeName !== undefined) collectLookups(entry.children, value, typeName, walk);
}

export const INTERPRETED_WALKER: Walker = Object.freeze({ collect: collectLookups, descend });
