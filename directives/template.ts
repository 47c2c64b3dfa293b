/**
 * The path-template language of @fetch and @batch (SPEC.md, "Directives"):
 *   /repos/{parent.owner.login}/issues?state={args.filter.state}&ids={keys}
 * `{parent.a.b}` reads field a of the parent and b of that (each step a schema field, read through
 * its @from: the blueprint binds the JSON steps to read, `read`); `{args.a.b}` the field argument a
 * and its input field b (defaults already applied by the caller); `{keys}` a batch's keys.
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
 * Pure: no I/O, no knowledge of the gateway.
 */

import { readDotted } from './dotted.js';

export type Placeholder =
  | {
      readonly kind: 'parent' | 'args';
      /** The dotted text after `parent.` / `args.`, e.g. `owner.login`. */
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

export type TemplatePart = { readonly kind: 'text'; readonly text: string } | Placeholder;

export interface QueryParam {
  /** The literal `name=` prefix and the placeholders of the value (or the whole literal when the parameter has no `=`). */
  readonly parts: readonly TemplatePart[];
  /** Set when the parameter's whole value is one placeholder (`name=` then it): what `repeat` repeats. */
  readonly whole: { readonly prefix: string; readonly placeholder: Placeholder } | undefined;
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
      query.push({ parts, whole: wholeValue(parts) });
      offset += param.length + 1;
    }
  }
  return { ok: true, template: { text, path, query, placeholders, repeat: options.repeat === true } };
}

function wholeValue(parts: readonly TemplatePart[]): QueryParam['whole'] {
  if (parts.length !== 2) return undefined;
  const [first, second] = parts as [TemplatePart, TemplatePart];
  if (first.kind !== 'text' || !first.text.endsWith('=') || first.text.indexOf('=') !== first.text.length - 1) return undefined;
  if (second.kind === 'text') return undefined;
  return { prefix: first.text, placeholder: second };
}

/**
 * The same template with each `{parent.*}` / `{args.*}` placeholder replaced by `bind(p)` (for
 * instance its `read` steps set through @from), everywhere it appears.
 */
export function bindPlaceholders(template: PathTemplate, bind: (p: Placeholder) => Placeholder): PathTemplate {
  const bound = new Map<Placeholder, Placeholder>();
  for (const p of template.placeholders) bound.set(p, p.kind === 'keys' ? p : bind(p));
  const part = (t: TemplatePart): TemplatePart => (t.kind === 'text' ? t : bound.get(t)!);
  return {
    ...template,
    path: template.path.map(part),
    query: template.query.map((param) => ({
      parts: param.parts.map(part),
      whole: param.whole && { prefix: param.whole.prefix, placeholder: bound.get(param.whole.placeholder)! },
    })),
    placeholders: template.placeholders.map((p) => bound.get(p)!),
  };
}

function parseParts(text: string, offset: number, placeholders: Placeholder[]): TemplatePart[] | string {
  const parts: TemplatePart[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{', i);
    const close = text.indexOf('}', i);
    if (close >= 0 && (open < 0 || close < open)) return `unmatched "}" at offset ${offset + close}`;
    if (open < 0) {
      parts.push({ kind: 'text', text: text.slice(i) });
      break;
    }
    if (open > i) parts.push({ kind: 'text', text: text.slice(i, open) });
    const end = text.indexOf('}', open);
    if (end < 0) return `unclosed "{" at offset ${offset + open}`;
    const inner = text.slice(open + 1, end);
    const placeholder = parsePlaceholder(inner);
    if (typeof placeholder === 'string') return `${placeholder} at offset ${offset + open}`;
    parts.push(placeholder);
    placeholders.push(placeholder);
    i = end + 1;
  }
  return parts;
}

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

function parsePlaceholder(inner: string): Placeholder | string {
  if (inner === 'keys') return { kind: 'keys' };
  if (inner.includes('{')) return `nested "{" in "{${inner}"`;
  const dot = inner.indexOf('.');
  const ns = dot < 0 ? inner : inner.slice(0, dot);
  const name = dot < 0 ? '' : inner.slice(dot + 1);
  if (ns !== 'parent' && ns !== 'args') {
    return `unknown placeholder "{${inner}}" (use {parent.FIELD}, {args.NAME} or {keys})`;
  }
  const steps = name.split('.');
  if (!steps.every((s) => NAME.test(s))) {
    return `placeholder "{${inner}}" needs field or argument names after "${ns}.", joined by "." (such as {${ns}.a.b})`;
  }
  return { kind: ns, name, steps, read: steps };
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
  /** With `key` set: `{args.*}` renders it instead (a @batch keyed by its @fetch's one `{args.A}`). */
  readonly keyIsArgs?: boolean;
}

/** The value a placeholder stands for in `input` (undefined counts as null). */
export function placeholderValue(p: Placeholder, input: TemplateInput): unknown {
  if (p.kind === 'keys') return input.keys;
  if (p.kind === 'parent') return input.key !== NO_KEY ? input.key : readDotted(input.parent, p.read);
  return input.keyIsArgs === true && input.key !== NO_KEY ? input.key : readDotted(input.args, p.read);
}

/** Resolves a template to `path?query`, or null when a path-part placeholder is null or an empty list. */
export function resolvePathTemplate(template: PathTemplate, input: TemplateInput): string | null {
  let out = '';
  for (const part of template.path) {
    if (part.kind === 'text') {
      out += part.text;
      continue;
    }
    const piece = renderValue(placeholderValue(part, input));
    if (piece === null) return null;
    out += piece;
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
    let piece = '';
    let keep = true;
    for (const part of param.parts) {
      if (part.kind === 'text') {
        piece += part.text;
        continue;
      }
      const p = renderValue(placeholderValue(part, input));
      if (p === null) {
        keep = false;
        break;
      }
      piece += p;
    }
    if (!keep || piece === '') continue;
    out += sep + piece;
    sep = '&';
  }
  return out;
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
