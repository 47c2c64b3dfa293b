/**
 * The JSON body templates of `@fetch(body:)` and `@batch(body:)` (docs/reference.md):
 *
 *   {"title": {args.input.title}, "tags": {args.tags}, "note": "by {parent.author.login}", "ids": {keys}}
 *
 * `{args.…}`, `{parent.…}`, `{result.…}`, `{auth.…}` (a claim of the caller's token; dotted: each
 * step a name) and `{keys}` are placeholders;
 * everything else is literal JSON text. Where a placeholder stands decides how it renders:
 * - outside a JSON string it is a JSON value: an object as an object, a list as an array, a
 *   string quoted, null or a missing value as `null`; except that an object member whose whole
 *   value is an `{args.…}` the caller did not give is left out of its object (absent is not null);
 * - inside a JSON string it is that string's escaped content: a scalar's string form, an object or
 *   list as its JSON text, null or a missing value as nothing.
 * A template compiles only when it is valid JSON whatever its placeholders hold (checked by
 * rendering it with null for every value-placeholder and parsing the result). Outside strings a
 * `{word}` that looks like a placeholder but is none is refused with its offset; inside a string
 * only the five namespaces are placeholders, so `"{name}"` stays literal text.
 *
 * The placeholder parser is this file's own: the path templates (template.ts) parse theirs for
 * URLs; both take the same names (`args`, `parent`, `keys`; `result` only here).
 * Pure: no I/O, no knowledge of the gateway.
 */

export type BodyPlaceholder =
  | { readonly kind: 'args' | 'parent' | 'result' | 'auth'; readonly path: readonly string[]; readonly text: string }
  | { readonly kind: 'keys'; readonly path: readonly string[]; readonly text: string };

/** A compiled part: literal text, or a placeholder with where it stands. */
export type BodyPart =
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'slot';
      readonly placeholder: BodyPlaceholder;
      readonly inString: boolean;
      /**
       * Set when the slot is the whole value of an object member and reads `{args.…}`: the member's
       * text before the value (`, "key": `, or `"key": ` for an object's first member). The member
       * is left out when the caller gave no value (undefined), and written with `null` when given null.
       */
      readonly member?: string;
    };

export interface BodyTemplate {
  readonly text: string;
  readonly parts: readonly BodyPart[];
  /** Every placeholder, in order of appearance. */
  readonly placeholders: readonly BodyPlaceholder[];
}

export type BodyCompileResult = { readonly ok: true; readonly template: BodyTemplate } | { readonly ok: false; readonly error: string };

/** Supplies placeholder values while a body is rendered. `undefined` counts as null. */
export type BodyValues = (placeholder: BodyPlaceholder) => unknown;

const NAMESPACES = new Set(['args', 'parent', 'result', 'keys', 'auth']);
/** Something that reads like a placeholder: `{` then names joined by dots, then `}`. */
const PLACEHOLDER_LIKE = /\{([_A-Za-z][_0-9A-Za-z]*(?:\.[^{}"\s]*)*)\}/y;
const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** Parses a body template, or says precisely what is wrong with it. */
export function compileBodyTemplate(text: string): BodyCompileResult {
  const parts: BodyPart[] = [];
  const placeholders: BodyPlaceholder[] = [];
  let literal = '';
  let inString = false;
  let escaped = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (inString && escaped) {
      escaped = false;
      literal += c;
      i++;
      continue;
    }
    if (c === '{') {
      PLACEHOLDER_LIKE.lastIndex = i;
      const m = PLACEHOLDER_LIKE.exec(text);
      if (m) {
        const inner = m[1]!;
        const parsed = parseBodyPlaceholder(inner);
        if (typeof parsed !== 'string') {
          if (literal !== '') parts.push({ kind: 'text', text: literal });
          literal = '';
          parts.push({ kind: 'slot', placeholder: parsed, inString });
          placeholders.push(parsed);
          i += m[0].length;
          continue;
        }
        // Inside a string only the placeholder namespaces are reserved; other braces are text.
        const ns = inner.split('.')[0]!;
        if (!inString || NAMESPACES.has(ns)) return { ok: false, error: `${parsed} at offset ${i}` };
      }
    }
    if (inString) {
      if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    }
    literal += c;
    i++;
  }
  if (literal !== '') parts.push({ kind: 'text', text: literal });
  const template: BodyTemplate = { text, parts: withMembers(parts), placeholders };
  try {
    JSON.parse(renderBodyTemplate(template, () => null));
    JSON.parse(renderBodyTemplate(template, () => undefined));
  } catch (err) {
    return { ok: false, error: `not valid JSON once its placeholders are filled in (${(err as Error).message})` };
  }
  return { ok: true, template };
}

/** The text before a member's value at the end of a literal: an optional comma, the key, the colon. */
const MEMBER_LEAD = /(\s*,\s*)?"(?:[^"\\]|\\.)*"\s*:\s*$/;
/** What follows a member's value: the next member's comma or the object's end. */
const MEMBER_END = /^\s*[,}]/;
/** A leading comma, dropped after a first member that was left out. */
const LEADING_COMMA = /^\s*,\s*/;

/**
 * The parts with each `{args.…}` slot that is an object member's whole value marked `member`
 * (absent is not null, docs/reference.md): its lead moves from the text before into the slot.
 */
function withMembers(parts: readonly BodyPart[]): BodyPart[] {
  const out: BodyPart[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const before = out[out.length - 1];
    const after = parts[i + 1];
    if (part.kind !== 'slot' || part.inString || part.placeholder.kind !== 'args' || before?.kind !== 'text') {
      out.push(part);
      continue;
    }
    const lead = MEMBER_LEAD.exec(before.text);
    const opener = lead && (lead[1] !== undefined || before.text.slice(0, lead.index).trimEnd().endsWith('{'));
    if (!lead || !opener || after?.kind !== 'text' || !MEMBER_END.test(after.text)) {
      out.push(part);
      continue;
    }
    out.pop();
    if (lead.index > 0) out.push({ kind: 'text', text: before.text.slice(0, lead.index) });
    out.push({ ...part, member: lead[0] });
  }
  return out;
}

/** Parses the inside of `{…}`, or says why it is not a placeholder. */
function parseBodyPlaceholder(inner: string): BodyPlaceholder | string {
  const steps = inner.split('.');
  const ns = steps[0]!;
  const path = steps.slice(1);
  if (ns === 'keys') return path.length === 0 ? { kind: 'keys', path, text: `{${inner}}` } : `"{${inner}}": {keys} takes no path`;
  if (ns !== 'args' && ns !== 'parent' && ns !== 'result' && ns !== 'auth') {
    return `unknown placeholder "{${inner}}" (use {args.NAME}, {parent.FIELD}, {result.FIELD} or {keys})`;
  }
  if (path.length === 0 || !path.every((s) => NAME.test(s))) {
    return `placeholder "{${inner}}" needs names after "${ns}." joined by dots (e.g. {${ns}.id})`;
  }
  return { kind: ns, path, text: `{${inner}}` };
}

/** Renders a body to the JSON text to send. Always valid JSON for a compiled template. */
export function renderBodyTemplate(template: BodyTemplate, values: BodyValues): string {
  let out = '';
  // A first member was left out: the comma that follows it goes too.
  let dropComma = false;
  for (const part of template.parts) {
    if (part.kind === 'text') {
      if (dropComma && part.text.trim() !== '') {
        out += part.text.replace(LEADING_COMMA, '');
        dropComma = false;
      } else out += part.text;
      continue;
    }
    const value = values(part.placeholder);
    if (part.member !== undefined) {
      if (value === undefined) {
        if (!LEADING_COMMA.test(part.member)) dropComma = true;
        continue;
      }
      out += dropComma ? part.member.replace(LEADING_COMMA, '') : part.member;
      dropComma = false;
    }
    if (part.inString) {
      if (value === null || value === undefined) continue;
      const json = JSON.stringify(typeof value === 'object' ? JSON.stringify(value) : String(value));
      out += json.slice(1, -1);
    } else {
      out += value === undefined ? 'null' : (JSON.stringify(value) ?? 'null');
    }
  }
  return out;
}
