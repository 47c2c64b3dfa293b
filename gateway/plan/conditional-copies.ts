import {
  Kind,
  getOperationAST,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * Whether the operation has a conditional copy of a merged field: a response key that, fields
 * merged as graphql-js collects them (fragments inlined, same-key fields' selections merged), has
 * more than one field node, one of them under @skip or @include (on the field itself or on a
 * fragment between it and its selection set). graphql-jit 0.8 answers such an operation unlike
 * graphql-js: a skipped copy's fragment still shapes the merged field, and the keys follow the
 * first copy even when it is skipped (execute/answer/shape.ts then shapes with graphql-js). The caller
 * bounds the work: it asks only for documents of few expanded fields (plan/compile-limit.ts JIT_MAX_FIELDS).
 */
export function hasConditionalCopies(document: DocumentNode, operationName: string | null | undefined): boolean {
  const operation = getOperationAST(document, operationName);
  if (!operation) return false;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return conditionalCopiesIn([operation.selectionSet], fragments);
}

/** The field nodes of one response key, and whether any of them is conditional. */
interface Copies {
  readonly nodes: FieldNode[];
  conditional: boolean;
}

/** hasConditionalCopies over the merged selection sets `sets` and, recursively, their fields' merged selections. */
function conditionalCopiesIn(sets: readonly SelectionSetNode[], fragments: ReadonlyMap<string, FragmentDefinitionNode>): boolean {
  const byKey = new Map<string, Copies>();
  for (const set of sets) gather(set, false, { byKey, fragments, visiting: new Set() });
  for (const { nodes, conditional } of byKey.values()) {
    if (nodes.length > 1 && conditional) return true;
    const below: SelectionSetNode[] = [];
    for (const node of nodes) if (node.selectionSet) below.push(node.selectionSet);
    if (below.length > 0 && conditionalCopiesIn(below, fragments)) return true;
  }
  return false;
}

interface Gathering {
  readonly byKey: Map<string, Copies>;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** Fragments being inlined (a guard; validation already refuses cycles). */
  readonly visiting: Set<string>;
}

/** Adds the fields of `set` (fragments inlined) to `g.byKey` by response key. */
function gather(set: SelectionSetNode, conditional: boolean, g: Gathering): void {
  for (const sel of set.selections) {
    const here = conditional || isConditional(sel.directives);
    if (sel.kind === Kind.FIELD) {
      const key = sel.alias?.value ?? sel.name.value;
      const copies = g.byKey.get(key);
      if (copies) {
        copies.nodes.push(sel);
        copies.conditional ||= here;
      } else g.byKey.set(key, { nodes: [sel], conditional: here });
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      gather(sel.selectionSet, here, g);
    } else {
      const fragment = g.fragments.get(sel.name.value);
      if (!fragment || g.visiting.has(sel.name.value)) continue;
      g.visiting.add(sel.name.value);
      gather(fragment.selectionSet, here, g);
      g.visiting.delete(sel.name.value);
    }
  }
}

function isConditional(directives: readonly DirectiveNode[] | undefined): boolean {
  return directives?.some((d) => d.name.value === 'skip' || d.name.value === 'include') === true;
}
