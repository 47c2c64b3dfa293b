import { Kind, type FieldNode, type GraphQLField, type GraphQLSchema } from 'graphql';
import type { Blueprint, FieldBlueprint, LookupBlueprint } from '../blueprint/types.js';
import type { PlanEntry, SelectionCompletion } from './types.js';

/**
 * The completions of one selection (docs/federation.md): for each object type it
 * may meet that has a @lookup, the JSON keys of its selected fields without their own @fetch (a
 * namespace field is never absent). Undefined when no such type selects such a field.
 */
export function selectionCompletions(
  blueprint: Blueprint,
  objectTypes: readonly string[],
  selected: { readonly entries: readonly PlanEntry[]; readonly round: number },
): ReadonlyMap<string, SelectionCompletion> | undefined {
  if (blueprint.lookups.size === 0) return undefined;
  let out: Map<string, SelectionCompletion> | undefined;
  for (const typeName of objectTypes) {
    const lookups = blueprint.lookups.get(typeName);
    if (!lookups) continue;
    const keys = new Set<string>();
    const conditional: Array<{ key: string; conditions: PlanEntry['conditions'] }> = [];
    for (const e of selected.entries) {
      if (e.possibleTypes && !e.possibleTypes.has(typeName)) continue;
      if (e.blueprint.typeName !== typeName || e.blueprint.fetch || e.blueprint.namespace) continue;
      // Literal conditions are decided when the plan is built; what is left reads a variable.
      if (e.conditions.length > 0) conditional.push({ key: e.blueprint.read[0]!, conditions: e.conditions });
      else keys.add(e.blueprint.read[0]!);
    }
    if (keys.size === 0 && conditional.length === 0) continue;
    const entries = lookups.map((l) => lookupEntry(l, blueprint.schema));
    (out ??= new Map()).set(typeName, Object.freeze({ typeName, keys: [...keys], conditional, lookups, entries, round: selected.round }));
  }
  return out;
}

const EMPTY_ARGS: Readonly<Record<string, unknown>> = Object.freeze({});
const built = new WeakMap<LookupBlueprint, PlanEntry>();

/**
 * The plan entry a lookup runs as: a @fetch "field" of the object it looks up (its parent), with a
 * field node of its own under which the result store keeps each object's lookup. One per lookup.
 */
export function lookupEntry(lookup: LookupBlueprint, schema: GraphQLSchema): PlanEntry {
  let entry = built.get(lookup);
  if (entry) return entry;
  const type = schema.getType(lookup.typeName) as unknown as { getFields(): Record<string, GraphQLField<unknown, unknown>> };
  const fieldNode: FieldNode = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: lookup.coordinate } };
  const blueprint: FieldBlueprint = {
    coordinate: lookup.coordinate,
    typeName: lookup.typeName,
    fieldName: '@lookup',
    read: [],
    fetch: lookup.fetch,
    namespace: false,
    discriminator: undefined,
    auth: lookup.auth,
  };
  entry = {
    responseKey: lookup.coordinate,
    fieldNode,
    fieldDef: Object.values(type.getFields())[0]!,
    blueprint,
    conditions: [],
    possibleTypes: null,
    round: 0,
    children: undefined,
    childType: lookup.typeName,
    childIsAbstract: false,
    fetchBelow: false,
    constantArgs: EMPTY_ARGS,
  };
  built.set(lookup, entry);
  return entry;
}
