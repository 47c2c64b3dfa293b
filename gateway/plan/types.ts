import type { FieldNode, GraphQLField, OperationDefinitionNode } from 'graphql';
import type { FieldBlueprint, LookupBlueprint } from '../blueprint/types.js';
import type { ArgumentsReader, VariablesReader } from './fast-values.js';

/** `@skip(if:)` / `@include(if:)`: a literal, or the name of a variable read at execution time. */
export interface Condition {
  readonly include: boolean;
  readonly value: boolean | { readonly variable: string };
}

/**
 * One field selection of the operation, as the executor walks it. Fragments are already flattened:
 * `conditions` carries the @skip/@include of the field and of every fragment around it, and
 * `possibleTypes` the object types it applies to (null: every type the parent can be).
 */
export interface PlanEntry {
  readonly responseKey: string;
  readonly fieldNode: FieldNode;
  readonly fieldDef: GraphQLField<unknown, unknown>;
  readonly blueprint: FieldBlueprint;
  readonly conditions: readonly Condition[];
  readonly possibleTypes: ReadonlySet<string> | null;
  /** The round this field's lookup runs in (its @fetch depth); 0 for a field that reads its parent. */
  readonly round: number;
  /** The selections on the field's value, when its type is an object, interface or union. */
  readonly children: PlanSelection | undefined;
  /** The named type of the field's value; abstract types are resolved from `__typename`. */
  readonly childType: string;
  readonly childIsAbstract: boolean;
  /**
   * Some field in `children` (at any depth) has a @fetch, or is guarded by @auth: the executor must
   * walk into the value.
   */
  readonly fetchBelow: boolean;
  /**
   * The field's argument values (defaults applied) when they use no variable, so they are the same
   * for every request: coerced once, when the plan is built. Undefined when they use a variable.
   */
  readonly constantArgs: Readonly<Record<string, unknown>> | undefined;
  /** With variables: reads the argument values from the coerced variables when it can (plan/fast-values.ts). */
  readonly variableArgs?: ArgumentsReader;
}

export interface PlanSelection {
  readonly entries: readonly PlanEntry[];
  /**
   * Per object type with a @lookup that this selection may meet, what completes a partial object
   * of it (docs/federation.md); undefined when there is none.
   */
  readonly completions?: ReadonlyMap<string, SelectionCompletion>;
}

/**
 * How an object of `typeName` that lacks a selected field is completed: when its JSON has none of
 * some `keys` (absent, not null), it is looked up by the first of `lookups` whose key it has, in
 * round `round` (one after the round that fetched it), and the lookup's JSON is merged over it.
 */
export interface SelectionCompletion {
  readonly typeName: string;
  /** The first JSON step of each selected field without its own @fetch (and without @skip/@include on a variable). */
  readonly keys: readonly string[];
  /** The same for the fields under @skip/@include on a variable, with their conditions. */
  readonly conditional: ReadonlyArray<{ readonly key: string; readonly conditions: readonly Condition[] }>;
  readonly lookups: readonly LookupBlueprint[];
  /** The plan entry each lookup runs as, in the order of `lookups` (plan/completion.ts lookupEntry). */
  readonly entries: readonly PlanEntry[];
  readonly round: number;
}

/** A compiled operation: plain data, cached per document and operation name. */
export interface Plan {
  readonly operation: OperationDefinitionNode;
  readonly operationName: string;
  readonly rootType: string;
  readonly root: PlanSelection;
  /** The deepest @fetch round; the number of rounds when every lookup is reached. */
  readonly maxRound: number;
  /** Reads the coerced variables when it can (plan/fast-values.ts); graphql-js otherwise. */
  readonly variables?: VariablesReader;
}
