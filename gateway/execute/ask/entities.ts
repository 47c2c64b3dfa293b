import { getNamedType, isListType, isNonNullType, isObjectType, type GraphQLOutputType } from 'graphql';
import { badUserInput } from '../../errors.js';
import type { Blueprint, EntityBlueprint, EntityKey } from '../../blueprint/types.js';
import { ENTITIES_COORDINATE } from '../../blueprint/federation.js';
import { lookupEntry } from '../../plan/completion.js';
import type { PlanEntry, PlanSelection } from '../../plan/types.js';
import { isInheritedName, ownValue, readDotted } from '../../../directives/dotted.js';
import { didYouMean } from '../../../directives/suggest.js';
import { argsOf, type RequestState } from '../send/request-context.js';
import type { OutcomeSlot } from '../send/memo-entry.js';
import type { ElementsOutcome, RefusedOutcome } from '../../upstream/outcome.js';
import { collectLookups, type AfterRound, type Walk } from './walk.js';
import { refusal } from './access.js';

/**
 * `Query._entities(representations:)` (docs/federation.md): one entry per
 * representation, in order. A representation is turned into the JSON its type reads (each field
 * written under its @from steps); the key used is the first @key whose fields are all present and
 * that has a @lookup, and then the object is looked up in this request's first round, with every
 * other representation and every aliased `_entities` field: the round's memo dedupes them per
 * type and key, and its @lookupBatch groups send N keys as one call per chunk. A representation
 * matching only a resolvable @key without @lookup is a stub: it is the object. A type guarded by
 * `@auth` that the caller may not read is its refusal at `["_entities", i]`, looked up never. An unknown
 * `__typename` or no matching key is null with an error at `["_entities", i]`; not found is null
 * without error; a failed lookup is its error, for its own entries only. @external fields, and
 * those a field @requires, are read from the representation over what the lookup answered.
 */
export function seedEntities(root: PlanSelection, rootValue: object, ctx: { blueprint: Blueprint; state: RequestState; walk: Walk }): void {
  const federation = ctx.blueprint.federation;
  if (!federation) return;
  for (const entry of root.entries) {
    if (entry.blueprint.coordinate !== ENTITIES_COORDINATE) continue;
    const slot: OutcomeSlot = { outcome: undefined };
    if (!ctx.state.store.claim(rootValue, entry.fieldNode, slot)) continue;
    // The JSON writer writes from the plan's fields; `_entities` values come from here: it steps aside.
    ctx.state.store.markComplete(rootValue);
    const representations = argsOf(entry, ctx.state).representations;
    const list = Array.isArray(representations) ? representations : [];
    const values: Elements = new Array(list.length).fill(undefined);
    slot.outcome = { kind: 'elements', elements: values };
    const task = new EntitiesTask(entry, values);
    list.forEach((rep: unknown, i) => {
      const typeName = typeof (rep as { __typename?: unknown })?.__typename === 'string' ? (rep as { __typename: string }).__typename : '';
      const entity = federation.entities.get(typeName);
      if (!entity) {
        const known = [...federation.entities.keys()];
        values[i] = entityError(
          `_entities: representation ${i} has __typename "${typeName}", which is no entity type of this subgraph${didYouMean(typeName, known)} (entities: ${known.join(', ') || 'none'})`,
        );
        return;
      }
      const key = chooseKey(entity, rep as Record<string, unknown>);
      if (!key) {
        values[i] = entityError(
          `_entities: representation ${i} of ${typeName} holds the fields of none of its keys (${entity.keys.map((k) => `"${k.canonical}"`).join(', ')})`,
        );
        return;
      }
      const object = representationJson(ctx.blueprint, typeName, rep as Record<string, unknown>);
      if (!key.lookup) {
        object.__typename = typeName;
        values[i] = { kind: 'ok', body: object };
        ctx.state.store.markComplete(object);
        if (entry.children) collectLookups(entry.children, object, typeName, ctx.walk);
        return;
      }
      const lookup = lookupEntry(key.lookup, ctx.blueprint.schema);
      // A guarded type this caller may not read is refused here, before anything is looked up.
      const refused = lookup.blueprint.auth && refusal(lookup.blueprint.auth, ctx.walk.access);
      if (refused) {
        values[i] = refused.outcome as RefusedOutcome;
        return;
      }
      ctx.walk.out.push(lookup, object);
      const fromRepresentation = [...entity.fromRepresentation].map((f) => ctx.blueprint.fields.get(`${typeName}.${f}`)?.read[0] ?? f);
      task.pending.push({ index: i, object, lookup, entity, fromRepresentation });
    });
    if (task.pending.length > 0) (ctx.walk.out.after ??= []).push(task);
  }
}

/** One outcome per representation, in order; undefined (null, no error) until a lookup finds it. */
type Elements = Array<ElementsOutcome['elements'][number]>;

function entityError(message: string): RefusedOutcome {
  return { kind: 'refused', error: badUserInput(message) };
}

/** The first @key whose fields the representation all holds and that has a @lookup; else the first such resolvable stub key. */
function chooseKey(entity: EntityBlueprint, rep: Record<string, unknown>): EntityKey | undefined {
  const holds = (k: EntityKey) => k.leaves.every((l) => readDotted(rep, l) !== undefined && readDotted(rep, l) !== null);
  return entity.keys.find((k) => k.lookup && holds(k)) ?? entity.keys.find((k) => !k.lookup && k.resolvable && holds(k));
}

/** A representation (GraphQL field names) as the JSON its type reads: each field under its @from steps, object fields likewise. */
function representationJson(blueprint: Blueprint, typeName: string, rep: Record<string, unknown>): Record<string, unknown> {
  const type = blueprint.schema.getType(typeName);
  const out: Record<string, unknown> = {};
  if (!isObjectType(type)) return out;
  const fields = type.getFields();
  for (const [name, value] of Object.entries(rep)) {
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (!field || name === '__typename') continue;
    const steps = blueprint.fields.get(`${typeName}.${name}`)?.read ?? [name];
    setAt(out, steps, convert(blueprint, field.type, value));
  }
  return out;
}

function convert(blueprint: Blueprint, type: GraphQLOutputType, value: unknown): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return Array.isArray(value) ? value.map((v) => convert(blueprint, inner.ofType, v)) : value;
  const named = getNamedType(inner);
  if (!isObjectType(named) || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return representationJson(blueprint, named.name, value as Record<string, unknown>);
}

/** Sets `value` at `steps` of `target`, making objects on the way; every step an own key (`__proto__` too). */
function setAt(target: Record<string, unknown>, steps: readonly string[], value: unknown): void {
  let at = target;
  for (let i = 0; i < steps.length - 1; i++) {
    const next = ownValue(at, steps[i]!);
    if (next !== null && typeof next === 'object') at = next as Record<string, unknown>;
    else at = setOwn(at, steps[i]!, {}) as Record<string, unknown>;
  }
  setOwn(at, steps[steps.length - 1]!, value);
}

/** `target[key] = value` as an own data property, also for a key named like an inherited member. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): unknown {
  if (isInheritedName(key)) Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
  return value;
}

interface PendingEntity {
  readonly index: number;
  readonly object: Record<string, unknown>;
  readonly lookup: PlanEntry;
  readonly entity: EntityBlueprint;
  /** The JSON keys of the @external and @required fields, which the representation gives. */
  readonly fromRepresentation: readonly string[];
}

/** The entries of one `_entities` field that wait for the round's lookups. */
class EntitiesTask implements AfterRound {
  readonly pending: PendingEntity[] = [];

  constructor(
    private readonly entry: PlanEntry,
    private readonly values: Elements,
  ) {}

  resume(walk: Walk): void {
    const { store } = walk;
    for (const p of this.pending) {
      const outcome = store.get(p.object, p.lookup.fieldNode);
      if (outcome?.kind === 'error') {
        this.values[p.index] = outcome;
        continue;
      }
      const body = outcome?.kind === 'ok' ? outcome.body : null;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) continue; // not found: null, no error
      const merged: Record<string, unknown> = { ...p.object, ...body };
      for (const key of p.fromRepresentation) if (Object.hasOwn(p.object, key)) merged[key] = p.object[key];
      merged.__typename = p.entity.typeName;
      store.markComplete(merged);
      this.values[p.index] = { kind: 'ok', body: merged };
      if (this.entry.children) collectLookups(this.entry.children, merged, p.entity.typeName, walk);
    }
  }
}
