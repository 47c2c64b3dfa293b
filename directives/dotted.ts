/**
 * Dotted names: `@from(path: "address.city")`, `select: "data.items"`, `match: "owner.id"`
 * (SPEC.md, "Directives"). A dotted name is one or more steps joined by `.`; a step is a JSON key
 * made of letters, digits, `_` and `-`. Reading one walks JSON objects key by key; a missing step,
 * a null, or a step into something that is not an object (a list, a scalar) reads as undefined.
 * Pure: no I/O, no knowledge of the gateway.
 */

const STEP = /^[A-Za-z0-9_-]+$/;

/** The steps of a dotted name, or undefined when `text` is not one (empty steps, spaces, brackets...). */
export function parseDottedName(text: string): readonly string[] | undefined {
  if (text === '') return undefined;
  const steps = text.split('.');
  for (const s of steps) if (!STEP.test(s)) return undefined;
  return Object.freeze(steps);
}

/** What a problem with a dotted name should tell the user: what a dotted name is, with an example. */
export function dottedNameHelp(example: string): string {
  return `write JSON keys (letters, digits, "_" or "-") joined by ".", such as "${example}"`;
}

/** Reads `steps` from `value`; undefined when any step is missing or steps into a non-object. */
export function readDotted(value: unknown, steps: readonly string[]): unknown {
  let v = value;
  for (let i = 0; i < steps.length; i++) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[steps[i]!];
  }
  return v;
}
