import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';
import { dottedNameHelp, parseDottedName } from './dotted.js';

/**
 * `@from(key)` / `@from(path)` on a field: the JSON steps the field reads from its parent object,
 * `[key]` or the dotted path's steps. Exactly one of key and path.
 */
export function compileFrom(use: DirectiveUse, ctx: FieldContext, problems: Problem[]): readonly string[] | undefined {
  const at = `@from on ${ctx.coordinate}`;
  const key = use.args.key;
  const path = use.args.path;
  if (use.args.types != null || use.args.value != null) {
    problems.push({
      message: `${at}: types belongs on a union or interface and value on an enum value; a field takes key or path`,
      node: use.node,
    });
    return undefined;
  }
  if ((key === undefined || key === null) === (path === undefined || path === null)) {
    problems.push({
      message: `${at} needs exactly one of key (a JSON key: @from(key: "author_id")) and path (dotted: @from(path: "address.city"))`,
      node: use.node,
    });
    return undefined;
  }
  if (key !== undefined && key !== null) {
    if (typeof key !== 'string' || key === '') {
      problems.push({ message: `${at} needs a non-empty key`, node: use.node });
      return undefined;
    }
    return [key];
  }
  const steps = parseDottedName(String(path));
  if (!steps) {
    problems.push({ message: `${at}: path "${String(path)}" is not a dotted name; ${dottedNameHelp('address.city')}`, node: use.node });
    return undefined;
  }
  return steps;
}

/** The steps a field's @from reads, without checking it (the blueprint's first pass; compileFrom reports). */
export function fromSteps(use: DirectiveUse | undefined, fieldName: string): readonly string[] {
  if (!use) return [fieldName];
  const { key, path } = use.args;
  if (typeof key === 'string' && key !== '') return [key];
  if (typeof path === 'string') return parseDottedName(path) ?? [fieldName];
  return [fieldName];
}

/**
 * `@from(key: "kind")` on a union or interface: the JSON key that holds each item's object type
 * name. Without it `__typename` decides. Its `types` map is compiled by directives/type-map.ts.
 */
export function compileTypeFrom(use: DirectiveUse, typeName: string, problems: Problem[]): string | undefined {
  const { key, path } = use.args;
  if (use.args.value != null) {
    problems.push({ message: `@from on ${typeName} takes key and types; value belongs on an enum value`, node: use.node });
    return undefined;
  }
  if (path !== undefined && path !== null) {
    problems.push({
      message: `@from on ${typeName} takes key (the JSON key naming each item's type, such as @from(key: "kind")), not path`,
      node: use.node,
    });
    return undefined;
  }
  if (typeof key !== 'string' || key === '') {
    problems.push({
      message: `@from on ${typeName} needs a non-empty key: the JSON key naming each item's type, such as @from(key: "kind")`,
      node: use.node,
    });
    return undefined;
  }
  return key;
}
