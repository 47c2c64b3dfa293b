import { isListType, isNonNullType, type DirectiveNode } from 'graphql';
import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';
import { compileSelect, type CompiledFetch } from './fetch.js';
import { compilePathTemplate, type PathTemplate } from './template.js';
import { bindTemplate } from './placeholders.js';
import { dottedNameHelp, parseDottedName } from './dotted.js';
import { compileBodyTemplate, type BodyTemplate } from './body-template.js';

export interface CompiledBatch {
  readonly template: PathTemplate;
  /** The dotted item field whose string form is matched against the key, as written and as steps. */
  readonly match: string;
  readonly matchSteps: readonly string[];
  readonly max: number;
  /** The JSON steps of the @fetch path's key placeholder: where each lookup's batch key is read. */
  readonly keyRead: readonly string[];
  /**
   * Where the key is read: `parent` for the @fetch path's single `{parent.*}`; `args` when the
   * path's one placeholder is `{args.A}` (root fields and aliases: `user(id:)`).
   */
  readonly keyFrom: 'parent' | 'args';
  /** That key is a list (`tagIds: [ID!]!`): each element is a key; the field is a list of the matched items. */
  readonly listKeys: boolean;
  /** `select: "data.users"`: where the item array is inside the answer; undefined: the answer is the array. */
  readonly select: readonly string[] | undefined;
  readonly method: 'GET' | 'POST';
  /** The JSON body template of a POST batch (`{"ids": {keys}}`, directives/body-template.ts). */
  readonly body: BodyTemplate | undefined;
}

/** The @fetch beside a @batch: whether the field has one, and what it compiled to (undefined when it is malformed). */
export interface FetchBeside {
  readonly hasFetch: boolean;
  readonly fetch: CompiledFetch | undefined;
}

const METHODS = ['GET', 'POST'];
/** Why a batched field reads no claim in its paths or body: one caller's claim has no place in keys shared by many. */
const AUTH_IN_BATCH =
  'cannot be part of a batched field\'s paths or body (a batch shares keys, not callers); send the claim as a source header instead: [sources.NAME] headers = { "x-user" = "{auth.sub}" }';

/**
 * `@batch(path, match, max, method, body, select, repeat)`: beside a @fetch whose path holds
 * exactly one `{parent.*}`, or whose one placeholder is `{args.A}` (a scalar or a list of them);
 * its own path, or its POST body, holds exactly one `{keys}`.
 */
export function compileBatch(use: DirectiveUse, beside: FetchBeside, ctx: FieldContext, problems: Problem[]): CompiledBatch | undefined {
  const { fetch, hasFetch } = beside;
  const at = `@batch on ${ctx.coordinate}`;
  const path = String(use.args.path);
  const match = String(use.args.match);
  const max = Number(use.args.max);
  const method = String(use.args.method ?? 'GET');
  const body = typeof use.args.body === 'string' ? use.args.body : undefined;
  const before = problems.length;
  const where = { at, node: use.node };
  const matchSteps = checkArguments(where, { hasFetch, max, match, method, body }, problems);
  const select = compileSelect('@batch', use, ctx, problems);
  const key = fetch && batchKey(fetch, where, ctx, problems);
  const { keyRead, keyFrom, listKeys } = key ?? { keyRead: undefined, keyFrom: 'parent', listKeys: false };
  const compiled = compilePathTemplate(path, { repeat: use.args.repeat === true });
  if (!compiled.ok) {
    problems.push({ message: `${at} has a malformed path "${path}": ${compiled.error}`, node: use.node });
    return undefined;
  }
  const bodyTemplate = body === undefined || method !== 'POST' ? undefined : compileBatchBody(body, where, ctx, problems);
  const keys =
    compiled.template.placeholders.filter((p) => p.kind === 'keys').length +
    (bodyTemplate?.placeholders.filter((p) => p.kind === 'keys').length ?? 0);
  if (keys !== 1) {
    problems.push({
      message: `${at} needs exactly one {keys} placeholder in its path${method === 'POST' ? ' or body' : ''}, found ${keys}`,
      node: use.node,
    });
  }
  if (compiled.template.placeholders.some((p) => p.kind === 'parent')) {
    problems.push({ message: `${at}: its path takes the parents' keys through {keys}, not {parent.*}`, node: use.node });
  }
  const authIn = [...(fetch?.template.placeholders ?? []), ...compiled.template.placeholders].find((p) => p.kind === 'auth');
  if (authIn && authIn.kind === 'auth') problems.push({ message: `${at}: {auth.${authIn.name}} ${AUTH_IN_BATCH}`, node: use.node });
  const bound = bindTemplate('@batch', compiled.template, ctx);
  for (const message of bound.messages) problems.push({ message, node: use.node });
  if (problems.length > before || keyRead === undefined || !matchSteps || select === null || (method === 'POST' && !bodyTemplate))
    return undefined;
  return {
    template: bound.template,
    match,
    matchSteps,
    max,
    keyRead,
    keyFrom,
    listKeys,
    select,
    method: method as 'GET' | 'POST',
    body: bodyTemplate,
  };
}

/** Where a problem of one @batch is: its name for messages and its directive. */
interface BatchPlace {
  readonly at: string;
  readonly node: DirectiveNode;
}

/** The problems of @batch's own arguments (and of a missing @fetch); returns `match` as steps when it is a dotted name. */
function checkArguments(
  { at, node }: BatchPlace,
  args: { hasFetch: boolean; max: number; match: string; method: string; body: string | undefined },
  problems: Problem[],
): readonly string[] | undefined {
  const { hasFetch, max, match, method, body } = args;
  if (!hasFetch) {
    problems.push({ message: `${at} needs a @fetch beside it: the single fetch whose key each item is cached under`, node });
  }
  if (!(max >= 1)) problems.push({ message: `${at}: max must be at least 1, found ${max}`, node });
  const matchSteps = parseDottedName(match);
  if (match === '') problems.push({ message: `${at}: match must name the item field that carries the key`, node });
  else if (!matchSteps) problems.push({ message: `${at}: match "${match}" is not a dotted name; ${dottedNameHelp('owner.id')}`, node });
  if (!METHODS.includes(method)) {
    problems.push({ message: `${at}: method must be GET or POST, found "${method}"`, node });
  } else if (method === 'POST' && body === undefined) {
    problems.push({ message: `${at}: a POST batch needs a body holding {keys}, such as body: """{"ids": {keys}}"""`, node });
  } else if (method === 'GET' && body !== undefined) {
    problems.push({ message: `${at}: a GET batch sends no body; add method: "POST" or remove body`, node });
  }
  return matchSteps;
}

/**
 * The key of each lookup, from the @fetch beside: its one `{parent.*}`, or its only placeholder
 * `{args.A}`; undefined (with a problem) when there is no such placeholder.
 */
function batchKey(
  fetch: CompiledFetch,
  { at, node }: BatchPlace,
  ctx: FieldContext,
  problems: Problem[],
): Pick<CompiledBatch, 'keyRead' | 'keyFrom' | 'listKeys'> | undefined {
  const all = fetch.template.placeholders;
  const parents = all.filter((p) => p.kind === 'parent');
  const key =
    parents.length === 1 ? parents[0]! : parents.length === 0 && all.length === 1 && all[0]!.kind === 'args' ? all[0]! : undefined;
  if (key === undefined || key.kind === 'keys' || key.kind === 'auth') {
    const args = all.filter((p) => p.kind === 'args').length;
    const or = parents.length === 0 && args > 1 ? `, or one {args.*} as its only placeholder, found ${args} {args.*}` : '';
    problems.push({
      message: `${at} needs exactly one {parent.*} placeholder in its @fetch path${or}${or ? '' : `, found ${parents.length}`}`,
      node,
    });
    return undefined;
  }
  const listKeys = fetch.lists.includes(key);
  const type = isNonNullType(ctx.field.type) ? ctx.field.type.ofType : ctx.field.type;
  if (listKeys && !isListType(type)) {
    problems.push({
      message: `${at}: {${key.kind}.${key.name}} is a list, so each element is a key and the value is the list of matched items; declare ${ctx.coordinate} as a list ([${String(type)}])`,
      node,
    });
  }
  return { keyRead: key.read, keyFrom: key.kind, listKeys };
}

/** A POST batch's body: a JSON template whose placeholders are `{keys}` and the field's `{args.*}`. */
function compileBatchBody(body: string, where: BatchPlace, ctx: FieldContext, problems: Problem[]): BodyTemplate | undefined {
  const { at, node } = where;
  const compiled = compileBodyTemplate(body);
  if (!compiled.ok) {
    problems.push({ message: `${at} has a malformed body: ${compiled.error}`, node });
    return undefined;
  }
  let ok = true;
  for (const p of compiled.template.placeholders) {
    if (p.kind === 'auth') {
      problems.push({ message: `${at}: ${p.text} ${AUTH_IN_BATCH}`, node });
      ok = false;
    } else if (p.kind === 'parent' || p.kind === 'result') {
      problems.push({ message: `${at}: its body takes the parents' keys through {keys}; ${p.text} has no single value in a batch`, node });
      ok = false;
    } else if (p.kind === 'args' && !ctx.field.args.some((a) => a.name === p.path[0])) {
      const names = ctx.field.args.map((a) => a.name);
      problems.push({
        message: `${at}: ${p.text} in its body names no argument of ${ctx.coordinate} (arguments: ${names.join(', ') || 'none'})`,
        node,
      });
      ok = false;
    }
  }
  return ok ? compiled.template : undefined;
}
