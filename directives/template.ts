/**
 * The path-template language of @fetch and @batch (docs/reference.md):
 *   /repos/{parent.owner.login}/issues?state={args.filter.state}&ids={keys}
 * `{parent.a.b}` reads field a of the parent and b of that (each step a schema field, read through
 * its @from: the blueprint binds the JSON steps to read, `read`); `{args.a.b}` the field argument a
 * and its input field b (defaults already applied by the caller); `{auth.sub}` a claim of the
 * caller's verified token (docs/observability.md); `{keys}` a batch's keys.
 *
 * Rendering a value:
 * - a scalar is URL-encoded (`encodeURIComponent` of its string form);
 * - a list renders as its elements, each URL-encoded, comma-joined (`a,b`); null elements, and
 *   elements that are objects or lists, are skipped; a list with nothing left counts as empty;
 * - an object is never rendered (a URL never carries JSON): it counts as null.
 * Where the value goes:
 * - in the path part (before `?`), a null or an empty list makes the whole template null: the field
 *   is null and no request is sent;
 * - in a query parameter, a null or an empty list leaves that parameter out;
 * - with `repeat: true`, a query parameter whose whole value is one placeholder (`id={keys}`) and
 *   whose value is a list is repeated once per element (`id=1&id=2`).
 * Optional parts (docs/reference.md): `[`…`]` in the path or in a query value is left out
 * when a placeholder inside it is null (or an empty list); `[[` and `]]` are literal brackets. Only
 * brackets that hold a placeholder are an optional part: `[`…`]` around no placeholder is literal
 * text (`ids[]={keys}`, `page[size]=25`, `filter[status]={args.s}`); groups may nest. A parameter whose value is only
 * optional parts (`q=[a:{args.a}][b:{args.b}]`) is left out when all of them are.
 * Segments: a placeholder value that makes a whole path segment `.`, `..` or empty is never sent
 * (a normalising server would read another path): the resolution is a PathRefusal instead, saying
 * whether an argument or data made it.
 * Pure: no I/O, no knowledge of the gateway.
 */

import { readDotted } from './dotted.js';

export type Placeholder =
  | {
      readonly kind: 'parent' | 'args' | 'auth';
      /** The dotted text after `parent.` / `args.` / `auth.`, e.g. `owner.login`. */
      readonly name: string;
      /** The schema names it steps through: `['owner', 'login']`. */
      readonly steps: readonly string[];
      /**
       * The keys read from the parent object (through each step's @from) or from the arguments.
       * `compilePathTemplate` sets it to `steps`; the blueprint rebinds parent placeholders.
       */
      readonly read: readonly string[];
    }
  | { readonly kind: 'keys' };

export type TemplatePart =
  | { readonly kind: 'text'; readonly text: string }
  | Placeholder
  /** `[`…`]`: left out when a placeholder inside is null. */
  | { readonly kind: 'optional'; readonly parts: readonly TemplatePart[] };

export interface QueryParam {
  /** The literal `name=` prefix and the placeholders of the value (or the whole literal when the parameter has no `=`). */
  readonly parts: readonly TemplatePart[];
  /** Set when the parameter's whole value is one placeholder (`name=` then it): what `repeat` repeats. */
  readonly whole: { readonly prefix: string; readonly placeholder: Placeholder } | undefined;
  /** The value is made only of optional parts: when all are left out, so is the parameter. */
  readonly allOptional: boolean;
}

export interface PathTemplate {
  readonly text: string;
  /** Everything before `?`. */
  readonly path: readonly TemplatePart[];
  /** Each `&`-separated parameter after `?`, in order. */
  readonly query: readonly QueryParam[];
  /** Every placeholder, in order of appearance. */
  readonly placeholders: readonly Placeholder[];
  /** `repeat: true`: a whole-value list parameter repeats per element instead of comma-joining. */
  readonly repeat: boolean;
}

export type CompileResult = { ok: true; template: PathTemplate } | { ok: false; error: string };

export interface CompileOptions {
  readonly repeat?: boolean;
}

/** Parses a template, or says precisely what is malformed. */
export function compilePathTemplate(text: string, options: CompileOptions = {}): CompileResult {
  if (!text.startsWith('/')) return { ok: false, error: `must start with "/"` };
  const q = text.indexOf('?');
  const pathText = q < 0 ? text : text.slice(0, q);
  const queryText = q < 0 ? '' : text.slice(q + 1);
  const placeholders: Placeholder[] = [];
  const path = parseParts(pathText, 0, placeholders);
  if (typeof path === 'string') return { ok: false, error: path };
  const query: QueryParam[] = [];
  if (queryText !== '') {
    let offset = q + 1;
    for (const param of queryText.split('&')) {
      const parts = parseParts(param, offset, placeholders);
      if (typeof parts === 'string') return { ok: false, error: parts };
      const eq = param.indexOf('=');
      const brace = param.indexOf('{');
      if (brace >= 0 && (eq < 0 || brace < eq)) {
        return { ok: false, error: `placeholder in a query parameter name at offset ${offset + brace}` };
      }
      query.push({ parts, whole: wholeValue(parts), allOptional: allOptional(parts) });
      offset += param.length + 1;
    }
  }
  return { ok: true, template: { text, path, query, placeholders, repeat: options.repeat === true } };
}

/** `name=[…][…]`: a name, then nothing but optional parts. */
function allOptional(parts: readonly TemplatePart[]): boolean {
  const [first, ...rest] = parts;
  return first?.kind === 'text' && first.text.endsWith('=') && rest.length > 0 && rest.every((p) => p.kind === 'optional');
}

function wholeValue(parts: readonly TemplatePart[]): QueryParam['whole'] {
  if (parts.length !== 2) return undefined;
  const [first, second] = parts as [TemplatePart, TemplatePart];
  if (first.kind !== 'text' || !first.text.endsWith('=') || first.text.indexOf('=') !== first.text.length - 1) return undefined;
  if (second.kind === 'text' || second.kind === 'optional') return undefined;
  return { prefix: first.text, placeholder: second };
}

/**
 * The same template with each `{parent.*}` / `{args.*}` placeholder replaced by `bind(p)` (for
 * instance its `read` steps set through @from), everywhere it appears.
 */
export function bindPlaceholders(template: PathTemplate, bind: (p: Placeholder) => Placeholder): PathTemplate {
  const bound = new Map<Placeholder, Placeholder>();
  for (const p of template.placeholders) bound.set(p, p.kind === 'keys' ? p : bind(p));
  const part = (t: TemplatePart): TemplatePart =>
    t.kind === 'text' ? t : t.kind === 'optional' ? { kind: 'optional', parts: t.parts.map(part) } : bound.get(t)!;
  return {
    ...template,
    path: template.path.map(part),
    query: template.query.map((param) => ({
      parts: param.parts.map(part),
      whole: param.whole && { prefix: param.whole.prefix, placeholder: bound.get(param.whole.placeholder)! },
      allOptional: param.allOptional,
    })),
    placeholders: template.placeholders.map((p) => bound.get(p)!),
  };
}

/**
 * The parts of a path or of one query parameter: text, placeholders and `[`…`]` optional parts
 * (`[[` / `]]` are literal brackets). `offset` places error messages in the whole template.
 */
function parseParts(text: string, offset: number, placeholders: Placeholder[]): TemplatePart[] | string {
  const groups: TemplatePart[][] = [[]];
  const opens: number[] = [];
  let literal = '';
  const flush = (): void => {
    if (literal !== '') groups[groups.length - 1]!.push({ kind: 'text', text: literal });
    literal = '';
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if ((c === '[' || c === ']') && text[i + 1] === c) {
      literal += c;
      i += 2;
      continue;
    }
    if (c === '[') {
      flush();
      groups.push([]);
      opens.push(i);
      i++;
      continue;
    }
    if (c === ']') {
      const open = opens.pop();
      if (open === undefined) return `unmatched "]" at offset ${offset + i} (write "]]" for a literal "]")`;
      flush();
      const parts = groups.pop()!;
      const parent = groups[groups.length - 1]!;
      i++;
      if (parts.some(holdsPlaceholder)) {
        parent.push({ kind: 'optional', parts });
        continue;
      }
      // Brackets around no placeholder are literal (`ids[]=`, `page[size]=25`): text, joined to the text before.
      const before = parent[parent.length - 1];
      if (before?.kind === 'text') parent.pop();
      literal = (before?.kind === 'text' ? before.text : '') + '[' + parts.map((p) => (p as { text: string }).text).join('') + ']';
      continue;
    }
    if (c === '}') return `unmatched "}" at offset ${offset + i}`;
    if (c !== '{') {
      literal += c;
      i++;
      continue;
    }
    const end = text.indexOf('}', i);
    if (end < 0) return `unclosed "{" at offset ${offset + i}`;
    const placeholder = parsePlaceholder(text.slice(i + 1, end));
    if (typeof placeholder === 'string') return `${placeholder} at offset ${offset + i}`;
    flush();
    groups[groups.length - 1]!.push(placeholder);
    placeholders.push(placeholder);
    i = end + 1;
  }
  if (opens.length > 0) return `unclosed "[" at offset ${offset + opens[opens.length - 1]!} (write "[[" for a literal "[")`;
  flush();
  return groups[0]!;
}

function holdsPlaceholder(part: TemplatePart): boolean {
  return part.kind === 'optional' ? part.parts.some(holdsPlaceholder) : part.kind !== 'text';
}

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** The placeholders of a path or body template besides `{keys}`: `{parent.F}`, `{args.A}` (`{result.F}` is @invalidate's `{parent.F}`). */
export const PLACEHOLDER_NAMESPACES: readonly string[] = ['parent', 'args', 'auth'];

function parsePlaceholder(inner: string): Placeholder | string {
  if (inner === 'keys') return { kind: 'keys' };
  if (inner.includes('{')) return `nested "{" in "{${inner}"`;
  const dot = inner.indexOf('.');
  const ns = dot < 0 ? inner : inner.slice(0, dot);
  const name = dot < 0 ? '' : inner.slice(dot + 1);
  if (!PLACEHOLDER_NAMESPACES.includes(ns)) {
    return `unknown placeholder "{${inner}}" (use {parent.FIELD}, {args.NAME} or {keys})`;
  }
  const steps = name.split('.');
  if (!steps.every((s) => NAME.test(s))) {
    return `placeholder "{${inner}}" needs field or argument names after "${ns}.", joined by "." (such as {${ns}.a.b})`;
  }
  return { kind: ns as 'parent' | 'args', name, steps, read: steps };
}

/** Marks "no single key": `{parent.*}` reads the parent as usual. */
export const NO_KEY: unique symbol = Symbol('no key');

/**
 * What a template is resolved against. One object may be reused (its fields reassigned) for many
 * resolutions: nothing keeps a reference to it.
 */
export interface TemplateInput {
  /** The parent JSON object `{parent.*}` reads. */
  readonly parent: unknown;
  /** The field's argument values, defaults applied; `{args.*}` reads them. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The original values of a batch's keys, for `{keys}`; undefined outside a batch path. */
  readonly keys: readonly unknown[] | undefined;
  /** Unless NO_KEY, the value every `{parent.*}` renders: one element of a list of keys. */
  readonly key: unknown;
  /** The verified token's claims, for `{auth.*}`; undefined without a valid token. */
  readonly auth?: unknown;
  /** With `key` set: `{args.*}` renders it instead (a @batch keyed by its @fetch's one `{args.A}`). */
  readonly keyIsArgs?: boolean;
}

/** The value a placeholder stands for in `input` (undefined counts as null). */
export function placeholderValue(p: Placeholder, input: TemplateInput): unknown {
  if (p.kind === 'keys') return input.keys;
  if (p.kind === 'parent') return input.key !== NO_KEY ? input.key : readDotted(input.parent, p.read);
  if (p.kind === 'auth') return readDotted(input.auth, p.read);
  return input.keyIsArgs === true && input.key !== NO_KEY ? input.key : readDotted(input.args, p.read);
}

/**
 * Why a template resolved to no request although none of its path placeholders is null: a value
 * would make a whole path segment `.`, `..` or empty. `from` says whose value it was: a field
 * argument (`args`, the caller's mistake) or data (`parent` / `keys`, the upstream's).
 */
export interface PathRefusal {
  /** `url`: a `@fetch(url:)` value that is no URL of the source (directives/url-link.ts). */
  readonly from: 'args' | 'data' | 'url';
}
const REFUSED_ARGS: PathRefusal = Object.freeze({ from: 'args' });
const REFUSED_DATA: PathRefusal = Object.freeze({ from: 'data' });

/**
 * Where placeholder values went in the path being resolved: start, end and whether an argument
 * made it. Reused by every resolution (resolution is synchronous), so resolving allocates nothing.
 */
const marks = { start: [] as number[], end: [] as number[], args: [] as boolean[], length: 0 };

/**
 * Resolves a template to `path?query`; null when a path-part placeholder (outside an optional
 * part) is null or an empty list; a PathRefusal when a value would make a whole path segment
 * `.`, `..` or empty.
 */
export function resolvePathTemplate(template: PathTemplate, input: TemplateInput): string | null | PathRefusal {
  marks.length = 0;
  let out = renderParts(template.path, input, '', true);
  if (out === null) return null;
  if (marks.length > 0) {
    const refusal = segmentRefusal(out);
    if (refusal) return refusal;
  }
  let sep = '?';
  for (const param of template.query) {
    if (template.repeat && param.whole) {
      const value = placeholderValue(param.whole.placeholder, input);
      if (Array.isArray(value)) {
        for (const element of value) {
          if (!isScalar(element)) continue;
          out += sep + param.whole.prefix + encodeScalar(element);
          sep = '&';
        }
        continue;
      }
    }
    const piece = renderParts(param.parts, input, '', false);
    if (piece === null || piece === '' || (param.allOptional && piece === (param.parts[0] as { text: string }).text)) continue;
    out += sep + piece;
    sep = '&';
  }
  return out;
}

/**
 * Appends `parts` to `out`: null when a placeholder is null (an optional part with one is left
 * out instead). With `mark`, where each placeholder value went is recorded in `marks`.
 */
function renderParts(parts: readonly TemplatePart[], input: TemplateInput, out: string, mark: boolean): string | null {
  for (const part of parts) {
    if (part.kind === 'text') {
      out += part.text;
      continue;
    }
    if (part.kind === 'optional') {
      const before = marks.length;
      const withPart = renderParts(part.parts, input, out, mark);
      if (withPart !== null) out = withPart;
      else marks.length = before;
      continue;
    }
    const piece = renderValue(placeholderValue(part, input));
    if (piece === null) return null;
    if (mark) {
      const n = marks.length++;
      marks.start[n] = out.length;
      marks.end[n] = out.length + piece.length;
      marks.args[n] = part.kind === 'args';
    }
    out += piece;
  }
  return out;
}

/** The refusal when a placeholder value (see `marks`) lies in a path segment that is `.`, `..` or empty. */
function segmentRefusal(path: string): PathRefusal | undefined {
  for (let n = 0; n < marks.length; n++) {
    const start = path.lastIndexOf('/', marks.start[n]! - 1) + 1;
    let end = path.indexOf('/', marks.end[n]!);
    if (end < 0) end = path.length;
    const size = end - start;
    if (size === 0 || (size <= 2 && path.charCodeAt(start) === 46 && path.charCodeAt(end - 1) === 46)) {
      // A segment several values share: an argument among them makes it the caller's.
      for (let m = 0; m < marks.length; m++) {
        if (marks.args[m] && marks.start[m]! >= start && marks.end[m]! <= end) return REFUSED_ARGS;
      }
      return REFUSED_DATA;
    }
  }
  return undefined;
}

/** A value as it goes into a URL, or null when it leaves its place out (null, object, empty list). */
function renderValue(value: unknown): string | null {
  if (isScalar(value)) return encodeScalar(value);
  if (!Array.isArray(value)) return null;
  let out = '';
  let any = false;
  for (const element of value) {
    if (!isScalar(element)) continue;
    out += any ? ',' + encodeScalar(element) : encodeScalar(element);
    any = true;
  }
  return any ? out : null;
}

type Scalar = string | number | boolean | bigint;

function isScalar(value: unknown): value is Scalar {
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'boolean' || t === 'bigint';
}

/** Characters encodeURIComponent leaves as they are; a value made only of them is its own encoding. */
const UNRESERVED = /^[A-Za-z0-9_.!~*'()-]*$/;

function encodeScalar(value: Scalar): string {
  const text = typeof value === 'string' ? value : String(value);
  // Ids are mostly plain: testing is cheaper than encoding, and gives the same string.
  return text.length <= 64 && UNRESERVED.test(text) ? text : encodeURIComponent(text);
}

/**
 * The string form of a key (what @batch compares and dedupes by): a scalar's String(); undefined
 * for null, objects and lists, which are never keys.
 */
export function keyString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return isScalar(value) ? String(value) : undefined;
}
