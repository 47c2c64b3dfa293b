import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';
import { compilePathTemplate, type PathTemplate } from './template.js';
import { checkPlaceholders } from './placeholders.js';
import { didYouMean } from './suggest.js';

export interface CompiledFetch {
  readonly source: string;
  readonly template: PathTemplate;
}

/** `@fetch(source, path)`: the field's value is the JSON body of GET {source url}{path}. */
export function compileFetch(use: DirectiveUse, ctx: FieldContext, problems: Problem[]): CompiledFetch | undefined {
  const source = String(use.args.source);
  const path = String(use.args.path);
  let ok = true;
  if (!ctx.sourceNames.includes(source)) {
    const known = ctx.sourceNames.length ? ctx.sourceNames.join(', ') : 'none are configured';
    problems.push({ message: `@fetch on ${ctx.coordinate} names unknown source "${source}"${didYouMean(source, ctx.sourceNames)} (sources: ${known})`, node: use.node });
    ok = false;
  }
  const compiled = compilePathTemplate(path);
  if (!compiled.ok) {
    problems.push({ message: `@fetch on ${ctx.coordinate} has a malformed path "${path}": ${compiled.error}`, node: use.node });
    return undefined;
  }
  const template = compiled.template;
  if (template.placeholders.some((p) => p.kind === 'keys')) {
    problems.push({ message: `@fetch on ${ctx.coordinate}: {keys} belongs in a @batch path, not in @fetch`, node: use.node });
    ok = false;
  }
  for (const message of checkPlaceholders('@fetch', template.placeholders, ctx)) {
    problems.push({ message, node: use.node });
    ok = false;
  }
  return ok ? { source, template } : undefined;
}
