import { Kind, type ASTNode } from 'graphql';
import type { DirectiveUse } from './context.js';
import type { Problem } from './problem.js';
import { didYouMean } from './suggest.js';

/**
 * `@from(key:, types: ["public=PublicRepo", "*=PullRequest", "Repo"])` on a union or interface
 * (docs/reference.md, *new*): how the value of the key names an item's object type.
 * - `value=Type`: the key's value, in its string form (`1`, `true`), equals `value` (everything
 *   before the last `=`, so a value may hold `=`);
 * - `*=Type`: the key has any other non-null value (a pull request tells itself by `pull_request`);
 * - `Type`: the default, for an item matched by neither (the key missing or null included).
 * Each Type must be a member of the union or an implementation of the interface; a value appears
 * once; at most one `*=` and one default.
 */
export interface TypeMap {
  readonly byValue: ReadonlyMap<string, string>;
  readonly present: string | undefined;
  readonly fallback: string | undefined;
}

export function compileTypeMap(use: DirectiveUse, typeName: string, members: readonly string[], problems: Problem[]): TypeMap | undefined {
  const entries = use.args.types;
  if (entries === undefined || entries === null) return undefined;
  const list = (Array.isArray(entries) ? entries : [entries]) as string[];
  const nodes = entryNodes(use);
  const byValue = new Map<string, string>();
  let present: string | undefined;
  let fallback: string | undefined;
  const at = `@from on ${typeName}`;
  list.forEach((entry, i) => {
    const node = nodes[i] ?? use.node;
    const eq = entry.lastIndexOf('=');
    const value = eq < 0 ? undefined : entry.slice(0, eq);
    const type = (eq < 0 ? entry : entry.slice(eq + 1)).trim();
    if (!members.includes(type)) {
      const what = members.length ? `is not one of its types (${members.join(', ')})` : 'names no type: it has no object types';
      problems.push({ message: `${at}: types entry "${entry}": "${type}" ${what}${didYouMean(type, members)}`, node });
      return;
    }
    if (value === undefined) {
      if (fallback !== undefined) problems.push({ message: `${at}: types has two defaults ("${fallback}" and "${type}"); keep one`, node });
      fallback = type;
    } else if (value === '*') {
      if (present !== undefined) problems.push({ message: `${at}: types has two "*=" entries; keep one`, node });
      present = type;
    } else if (value === '') {
      problems.push({ message: `${at}: types entry "${entry}" has no value before "="; write "value=${type}"`, node });
    } else if (byValue.has(value)) {
      problems.push({ message: `${at}: types names the value "${value}" twice; keep one`, node });
    } else byValue.set(value, type);
  });
  return { byValue, present, fallback };
}

/** The string node of each `types` entry, for file:line:col at the entry itself. */
function entryNodes(use: DirectiveUse): ASTNode[] {
  const arg = use.node.arguments?.find((a) => a.name.value === 'types');
  if (!arg) return [];
  return arg.value.kind === Kind.LIST ? [...arg.value.values] : [arg.value];
}
