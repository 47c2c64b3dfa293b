import {
  BREAK,
  Kind,
  getArgumentValues,
  getNamedType,
  isAbstractType,
  isCompositeType,
  isObjectType,
  typeFromAST,
  visit,
  type DirectiveNode,
  type FieldNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Blueprint } from '../blueprint/types.js';
import type { Condition, Plan, PlanEntry, PlanSelection } from './types.js';
import { selectionCompletions } from './completion.js';
import { compileArguments, compileVariables } from './fast-values.js';

/**
 * Builds the Plan of one operation of a validated document: the selection tree with fragments
 * flattened, each field tied to its blueprint and its round (docs/caching.md: a @fetch field at
 * @fetch-depth d runs in round d). Returns undefined when the operation does not exist.
 *
 * Linear in the document: a fragment's part of the plan is built once per place it can differ
 * (parent type, possible types, @skip/@include conditions, round) and shared by every spread of it
 * there, and a spread repeated in one selection set is taken once (as graphql-js collects fields),
 * so `fragment F1 { ...F0 ...F0 }` … `F30 { ...F29 ...F29 }` costs 31 fragment builds, not 2^30.
 */
export function buildPlan(blueprint: Blueprint, document: DocumentNode, operationName?: string | null): Plan | undefined {
  const operation = findOperation(document, operationName);
  if (!operation) return undefined;
  const schema = blueprint.schema;
  const rootType = schema.getRootType(operation.operation);
  if (!rootType) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const builder = new PlanBuilder(blueprint, schema, fragments);
  const root = builder.selection(operation.selectionSet, rootType, 0);
  return {
    operation,
    operationName: operation.name?.value ?? 'anonymous',
    rootType: rootType.name,
    root,
    maxRound: builder.maxRound,
    variables: compileVariables(schema, operation.variableDefinitions ?? []),
  };
}

function findOperation(document: DocumentNode, name?: string | null): OperationDefinitionNode | undefined {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (name) return ops.find((o) => o.name?.value === name);
  return ops.length === 1 ? ops[0] : undefined;
}

/** Where a selection is collected: the object types it applies to (null: all of the parent type's), the @skip/@include conditions on the way, its round. */
interface Scope {
  readonly possible: ReadonlySet<string> | null;
  readonly conditions: readonly Condition[];
  readonly round: number;
}

/**
 * What one selection set collects into: its entries, the fragments being expanded (a guard against
 * cycles), and the fragment spreads it has taken (by `fragmentKey`; a repeated one adds nothing).
 */
interface Sink {
  readonly entries: PlanEntry[];
  readonly visiting: Set<string>;
  readonly taken: Set<string>;
}

class PlanBuilder {
  maxRound = 0;
  /** A fragment's entries per `fragmentKey` (name, parent type, possible types, conditions, round). */
  private readonly built = new Map<string, readonly PlanEntry[]>();

  constructor(
    private readonly blueprint: Blueprint,
    private readonly schema: GraphQLSchema,
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  ) {}

  selection(set: SelectionSetNode, parentType: GraphQLCompositeType, round: number): PlanSelection {
    let entries: PlanEntry[] = [];
    this.collect(set, parentType, { possible: null, conditions: [], round }, { entries, visiting: new Set(), taken: new Set() });
    const completions = selectionCompletions(this.blueprint, this.objectTypesOf(parentType), { entries, round: round + 1 });
    if (!completions) return { entries };
    // A partial object is completed one round later: what is fetched below it counts from there.
    if (round + 1 > this.maxRound) this.maxRound = round + 1;
    entries = [];
    this.collect(set, parentType, { possible: null, conditions: [], round: round + 1 }, { entries, visiting: new Set(), taken: new Set() });
    return { entries, completions };
  }

  private collect(set: SelectionSetNode, parentType: GraphQLCompositeType, scope: Scope, sink: Sink): void {
    const { possible, conditions, round } = scope;
    const { visiting } = sink;
    for (const sel of set.selections) {
      const conds = [...conditions, ...conditionsOf(sel.directives)];
      if (conds.some((c) => c.value === !c.include)) continue;
      if (sel.kind === Kind.FIELD) {
        if (sel.name.value.startsWith('__')) continue;
        this.field(sel, parentType, { possible, conditions: conds, round }, sink.entries);
      } else {
        let condType: GraphQLCompositeType | undefined;
        let inner: SelectionSetNode;
        let name: string | undefined;
        let fragment: FragmentDefinitionNode | undefined;
        if (sel.kind === Kind.INLINE_FRAGMENT) {
          inner = sel.selectionSet;
          condType = sel.typeCondition ? (typeFromAST(this.schema, sel.typeCondition) as GraphQLCompositeType | undefined) : undefined;
        } else {
          name = sel.name.value;
          fragment = this.fragments.get(name);
          if (!fragment || visiting.has(name)) continue;
          inner = fragment.selectionSet;
          condType = typeFromAST(this.schema, fragment.typeCondition) as GraphQLCompositeType | undefined;
        }
        const narrowed = condType ? this.narrow(parentType, possible, condType) : possible;
        if (narrowed && narrowed.size === 0) continue;
        const inScope: Scope = { possible: narrowed, conditions: conds, round };
        if (fragment === undefined) this.collect(inner, parentType, inScope, sink);
        else this.spread(fragment, parentType, inScope, sink);
      }
    }
  }

  /** A named fragment's entries in this scope: built the first time, then shared; taken once per selection set. */
  private spread(fragment: FragmentDefinitionNode, parentType: GraphQLCompositeType, scope: Scope, sink: Sink): void {
    const name = fragment.name.value;
    const key = fragmentKey(name, parentType, scope);
    if (sink.taken.has(key)) return;
    sink.taken.add(key);
    let entries = this.built.get(key);
    if (!entries) {
      const collected: PlanEntry[] = [];
      sink.visiting.add(name);
      this.collect(fragment.selectionSet, parentType, scope, { entries: collected, visiting: sink.visiting, taken: new Set() });
      sink.visiting.delete(name);
      this.built.set(key, collected);
      entries = collected;
    }
    for (const entry of entries) sink.entries.push(entry);
  }

  /** The object types that both the current scope and a fragment's type condition allow. */
  private narrow(
    parentType: GraphQLCompositeType,
    possible: ReadonlySet<string> | null,
    cond: GraphQLCompositeType,
  ): ReadonlySet<string> | null {
    const scope = possible ?? new Set(this.objectTypesOf(parentType));
    const allowed = new Set(this.objectTypesOf(cond));
    const result = new Set([...scope].filter((t) => allowed.has(t)));
    return result.size === scope.size && possible === null ? null : result;
  }

  private objectTypesOf(type: GraphQLCompositeType): string[] {
    if (isObjectType(type)) return [type.name];
    return this.schema.getPossibleTypes(type).map((t) => t.name);
  }

  private field(node: FieldNode, parentType: GraphQLCompositeType, scope: Scope, out: PlanEntry[]): void {
    const { possible, conditions, round } = scope;
    // On an abstract parent each concrete type may fetch the field differently: one entry per type.
    const concrete = isObjectType(parentType) ? [parentType.name] : [...(possible ?? this.objectTypesOf(parentType))];
    for (const typeName of concrete) {
      const type = this.schema.getType(typeName);
      if (!isObjectType(type)) continue;
      const fieldDef = type.getFields()[node.name.value];
      const blueprint = this.blueprint.fields.get(`${typeName}.${node.name.value}`);
      if (!fieldDef || !blueprint) continue;
      const fieldRound = blueprint.fetch ? round + 1 : round;
      if (fieldRound > this.maxRound) this.maxRound = fieldRound;
      const named = getNamedType(fieldDef.type);
      const children = node.selectionSet && isCompositeType(named) ? this.selection(node.selectionSet, named, fieldRound) : undefined;
      const constantArgs = blueprint.fetch ? constantArguments(fieldDef, node) : undefined;
      out.push({
        responseKey: node.alias?.value ?? node.name.value,
        fieldNode: node,
        fieldDef,
        blueprint,
        conditions,
        possibleTypes: isObjectType(parentType) ? possible : new Set([typeName]),
        round: blueprint.fetch ? fieldRound : 0,
        children,
        childType: named.name,
        childIsAbstract: isAbstractType(named),
        fetchBelow: children
          ? children.completions !== undefined ||
            children.entries.some((e) => e.blueprint.fetch !== undefined || e.blueprint.auth !== undefined || e.fetchBelow)
          : false,
        constantArgs,
        variableArgs: constantArgs === undefined && blueprint.fetch ? compileArguments(fieldDef, node) : undefined,
      });
    }
  }
}

/** A field's argument values when no argument uses a variable (see PlanEntry.constantArgs). */
function constantArguments(fieldDef: GraphQLField<unknown, unknown>, node: FieldNode): Record<string, unknown> | undefined {
  if (fieldDef.args.length === 0) return EMPTY_ARGS;
  let usesVariable = false;
  for (const arg of node.arguments ?? []) {
    visit(arg.value, {
      Variable() {
        usesVariable = true;
        return BREAK;
      },
    });
  }
  if (usesVariable) return undefined;
  try {
    return getArgumentValues(fieldDef, node, {});
  } catch {
    return undefined; // a value graphql-js refuses: the request coerces it again and reports it
  }
}

const EMPTY_ARGS: Readonly<Record<string, unknown>> = Object.freeze({});

/** Where a fragment's entries can differ: the same key means the same entries. */
function fragmentKey(name: string, parentType: GraphQLCompositeType, scope: Scope): string {
  const types = scope.possible ? [...scope.possible].sort().join(',') : '*';
  const conds = scope.conditions
    .map((c) => `${c.include ? 'i' : 's'}:${typeof c.value === 'boolean' ? c.value : `$${c.value.variable}`}`)
    .join(',');
  return `${name}|${parentType.name}|${types}|${conds}|${scope.round}`;
}

function conditionsOf(directives: readonly DirectiveNode[] | undefined): Condition[] {
  const out: Condition[] = [];
  for (const d of directives ?? []) {
    const name = d.name.value;
    if (name !== 'skip' && name !== 'include') continue;
    const arg = d.arguments?.find((a) => a.name.value === 'if');
    if (!arg) continue;
    const v = arg.value;
    const value = v.kind === Kind.BOOLEAN ? v.value : v.kind === Kind.VARIABLE ? { variable: v.name.value } : true;
    out.push({ include: name === 'include', value });
  }
  return out;
}
