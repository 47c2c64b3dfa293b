import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';
import type { CompiledFetch } from './fetch.js';
import { compilePathTemplate, type PathTemplate } from './template.js';
import { checkPlaceholders } from './placeholders.js';

export interface CompiledBatch {
  readonly template: PathTemplate;
  /** The item field whose string form is matched against the key. */
  readonly match: string;
  readonly max: number;
  /** The parent field of the @fetch path's single `{parent.*}`: the batch key. */
  readonly keyField: string;
}

/** The @fetch beside a @batch: whether the field has one, and what it compiled to (undefined when it is malformed). */
export interface FetchBeside {
  readonly hasFetch: boolean;
  readonly fetch: CompiledFetch | undefined;
}

/**
 * `@batch(path, match, max)`: beside a @fetch whose path holds exactly one `{parent.*}`; its own
 * path holds exactly one `{keys}`.
 */
export function compileBatch(use: DirectiveUse, beside: FetchBeside, ctx: FieldContext, problems: Problem[]): CompiledBatch | undefined {
  const { fetch, hasFetch } = beside;
  const at = `@batch on ${ctx.coordinate}`;
  const path = String(use.args.path);
  const match = String(use.args.match);
  const max = Number(use.args.max);
  const before = problems.length;
  if (!hasFetch) {
    problems.push({ message: `${at} needs a @fetch beside it: the single fetch whose key each item is cached under`, node: use.node });
  }
  if (!(max >= 1)) problems.push({ message: `${at}: max must be at least 1, found ${max}`, node: use.node });
  if (match === '') problems.push({ message: `${at}: match must name the item field that carries the key`, node: use.node });
  let keyField: string | undefined;
  if (fetch) {
    const parents = fetch.template.placeholders.filter((p) => p.kind === 'parent');
    if (parents.length !== 1) {
      problems.push({ message: `${at} needs exactly one {parent.*} placeholder in its @fetch path, found ${parents.length}`, node: use.node });
    } else {
      keyField = parents[0]!.kind === 'parent' ? parents[0]!.name : undefined;
    }
  }
  const compiled = compilePathTemplate(path);
  if (!compiled.ok) {
    problems.push({ message: `${at} has a malformed path "${path}": ${compiled.error}`, node: use.node });
    return undefined;
  }
  const keys = compiled.template.placeholders.filter((p) => p.kind === 'keys').length;
  if (keys !== 1) {
    problems.push({ message: `${at} needs exactly one {keys} placeholder in its path, found ${keys}`, node: use.node });
  }
  if (compiled.template.placeholders.some((p) => p.kind === 'parent')) {
    problems.push({ message: `${at}: its path takes the parents' keys through {keys}, not {parent.*}`, node: use.node });
  }
  for (const message of checkPlaceholders('@batch', compiled.template.placeholders, ctx)) {
    problems.push({ message, node: use.node });
  }
  if (problems.length > before || keyField === undefined) return undefined;
  return { template: compiled.template, match, max, keyField };
}
