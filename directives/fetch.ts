import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';
import { getNullableType, isObjectType } from 'graphql';
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
  /**
   * `url:` instead of `path:`: `template` is then the one placeholder whose value is the URL to
   * fetch (admitted by directives/url-link.ts at run time).
   */
  readonly url: boolean;
  /** `response: true`: the value is `{status, headers, body}` (upstream/response-value.ts). */
  readonly response: boolean;
}

/**
 * `@fetch(source, path | url, select, repeat, response)`: the field's value is the JSON body of GET
 * {source url}{path}, or the dotted `select` path inside it. Exactly one of `path` and `url`; a
 * `url` is one `{parent.*}` or `{args.*}` placeholder (a URL taken from data, docs/reference.md);
 * `response: true` needs an object type, whose fields read `status`, `headers` and `body`.
 */
export function compileFetch(use: DirectiveUse, ctx: FieldContext, problems: Problem[]): CompiledFetch | undefined {
  const source = String(use.args.source);
  const at = `@fetch on ${ctx.coordinate}`;
  const hasPath = typeof use.args.path === 'string';
  const url = typeof use.args.url === 'string' ? use.args.url : undefined;
  const response = use.args.response === true;
  if (hasPath === (url !== undefined)) {
    problems.push({
      message: hasPath
        ? `${at} has both path: and url:; keep path: for a path of the source, or url: for a URL taken from data`
        : `${at} needs path: (a path of the source, such as path: "/users/{args.id}") or url: (a URL from data, such as url: "{parent.url}")`,
      node: use.node,
    });
    return undefined;
  }
  if (response && !isObjectType(getNullableType(ctx.field.type))) {
    problems.push({
      message: `${at}: response: true makes the value {status, headers, body}, so ${ctx.coordinate} needs an object type (a page type with items @from(path: "body")), not ${String(ctx.field.type)}`,
      node: use.node,
    });
  }
  if (url !== undefined && !/^\{(parent|args)\.[^{}]+\}$/.test(url)) {
    problems.push({
      message: `${at}: url "${url}" must be one placeholder holding a whole URL, such as url: "{parent.commentsUrl}"; write path: for a path with parts`,
      node: use.node,
    });
    return undefined;
  }
  const path = url ?? String(use.args.path);
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
  const compiled = compilePathTemplate(url === undefined ? path : `/${path}`, { repeat: use.args.repeat === true });
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
  if (url !== undefined && bound.lists.length > 0) {
    problems.push({ message: `${at}: url "${url}" reads a list; a URL is one string`, node: use.node });
    ok = false;
  }
  // A url: template reads as written (`{parent.commentsUrl}`) in `gqlgw plan` and reload's key prefix.
  const template = url === undefined ? bound.template : { ...bound.template, text: url };
  return ok ? { source, template, select: select ?? undefined, lists: bound.lists, url: url !== undefined, response } : undefined;
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
