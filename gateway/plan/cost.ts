import { getArgumentValues, getNullableType, isListType, type GraphQLOutputType } from 'graphql';
import type { FederationBlueprint, FetchBlueprint } from '../blueprint/types.js';
import { ENTITIES_COORDINATE } from '../blueprint/federation.js';
import { conditionsHold } from './conditions.js';
import { SATURATED } from './measure.js';
import type { Plan, PlanEntry, PlanSelection } from './types.js';

/** What the planned bound reads besides the plan and the request's variables. */
export interface CostOptions {
  /** `[limits] assumed_list_size`: a list's size when no `@listSize` says. */
  readonly assumedListSize: number;
  /** The subgraph's entities, for `_entities` (undefined: the schema links no Federation). */
  readonly federation?: FederationBlueprint;
}

/**
 * An operation's planned bound (docs/hardening.md "Cost before anything is sent"): the most
 * subrequests its plan can send, every list at its assumed size. `rounds[i]` is round i + 1's part
 * (a mutation's steps and their rounds follow one another); `total` their sum. Counts saturate at
 * SATURATED (2^40): "more than any limit".
 */
export interface PlannedCost {
  readonly total: number;
  readonly rounds: readonly number[];
}

/**
 * The planned bound of `plan` with these (coerced) variables, before anything is sent. Each round
 * costs, per field, one call per parent object it can have (dedupe only lowers that), except that
 * `@batch` fields (and `@lookupBatch` lookups) cost `ceil(keys / max)` per share key: keys of every
 * field of the round that shares chunks with it, under the smallest `max`; a batch path with
 * `{args.*}` costs its chunks per field (groups by argument values never share). Parents multiply
 * down the tree: a list is `@listSize(slicing:)`'s argument when the request gives it, else
 * `@listSize(assumed:)`, else `assumed_list_size`; a list key (`{parent.tagIds}`, `{args.ids}`)
 * has the size of the field's list (an argument's own length when the key is one). Completions of
 * partial objects cost one lookup per object a round later; `_entities` one per representation of
 * a type with a @lookup. Pure; what answers add on top (a redirect's hops, the re-send of a reset
 * GET, a failed chunk's halves) is not in the plan and is bounded by `max_subrequests` alone.
 */
export function plannedCost(plan: Plan, variables: Readonly<Record<string, unknown>>, options: CostOptions): PlannedCost {
  const counter = new CostCounter(variables, options);
  if (plan.operation.operation === 'mutation') counter.mutation(plan.root);
  else counter.selection(plan.root, 1, 0);
  return counter.result();
}

/** The @batch fields of one round that share chunks (one BatchBlueprint share key). */
interface SharedKeys {
  /** Keys of fields whose batch path has no `{args.*}`: they share one set of chunks. */
  keys: number;
  /** Keys of each field whose batch path has `{args.*}`: chunked apart. */
  apart: number[];
  max: number;
}

interface RoundCost {
  singles: number;
  batches: Map<string, SharedKeys>;
}

class CostCounter {
  private readonly rounds = new Map<number, RoundCost>();
  private deepest = 0;

  constructor(
    private readonly variables: Readonly<Record<string, unknown>>,
    private readonly options: CostOptions,
  ) {}

  /** A mutation's serial steps: each step's own request is a round, its selections' rounds follow. */
  mutation(root: PlanSelection): void {
    let base = 0;
    for (const e of root.entries) {
      if (e.conditions.length > 0 && !conditionsHold(e.conditions, this.variables)) continue;
      this.deepest = base;
      if (e.blueprint.fetch) this.fetch(e.blueprint.fetch, e, { parents: 1, round: base + 1 });
      if (e.children) this.selection(e.children, this.valuesOf(e, 1), base);
      base = Math.max(this.deepest, base + 1);
    }
  }

  /**
   * The lookups below `parents` objects of one selection; `offset` shifts its plan rounds.
   * `complete`: the objects are complete already (an `_entities` entry's), so none is completed.
   */
  selection(sel: PlanSelection, parents: number, offset: number, complete = false): void {
    if (parents === 0) return;
    for (const c of complete ? [] : (sel.completions?.values() ?? [])) {
      for (const lookup of c.lookups) this.fetch(lookup.fetch, undefined, { parents, round: offset + c.round });
    }
    for (const e of sel.entries) {
      if (e.conditions.length > 0 && !conditionsHold(e.conditions, this.variables)) continue;
      if (e.blueprint.coordinate === ENTITIES_COORDINATE) {
        this.entities(e, offset);
        continue;
      }
      if (e.blueprint.fetch) this.fetch(e.blueprint.fetch, e, { parents, round: offset + e.round });
      if (e.children) this.selection(e.children, this.valuesOf(e, parents), offset);
    }
  }

  /** `_entities`: one lookup per representation of a type with a @lookup, in the first round; the rest read the representation. */
  private entities(e: PlanEntry, offset: number): void {
    const reps = argumentsOf(e, this.variables).representations;
    const list = Array.isArray(reps) ? reps : [];
    const byType = new Map<string, number>();
    for (const rep of list) {
      const name = (rep as { __typename?: unknown } | null)?.__typename;
      if (typeof name === 'string') byType.set(name, (byType.get(name) ?? 0) + 1);
    }
    let looked = false;
    for (const [typeName, count] of byType) {
      const seen = new Set<unknown>();
      for (const key of this.options.federation?.entities.get(typeName)?.keys ?? []) {
        if (!key.lookup || seen.has(key.lookup)) continue;
        seen.add(key.lookup);
        looked = true;
        this.fetch(key.lookup.fetch, undefined, { parents: count, round: offset + 1 });
      }
    }
    if (e.children) this.selection(e.children, list.length, offset + (looked ? 1 : 0), true);
  }

  /** Adds the calls of `parents` lookups of one fetch in a round. */
  private fetch(fetch: FetchBlueprint, e: PlanEntry | undefined, at: { parents: number; round: number }): void {
    const round = this.round(at.round);
    const batch = fetch.batch;
    if (!batch) {
      round.singles = add(round.singles, at.parents);
      return;
    }
    let perParent = 1;
    if (batch.listKeys && e) {
      const fromArgs = batch.keyFromArgs ? batch.readKey(argumentsOf(e, this.variables)) : undefined;
      perParent = Array.isArray(fromArgs) ? fromArgs.length : this.listSize(e);
    }
    const keys = times(at.parents, perParent);
    let shared = round.batches.get(batch.shareKey);
    if (!shared) {
      shared = { keys: 0, apart: [], max: batch.max };
      round.batches.set(batch.shareKey, shared);
    }
    if (batch.max < shared.max) shared.max = batch.max;
    if (batch.hasArgs) shared.apart.push(keys);
    else shared.keys = add(shared.keys, keys);
  }

  private round(n: number): RoundCost {
    if (n > this.deepest) this.deepest = n;
    let r = this.rounds.get(n);
    if (!r) {
      r = { singles: 0, batches: new Map() };
      this.rounds.set(n, r);
    }
    return r;
  }

  /** How many values `parents` objects' field `e` can hold: each list level its assumed size. */
  private valuesOf(e: PlanEntry, parents: number): number {
    let count = parents;
    let type: GraphQLOutputType = getNullableType(e.fieldDef.type);
    while (isListType(type)) {
      count = times(count, this.listSize(e));
      type = getNullableType(type.ofType as GraphQLOutputType);
    }
    return count;
  }

  /** `@listSize(slicing:)`'s argument when the request gives it, else `assumed`, else `assumed_list_size`. */
  private listSize(e: PlanEntry): number {
    const size = e.blueprint.listSize;
    if (size?.slicing !== undefined) {
      const given = toCount(argumentsOf(e, this.variables)[size.slicing]);
      if (given !== undefined) return given;
    }
    return size?.assumed ?? this.options.assumedListSize;
  }

  result(): PlannedCost {
    const rounds: number[] = [];
    let total = 0;
    for (let n = 1; n <= this.deepest; n++) {
      const r = this.rounds.get(n);
      let calls = r?.singles ?? 0;
      for (const shared of r?.batches.values() ?? []) {
        calls = add(calls, chunks(shared.keys, shared.max));
        for (const keys of shared.apart) calls = add(calls, chunks(keys, shared.max));
      }
      rounds.push(calls);
      total = add(total, calls);
    }
    return { total, rounds };
  }
}

/** The field's argument values with these variables (defaults applied); {} when graphql-js refuses them. */
function argumentsOf(e: PlanEntry, variables: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  if (e.constantArgs) return e.constantArgs;
  if (e.fieldDef.args.length === 0) return NO_ARGS;
  try {
    return e.variableArgs?.(variables) ?? getArgumentValues(e.fieldDef, e.fieldNode, variables as Record<string, unknown>);
  } catch {
    return NO_ARGS; // the request coerces them again and reports the error before anything is sent
  }
}

const NO_ARGS: Readonly<Record<string, unknown>> = Object.freeze({});

/** A slicing argument's value as a count of items; undefined when it gives none (null, absent). */
function toCount(value: unknown): number | undefined {
  if (typeof value === 'bigint') return value <= 0n ? 0 : Number(value > BigInt(SATURATED) ? BigInt(SATURATED) : value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return toCount(BigInt(value));
  if (typeof value !== 'number' || Number.isNaN(value)) return undefined;
  return Math.min(SATURATED, Math.max(0, Math.ceil(value)));
}

function chunks(keys: number, max: number): number {
  return keys === 0 ? 0 : Math.ceil(keys / Math.max(1, max));
}

function add(a: number, b: number): number {
  return Math.min(SATURATED, a + b);
}

function times(a: number, b: number): number {
  return Math.min(SATURATED, a * b);
}
