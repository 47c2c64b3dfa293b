import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';
import { compilePathTemplate, type PathTemplate, type Placeholder } from './template.js';
import { bindTemplate } from './placeholders.js';
import { dottedNameHelp, parseDottedName } from './dotted.js';
import { didYouMean } from './suggest.js';

export interface CompiledFetch {
  readonly source: string;
  readonly template: PathTemplate;
  /** `select: "data.items"`: the steps into the body that are the field's value; undefined: the whole body. */
  readonly select: readonly string[] | undefined;
  /** The (bound) placeholders whose value is a list. */
  readonly lists: readonly Placeholder[];
}

/**
 * `@fetch(source, path, select, repeat)`: the field's value is the JSON body of GET
 * {source url}{path}, or the dotted `select` path inside it.
 */
export function compileFetch(use: DirectiveUse, ctx: FieldContext, problems: Problem[]): CompiledFetch | undefined {
  const source = String(use.args.source);
  const path = String(use.args.path);
  let ok = true;
  if (!ctx.sourceNames.includes(source)) {
    const known = ctx.sourceNames.length ? ctx.sourceNames.join(', ') : 'none are configured';
    problems.push({
      message: `@fetch on ${ctx.coordinate} names unknown source "${source}"${didYouMean(source, ctx.sourceNames)} (sources: ${known})`,
      node: use.node,
    });
    ok = false;
  }
  const select = compileSelect('@fetch', use, ctx, problems);
  if (select === null) ok = false;
  const compiled = compilePathTemplate(path, { repeat: use.args.repeat === true });
  if (!compiled.ok) {
    problems.push({ message: `@fetch on ${ctx.coordinate} has a malformed path "${path}": ${compiled.error}`, node: use.node });
    return undefined;
  }
  if (compiled.template.placeholders.some((p) => p.kind === 'keys')) {
    problems.push({ message: `@fetch on ${ctx.coordinate}: {keys} belongs in a @batch path, not in @fetch`, node: use.node });
    ok = false;
  }
  const bound = bindTemplate('@fetch', compiled.template, ctx);
  for (const message of bound.messages) {
    problems.push({ message, node: use.node });
    ok = false;
  }
  return ok ? { source, template: bound.template, select: select ?? undefined, lists: bound.lists } : undefined;
}

/**
 * The steps of a `select` argument: undefined when absent, null (and a problem) when it is not a
 * dotted name.
 */
export function compileSelect(
  directive: string,
  use: DirectiveUse,
  ctx: FieldContext,
  problems: Problem[],
): readonly string[] | undefined | null {
  const text = use.args.select;
  if (text === undefined || text === null) return undefined;
  const steps = parseDottedName(String(text));
  if (steps) return steps;
  problems.push({
    message: `${directive} on ${ctx.coordinate}: select "${String(text)}" is not a dotted name; ${dottedNameHelp('data.items')}`,
    node: use.node,
  });
  return null;
}
