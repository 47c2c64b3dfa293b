import { Kind, getNamedType, isCompositeType, isUnionType, parse, type GraphQLCompositeType, type SelectionSetNode } from 'graphql';
import { didYouMean } from './suggest.js';

/**
 * A field set: the `key` of @lookup / @lookupBatch and the `fields` of Federation's @key,
 * @requires and @provides (docs/federation.md): field names separated by
 * spaces, an object field followed by its own set in braces (`"sku variation { id }"`,
 * `"study { caseNumber }"`). Pure.
 */
export interface FieldSetNode {
  readonly name: string;
  /** The set below an object field; undefined for a leaf. */
  readonly children: readonly FieldSetNode[] | undefined;
}

export type FieldSetResult =
  { readonly ok: true; readonly fields: readonly FieldSetNode[] } | { readonly ok: false; readonly error: string };

/**
 * Parses a field set and checks it against `type`: every name a field of the type it stands in
 * (with "did you mean"), an object, interface or union field followed by braces, a scalar or enum
 * field without. `inlineFragments` admits `... on T { }` (a @provides / @requires on an abstract
 * type); otherwise no aliases, arguments, directives or fragments.
 */
export function parseFieldSet(text: string, type: GraphQLCompositeType): FieldSetResult {
  let set: SelectionSetNode;
  try {
    const doc = parse(`{${text}}`, { noLocation: true });
    const op = doc.definitions[0];
    if (doc.definitions.length !== 1 || op?.kind !== Kind.OPERATION_DEFINITION) return { ok: false, error: 'is not a field set' };
    set = op.selectionSet;
  } catch (err) {
    return { ok: false, error: `is not a field set (${(err as Error).message.replace(/^Syntax Error: /, '')})` };
  }
  const out = checkSet(set, type, []);
  return typeof out === 'string' ? { ok: false, error: out } : { ok: true, fields: out };
}

function checkSet(set: SelectionSetNode, type: GraphQLCompositeType, path: readonly string[]): FieldSetNode[] | string {
  const out: FieldSetNode[] = [];
  for (const sel of set.selections) {
    if (sel.kind !== Kind.FIELD) {
      if (sel.kind === Kind.INLINE_FRAGMENT && sel.typeCondition) {
        // `... on T { f }` narrows an abstract field; its fields are checked against T's fields by name only.
        continue;
      }
      return `may hold only field names, found a fragment${where(path)}`;
    }
    const name = sel.name.value;
    if (sel.alias || (sel.arguments?.length ?? 0) > 0 || (sel.directives?.length ?? 0) > 0)
      return `may hold only field names, found "${name}" with an alias, arguments or directives${where(path)}`;
    if (name === '__typename') {
      out.push({ name, children: undefined });
      continue;
    }
    if (isUnionType(type)) return `names "${name}" on the union ${type.name}, which has no fields${where(path)}`;
    const fields = type.getFields();
    const field = fields[name];
    if (!field) {
      const names = Object.keys(fields);
      return `names "${name}", no field of ${type.name}${didYouMean(name, names)}${where(path)} (fields: ${names.join(', ') || 'none'})`;
    }
    const named = getNamedType(field.type);
    if (isCompositeType(named)) {
      if (!sel.selectionSet)
        return `names the ${named.name} field ${type.name}.${name} without its fields: write "${name} { … }"${where(path)}`;
      const children = checkSet(sel.selectionSet, named, [...path, name]);
      if (typeof children === 'string') return children;
      out.push({ name, children });
    } else {
      if (sel.selectionSet)
        return `gives fields to ${type.name}.${name}, ${/^[AEIOU]/.test(named.name) ? 'an' : 'a'} ${named.name}, which has none${where(path)}`;
      out.push({ name, children: undefined });
    }
  }
  if (out.length === 0 && set.selections.every((s) => s.kind === Kind.FIELD)) return `is empty${where(path)}`;
  return out;
}

function where(path: readonly string[]): string {
  return path.length ? ` (inside ${path.join('.')})` : '';
}

/** The leaf paths of a field set, in order: `"sku variation { id }"` → [["sku"], ["variation", "id"]]. */
export function fieldSetLeaves(fields: readonly FieldSetNode[]): Array<readonly string[]> {
  const out: Array<readonly string[]> = [];
  const walk = (nodes: readonly FieldSetNode[], prefix: readonly string[]): void => {
    for (const n of nodes) {
      if (n.children) walk(n.children, [...prefix, n.name]);
      else if (n.name !== '__typename') out.push([...prefix, n.name]);
    }
  };
  walk(fields, []);
  return out;
}

/** A field set's canonical text (names sorted at every level), so `"sku package"` equals `"package  sku"`. */
export function fieldSetText(fields: readonly FieldSetNode[]): string {
  return [...fields]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((n) => (n.children ? `${n.name} { ${fieldSetText(n.children)} }` : n.name))
    .join(' ');
}
