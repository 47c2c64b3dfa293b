/**
 * The path-template language of @fetch and @batch (SPEC.md, "Directives"):
 *   /users/{parent.authorId}?limit={args.limit}&ids={keys}
 * `{parent.F}` reads field F of the parent, `{args.A}` the field argument A, `{keys}` the
 * comma-separated keys of a batch. Values are URL-encoded. A placeholder in the path part that
 * resolves to null makes the whole template null (no request); a query parameter whose value holds
 * a null placeholder is left out. Pure: no I/O, no knowledge of the gateway.
 */

export type Placeholder =
  | { readonly kind: 'parent'; readonly name: string }
  | { readonly kind: 'args'; readonly name: string }
  | { readonly kind: 'keys' };

export type TemplatePart = { readonly kind: 'text'; readonly text: string } | Placeholder;

export interface QueryParam {
  /** The literal `name=` prefix (or the whole literal when the parameter has no `=`). */
  readonly parts: readonly TemplatePart[];
}

export interface PathTemplate {
  readonly text: string;
  /** Everything before `?`. */
  readonly path: readonly TemplatePart[];
  /** Each `&`-separated parameter after `?`, in order. */
  readonly query: readonly QueryParam[];
  /** Every placeholder, in order of appearance. */
  readonly placeholders: readonly Placeholder[];
}

export type CompileResult = { ok: true; template: PathTemplate } | { ok: false; error: string };

/** Parses a template, or says precisely what is malformed. */
export function compilePathTemplate(text: string): CompileResult {
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
      query.push({ parts });
      offset += param.length + 1;
    }
  }
  return { ok: true, template: { text, path, query, placeholders } };
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
  const dot = inner.indexOf('.');
  const ns = dot < 0 ? inner : inner.slice(0, dot);
  const name = dot < 0 ? '' : inner.slice(dot + 1);
  if (inner.includes('{')) return `nested "{" in "{${inner}"`;
  if (ns !== 'parent' && ns !== 'args') {
    return `unknown placeholder "{${inner}}" (use {parent.FIELD}, {args.NAME} or {keys})`;
  }
  if (!NAME.test(name)) return `placeholder "{${inner}}" needs a field or argument name after "${ns}."`;
  return { kind: ns, name };
}

/** Supplies placeholder values while a template is resolved. `undefined` counts as null. */
export type PlaceholderValues = (placeholder: Placeholder) => unknown;

/** Supplies the already-encoded value of `{keys}`. */
const NO_KEYS = '';

/**
 * Resolves a template to `path?query`, or null when a path-part placeholder is null.
 * `keys` is the already-encoded, comma-joined key list for `{keys}`.
 */
export function resolvePathTemplate(
  template: PathTemplate,
  values: PlaceholderValues,
  keys: string = NO_KEYS,
): string | null {
  let out = '';
  for (const part of template.path) {
    const piece = resolvePart(part, values, keys);
    if (piece === null) return null;
    out += piece;
  }
  let sep = '?';
  for (const param of template.query) {
    let piece = '';
    for (const part of param.parts) {
      const p = resolvePart(part, values, keys);
      if (p === null) {
        piece = '';
        break;
      }
      piece += p;
    }
    if (piece === '') continue;
    out += sep + piece;
    sep = '&';
  }
  return out;
}

function resolvePart(part: TemplatePart, values: PlaceholderValues, keys: string): string | null {
  if (part.kind === 'text') return part.text;
  if (part.kind === 'keys') return keys;
  const value = values(part);
  if (value === null || value === undefined) return null;
  return encodeTemplateValue(value);
}

/** The string form of a key or placeholder value: scalars as String(), anything else as JSON. */
export function templateValueString(value: unknown): string {
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function encodeTemplateValue(value: unknown): string {
  return encodeURIComponent(templateValueString(value));
}
