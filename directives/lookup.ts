import type { DirectiveNode, GraphQLObjectType } from 'graphql';
import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';
import { compilePathTemplate, bindPlaceholders, type PathTemplate, type Placeholder } from './template.js';
import { stepParent } from './placeholders.js';
import { compileBodyTemplate, type BodyPlaceholder, type BodyTemplate } from './body-template.js';
import { dottedNameHelp, parseDottedName } from './dotted.js';
import { fieldSetLeaves, fieldSetText, parseFieldSet, type FieldSetNode } from './field-set.js';
import { HTTP_METHODS, type CompiledRequest, type HttpMethod } from './request.js';
import { didYouMean } from './suggest.js';
import { checkSourceName } from './source-name.js';

/**
 * `@lookup(key, source, path, method, body, select)` and `@lookupBatch(key, path, match, max,
 * method, body, select, repeat)` on an object type (docs/federation.md):
 * how one object of the type is fetched by its key, and how many are fetched at once. `{key.F}` /
 * `{key.a.b}` read the key's fields and render like `{args.*}`; they are compiled as `{parent.…}`
 * placeholders over the object itself (read through each step's @from), so a lookup is a @fetch
 * whose parent is the object it completes. Pure.
 */

/** A lookup's key: its field set as written, its canonical text, and each leaf's schema and JSON steps. */
export interface LookupKey {
  readonly text: string;
  /** fieldSetText of the key: equal for keys that name the same fields. */
  readonly canonical: string;
  readonly fields: readonly FieldSetNode[];
  /** Each leaf field's schema names, in key order (`study.caseNumber`). */
  readonly leaves: ReadonlyArray<readonly string[]>;
  /** Each leaf's JSON steps in the object (through @from). */
  readonly reads: ReadonlyArray<readonly string[]>;
}

export interface CompiledLookup {
  readonly key: LookupKey;
  readonly source: string;
  readonly template: PathTemplate;
  readonly method: HttpMethod;
  readonly body: CompiledRequest['body'];
  readonly select: readonly string[] | undefined;
  readonly node: DirectiveNode;
}

export interface CompiledLookupBatch {
  readonly key: LookupKey;
  readonly template: PathTemplate;
  /** One dotted item path per key leaf, in key order. */
  readonly match: string;
  readonly matchSteps: ReadonlyArray<readonly string[]>;
  readonly max: number;
  readonly method: 'GET' | 'POST';
  readonly body: BodyTemplate | undefined;
  readonly select: readonly string[] | undefined;
  readonly node: DirectiveNode;
}

/** What a lookup's directives may refer to: the type and the field-level context placeholders use. */
export interface LookupContext {
  readonly type: GraphQLObjectType;
  readonly sourceNames: readonly string[];
  /** A FieldContext on the type, for stepping `{key.…}` through its fields. */
  readonly fields: FieldContext;
}

const KEY_OPEN = /\{key\./g;

/** The key of a @lookup / @lookupBatch, checked against the type; undefined (and a problem) when it is no field set of it. */
export function compileLookupKey(at: string, use: DirectiveUse, ctx: LookupContext, problems: Problem[]): LookupKey | undefined {
  const text = String(use.args.key);
  const parsed = parseFieldSet(text, ctx.type);
  if (!parsed.ok) {
    problems.push({ message: `${at}: key "${text}" ${parsed.error}`, node: use.node });
    return undefined;
  }
  const leaves = fieldSetLeaves(parsed.fields);
  if (leaves.length === 0) {
    problems.push({ message: `${at}: key "${text}" names no field`, node: use.node });
    return undefined;
  }
  const reads: Array<readonly string[]> = [];
  for (const leaf of leaves) {
    const step = stepParent(leaf, ctx.fields, 'scalar');
    if (typeof step === 'string') {
      problems.push({ message: `${at}: key field ${leaf.join('.')} ${step.replace(/^: /, '')}`, node: use.node });
      return undefined;
    }
    if (step.list) {
      problems.push({ message: `${at}: key field ${leaf.join('.')} is a list; a key is made of single values`, node: use.node });
      return undefined;
    }
    reads.push(step.read);
  }
  return { text, canonical: fieldSetText(parsed.fields), fields: parsed.fields, leaves, reads };
}

/** `@lookup(key, source, path, method, body, select)`. */
export function compileLookup(use: DirectiveUse, ctx: LookupContext, problems: Problem[]): CompiledLookup | undefined {
  const at = `@lookup on ${ctx.type.name}`;
  const before = problems.length;
  const key = compileLookupKey(at, use, ctx, problems);
  const source = String(use.args.source);
  checkSourceName(at, { source, node: use.node }, ctx.sourceNames, problems);
  const methodText = String(use.args.method ?? 'GET');
  const method = HTTP_METHODS.find((m) => m === methodText);
  if (!method)
    problems.push({
      message: `${at}: method "${methodText}" is not one of ${HTTP_METHODS.join(', ')}${didYouMean(methodText, HTTP_METHODS)}`,
      node: use.node,
    });
  const select = compileLookupSelect(at, use, problems);
  if (!key) return undefined;
  const template = compileKeyPath(at, { text: String(use.args.path), node: use.node, key, batch: false }, problems);
  let body: CompiledRequest['body'];
  if (typeof use.args.body === 'string') {
    if (method === 'GET') problems.push({ message: `${at}: a GET sends no body; add method: "POST" or remove body`, node: use.node });
    body = compileKeyBody(at, { text: use.args.body, node: use.node, key }, problems);
  }
  if (problems.length > before || !template || !method || select === null) return undefined;
  return { key, source, template, method, body, select, node: use.node };
}

/** `@lookupBatch(key, path, match, max, method, body, select, repeat)`. */
export function compileLookupBatch(use: DirectiveUse, ctx: LookupContext, problems: Problem[]): CompiledLookupBatch | undefined {
  const at = `@lookupBatch on ${ctx.type.name}`;
  const before = problems.length;
  const key = compileLookupKey(at, use, ctx, problems);
  const max = Number(use.args.max);
  if (!(max >= 1)) problems.push({ message: `${at}: max must be at least 1, found ${max}`, node: use.node });
  const method = String(use.args.method ?? 'GET');
  const bodyText = typeof use.args.body === 'string' ? use.args.body : undefined;
  if (method !== 'GET' && method !== 'POST') {
    problems.push({ message: `${at}: method must be GET or POST, found "${method}"`, node: use.node });
  } else if (method === 'POST' && bodyText === undefined) {
    problems.push({ message: `${at}: a POST batch needs a body holding {keys}, such as body: """{"ids": {keys}}"""`, node: use.node });
  } else if (method === 'GET' && bodyText !== undefined) {
    problems.push({ message: `${at}: a GET batch sends no body; add method: "POST" or remove body`, node: use.node });
  }
  const select = compileLookupSelect(at, use, problems);
  if (!key) return undefined;
  const match = String(use.args.match);
  const parts = match.split(/\s+/).filter((p) => p !== '');
  const matchSteps: Array<readonly string[]> = [];
  for (const part of parts) {
    const steps = parseDottedName(part);
    if (!steps) problems.push({ message: `${at}: match "${part}" is not a dotted name; ${dottedNameHelp('owner.id')}`, node: use.node });
    else matchSteps.push(steps);
  }
  if (parts.length !== key.leaves.length) {
    problems.push({
      message: `${at}: match needs one dotted item path per key field, space-separated in key order (${key.leaves.map((l) => l.join('.')).join(' ')}), found ${parts.length}`,
      node: use.node,
    });
  }
  const template = compileKeyPath(
    at,
    { text: String(use.args.path), node: use.node, key, batch: true, repeat: use.args.repeat === true },
    problems,
  );
  let body: BodyTemplate | undefined;
  if (bodyText !== undefined && method === 'POST') {
    const compiled = compileBodyTemplate(bodyText);
    if (!compiled.ok) problems.push({ message: `${at} has a malformed body: ${compiled.error}`, node: use.node });
    else {
      body = compiled.template;
      for (const p of body.placeholders)
        if (p.kind !== 'keys')
          problems.push({
            message: `${at}: its body takes the objects' keys through {keys}; ${p.text} has no single value in a batch`,
            node: use.node,
          });
    }
  }
  if (template) {
    const keys =
      template.placeholders.filter((p) => p.kind === 'keys').length + (body?.placeholders.filter((p) => p.kind === 'keys').length ?? 0);
    if (keys !== 1)
      problems.push({
        message: `${at} needs exactly one {keys} placeholder in its path${method === 'POST' ? ' or body' : ''}, found ${keys}`,
        node: use.node,
      });
    if (key.leaves.length > 1 && template.placeholders.some((p) => p.kind === 'keys'))
      problems.push({
        message: `${at}: key "${key.text}" has ${key.leaves.length} fields, so its keys go in a body as a JSON array of objects shaped like the key: add method: "POST" and body: """{"keys": {keys}}"""`,
        node: use.node,
      });
  }
  if (problems.length > before || !template || select === null) return undefined;
  return { key, template, match, matchSteps, max, method: method as 'GET' | 'POST', body, select, node: use.node };
}

function compileLookupSelect(at: string, use: DirectiveUse, problems: Problem[]): readonly string[] | undefined | null {
  const text = use.args.select;
  if (text === undefined || text === null) return undefined;
  const steps = parseDottedName(String(text));
  if (steps) return steps;
  problems.push({ message: `${at}: select "${String(text)}" is not a dotted name; ${dottedNameHelp('data.item')}`, node: use.node });
  return null;
}

interface KeyPath {
  readonly text: string;
  readonly node: DirectiveNode;
  readonly key: LookupKey;
  /** A @lookupBatch path: `{keys}` instead of `{key.…}`. */
  readonly batch: boolean;
  readonly repeat?: boolean;
}

/**
 * A lookup path: `{key.F}` placeholders (each a leaf of the key) compiled as `{parent.F}` bound
 * through @from; a batch path takes `{keys}` and no `{key.…}`. No `{args.*}`: a lookup has no arguments.
 */
function compileKeyPath(at: string, path: KeyPath, problems: Problem[]): PathTemplate | undefined {
  const { text, node, key } = path;
  if (/\{parent\./.test(text)) {
    problems.push({ message: `${at}: its path reads the key with {key.F}, not {parent.F}`, node });
    return undefined;
  }
  const compiled = compilePathTemplate(text.replace(KEY_OPEN, '{parent.'), { repeat: path.repeat === true });
  if (!compiled.ok) {
    const error = compiled.error
      .replace(/\{parent\./g, '{key.')
      .replace('use {parent.FIELD}, {args.NAME} or {keys}', path.batch ? 'use {keys}' : 'use {key.FIELD}');
    problems.push({ message: `${at} has a malformed path "${text}": ${error}`, node });
    return undefined;
  }
  let ok = true;
  const leaves = key.leaves.map((l) => l.join('.'));
  const bound = bindPlaceholders(compiled.template, (p: Placeholder) => {
    if (p.kind === 'keys') return p;
    if (p.kind === 'args') {
      problems.push({ message: `${at}: {args.${p.name}}: a lookup has no arguments; read its key with {key.F}`, node });
      ok = false;
      return p;
    }
    if (path.batch) {
      problems.push({ message: `${at}: its path takes the objects' keys through {keys}, not {key.${p.name}}`, node });
      ok = false;
      return p;
    }
    const i = leaves.indexOf(p.name);
    if (i < 0) {
      problems.push({
        message: `${at}: {key.${p.name}} is no field of its key "${key.text}"${didYouMean(p.name, leaves, (n) => `{key.${n}}`)}`,
        node,
      });
      ok = false;
      return p;
    }
    return { ...p, read: key.reads[i]! };
  });
  if (!path.batch && compiled.template.placeholders.some((p) => p.kind === 'keys')) {
    problems.push({ message: `${at}: {keys} belongs in a @lookupBatch path, not in @lookup`, node });
    ok = false;
  }
  return ok ? bound : undefined;
}

/** A @lookup body: a JSON template whose placeholders are the key's `{key.…}`. */
function compileKeyBody(
  at: string,
  body: { readonly text: string; readonly node: DirectiveNode; readonly key: LookupKey },
  problems: Problem[],
): CompiledRequest['body'] {
  const compiled = compileBodyTemplate(body.text.replace(KEY_OPEN, '{parent.'));
  if (!compiled.ok) {
    problems.push({
      message: `${at} has a body that is not a valid JSON template: ${compiled.error.replace(/\{parent\./g, '{key.')}`,
      node: body.node,
    });
    return undefined;
  }
  const leaves = body.key.leaves.map((l) => l.join('.'));
  const parentReads = new Map<BodyPlaceholder, readonly string[]>();
  for (const p of compiled.template.placeholders) {
    const i = p.kind === 'parent' ? leaves.indexOf(p.path.join('.')) : -1;
    if (i < 0) {
      const shown = p.text.replace('{parent.', '{key.');
      problems.push({ message: `${at}: ${shown} in its body is no field of its key "${body.key.text}"`, node: body.node });
      continue;
    }
    parentReads.set(p, body.key.reads[i]!);
  }
  return { template: compiled.template, parentReads };
}
