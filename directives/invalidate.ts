import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';
import { compilePathTemplate, type PathTemplate } from './template.js';
import { bindTemplate } from './placeholders.js';
import { didYouMean } from './suggest.js';

export interface CompiledInvalidate {
  readonly source: string;
  /** The path as written, `{result.…}` and all. */
  readonly path: string;
  /**
   * The path template of the cache entry to delete. `{result.F}` is compiled as `{parent.F}` of
   * the result type (the result plays the parent's part: it is read through F's @from), so the
   * path resolves exactly like the @fetch path whose entry it names.
   */
  readonly template: PathTemplate;
  /** `prefix: true`: every entry of the source whose path starts with the resolved path (directives/prefix-rule.ts). */
  readonly prefix: boolean;
}

const RESULT = /\{result\./g;
const PARENT = /\{parent\./g;

/**
 * `@invalidate(source, path)`, repeatable (docs/mutations.md): on a Mutation field with a
 * @fetch; after its request succeeds the entry `{source}:{resolved path}` is deleted. Placeholders
 * read the field's arguments (`{args.A}`) and its result (`{result.F}`, a plain field of the
 * result type); `{parent.*}` and `{keys}` mean nothing here.
 */
export function compileInvalidations(
  uses: readonly DirectiveUse[],
  hasFetch: boolean,
  ctx: FieldContext,
  problems: Problem[],
): CompiledInvalidate[] {
  const out: CompiledInvalidate[] = [];
  for (const use of uses) {
    const at = `@invalidate on ${ctx.coordinate}`;
    const before = problems.length;
    if (!ctx.isMutation)
      problems.push({
        message: `${at}: only Mutation fields invalidate cache entries; move it to the Mutation field that writes`,
        node: use.node,
      });
    else if (!hasFetch)
      problems.push({ message: `${at} needs a @fetch beside it: entries are deleted after that request succeeds`, node: use.node });
    const source = String(use.args.source);
    if (!ctx.sourceNames.includes(source)) {
      const known = ctx.sourceNames.length ? ctx.sourceNames.join(', ') : 'none are configured';
      problems.push({
        message: `${at} names unknown source "${source}"${didYouMean(source, ctx.sourceNames)} (sources: ${known})`,
        node: use.node,
      });
    }
    const path = String(use.args.path);
    if (path.includes('{parent.')) {
      problems.push({
        message: `${at}: {parent.…} means nothing on a Mutation field; use {args.…} or {result.…} in "${path}"`,
        node: use.node,
      });
      continue;
    }
    const compiled = compilePathTemplate(path.replace(RESULT, '{parent.'));
    if (!compiled.ok) {
      problems.push({
        message: `${at} has a malformed path "${path}": ${asResult(compiled.error).replace('{parent.FIELD}', '{result.FIELD}')}`,
        node: use.node,
      });
      continue;
    }
    if (compiled.template.placeholders.some((p) => p.kind === 'auth')) {
      problems.push({ message: `${at}: {auth.…} is not read by @invalidate; name the entry with {args.…} or {result.…}`, node: use.node });
    }
    if (compiled.template.placeholders.some((p) => p.kind === 'keys')) {
      problems.push({ message: `${at}: {keys} belongs in a @batch path; name one entry with {args.…} or {result.…}`, node: use.node });
    }
    // The result plays the parent's part: `{result.a.b}` binds through the result type's fields.
    const bound = ctx.resultType
      ? bindTemplate('@invalidate', compiled.template, { ...ctx, parentType: ctx.resultType, typeName: ctx.resultType.name })
      : undefined;
    if (!bound && compiled.template.placeholders.some((p) => p.kind === 'parent')) {
      problems.push({
        message: `${at}: {result.…} needs an object result; ${ctx.coordinate} returns none, so use {args.…}`,
        node: use.node,
      });
    }
    for (const message of bound?.messages ?? []) problems.push({ message: asResult(message), node: use.node });
    const template = bound?.template ?? compiled.template;
    const prefix = use.args.prefix === true;
    if (prefix && (compiled.template.query.length > 0 || compiled.template.path.some((p) => p.kind === 'optional'))) {
      problems.push({
        message: `${at}: a prefix is a path of whole segments, without "?" or optional [ ] parts, such as path: "/repos/{args.owner}/{args.repo}/issues/{args.number}/comments", prefix: true`,
        node: use.node,
      });
    }
    if (problems.length === before) out.push({ source, path, template, prefix });
  }
  return out;
}

/** A message about the compiled form, worded as the user wrote it. */
function asResult(message: string): string {
  return message
    .replace(PARENT, '{result.')
    .replace("placeholders read the parent's own data", 'placeholders read the result as the source answered it');
}
