import type { Condition, PlanEntry, PlanSelection } from '../plan/types.js';
import type { ResultStore } from './result-store.js';
import { readDotted } from '../../directives/dotted.js';
import { concreteTypeOf } from './concrete-type.js';

/**
 * The @fetch fields a walk reached, each for one parent object: the lookups of the next round.
 * Two parallel arrays (`entries[i]` of `parents[i]`), no object per lookup: a round claims each in
 * the result store with the slot its answer lands in (round.ts), which also drops a (parent,
 * field) reached twice.
 */
export class Lookups {
  readonly entries: PlanEntry[] = [];
  readonly parents: object[] = [];

  get length(): number {
    return this.entries.length;
  }

  push(entry: PlanEntry, parent: object): void {
    this.entries.push(entry);
    this.parents.push(parent);
  }
}

/** What one walk reads and where it puts the lookups it finds. */
export interface Walk {
  readonly variables: Readonly<Record<string, unknown>>;
  readonly store: ResultStore;
  readonly out: Lookups;
}

/**
 * Walks data already fetched along the plan and collects the @fetch fields it reaches: the lookups
 * of the next round. Plain fields cost nothing; the walk goes into them only where a @fetch lies
 * below. A (parent, field) collected twice is looked up once: the round claims each.
 */
export function collectLookups(selection: PlanSelection, parent: object, typeName: string, walk: Walk): void {
  const { variables, store, out } = walk;
  for (const entry of selection.entries) {
    if (entry.possibleTypes && !entry.possibleTypes.has(typeName)) continue;
    if (entry.conditions.length && !conditionsHold(entry.conditions, variables)) continue;
    if (entry.blueprint.fetch) {
      out.push(entry, parent);
    } else if (entry.fetchBelow) {
      const { read, namespace } = entry.blueprint;
      const value = read.length === 1 ? (parent as Record<string, unknown>)[read[0]!] : readDotted(parent, read);
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

/** Whether a field's @skip/@include (its own and its fragments') let it in for these variables. */
export function conditionsHold(conditions: readonly Condition[], variables: Readonly<Record<string, unknown>>): boolean {
  for (const c of conditions) {
    const v = typeof c.value === 'boolean' ? c.value : variables[c.value.variable] === true;
    if (v !== c.include) return false;
  }
  return true;
}
