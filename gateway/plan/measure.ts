import { Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

/**
 * Sizes of a GraphQL document as if its fragments were expanded, measured without expanding them:
 * each fragment is measured once (in dependency order, with an explicit stack) and its measure is
 * added at every spread, so the cost is linear in the document whatever it would expand to — a
 * 1 KB document of fragments that spread each other twice is measured in microseconds. Used by the
 * document limits (limits.max_fields, max_depth, one `__schema`) and to bound graphql-jit's compile.
 */
export interface OperationMeasure {
  readonly operation: OperationDefinitionNode;
  /** Field selections after fragment expansion (each spread counts its fragment again). */
  readonly fields: number;
  /** The deepest field nesting (root fields are depth 1; fragments followed; inline fragments add none). */
  readonly depth: number;
  /** `__schema` selections after fragment expansion. */
  readonly schemaFields: number;
}

/**
 * Counts stop growing past this: far above any limit, and far below where a double loses integers,
 * so a fragment that would expand to 2^100 fields is simply "too many".
 */
export const SATURATED = 2 ** 40;

/** The measure of every operation of `document`. */
export function measureOperations(document: DocumentNode): OperationMeasure[] {
  const sizes = new Map<string, Measure>();
  const depths = new Map<string, number>();
  inDependencyOrder(document, (name, definition) => {
    sizes.set(name, measureSelection(definition.selectionSet, sizes));
    depths.set(name, selectionDepth(definition.selectionSet, depths));
  });
  const out: OperationMeasure[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const size = measureSelection(definition.selectionSet, sizes);
    out.push({
      operation: definition,
      fields: size.fields,
      schemaFields: size.schemaFields,
      depth: selectionDepth(definition.selectionSet, depths),
    });
  }
  return out;
}

/** Expanded field selections of the operation `operationName` selects (0 when there is none). */
export function expandedFieldCount(document: DocumentNode, operationName: string | null | undefined): number {
  const operations = measureOperations(document);
  const chosen = operationName
    ? operations.find((m) => m.operation.name?.value === operationName)
    : operations.length === 1
      ? operations[0]
      : undefined;
  return chosen?.fields ?? 0;
}

interface Measure {
  fields: number;
  schemaFields: number;
}

function measureSelection(set: SelectionSetNode, fragments: ReadonlyMap<string, Measure>): Measure {
  const total: Measure = { fields: 0, schemaFields: 0 };
  addSelection(set, fragments, total);
  return total;
}

function addSelection(set: SelectionSetNode, fragments: ReadonlyMap<string, Measure>, total: Measure): void {
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      total.fields = Math.min(SATURATED, total.fields + 1);
      if (selection.name.value === '__schema') total.schemaFields = Math.min(SATURATED, total.schemaFields + 1);
      if (selection.selectionSet) addSelection(selection.selectionSet, fragments, total);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      addSelection(selection.selectionSet, fragments, total);
    } else {
      const inner = fragments.get(selection.name.value);
      if (!inner) continue;
      total.fields = Math.min(SATURATED, total.fields + inner.fields);
      total.schemaFields = Math.min(SATURATED, total.schemaFields + inner.schemaFields);
    }
  }
}

/** Field depth of a selection set, reading spread fragments' depths from `fragments` (unknown: 0). */
function selectionDepth(set: SelectionSetNode, fragments: ReadonlyMap<string, number>): number {
  let max = 0;
  for (const selection of set.selections) {
    let depth: number;
    if (selection.kind === Kind.FIELD) depth = 1 + (selection.selectionSet ? selectionDepth(selection.selectionSet, fragments) : 0);
    else if (selection.kind === Kind.INLINE_FRAGMENT) depth = selectionDepth(selection.selectionSet, fragments);
    else depth = fragments.get(selection.name.value) ?? 0;
    if (depth > max) max = depth;
  }
  return max;
}

function spreadNames(set: SelectionSetNode, into: Set<string>): Set<string> {
  for (const selection of set.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD) into.add(selection.name.value);
    else if (selection.selectionSet) spreadNames(selection.selectionSet, into);
  }
  return into;
}

/**
 * Calls `visitFragment` once for every fragment definition, each after the fragments it spreads,
 * with an explicit stack (a chain of thousands of fragments must not recurse). A spread that closes
 * a cycle (which validation rejects anyway) is reached before its fragment is done and counts 0.
 */
function inDependencyOrder(document: DocumentNode, visitFragment: (name: string, definition: FragmentDefinitionNode) => void): void {
  const definitions = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION && !definitions.has(d.name.value)) definitions.set(d.name.value, d);
  const done = new Set<string>();
  const entered = new Set<string>();
  for (const start of definitions.keys()) {
    const stack = [start];
    while (stack.length > 0) {
      const name = stack[stack.length - 1]!;
      const definition = definitions.get(name)!;
      if (done.has(name)) {
        stack.pop();
      } else if (!entered.has(name)) {
        entered.add(name);
        for (const dep of spreadNames(definition.selectionSet, new Set())) {
          if (definitions.has(dep) && !entered.has(dep)) stack.push(dep);
        }
      } else {
        visitFragment(name, definition);
        done.add(name);
        stack.pop();
      }
    }
  }
}
