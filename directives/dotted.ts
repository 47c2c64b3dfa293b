/**
 * Dotted names: `@from(path: "address.city")`, `select: "data.items"`, `match: "owner.id"`
 * (docs/reference.md). A dotted name is one or more steps joined by `.`; a step is a JSON key
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

/**
 * Whether a JSON object without the key `key` would still read something for it: a member of
 * Object.prototype (`constructor`, `toString`, `hasOwnProperty`, `__proto__`, ...). Only a JSON
 * object's own keys are its fields (SPEC "Exact data in both directions"): every reader of such a
 * key reads own keys only (ownValue; dottedReader and execute/answer/write-data.ts decide it once).
 */
export function isInheritedName(key: string): boolean {
  return key in Object.prototype;
}

/**
 * The value of `object`'s own key `key`; undefined when it has no such key, never an inherited
 * member. A JSON value is never a function nor Object.prototype, so only a read that found one (or
 * read `__proto__`, which names any object's prototype) asks whether the key is the object's own.
 */
export function ownValue(object: object, key: string): unknown {
  const v = (object as Record<string, unknown>)[key];
  if ((typeof v === 'function' || v === Object.prototype || key === '__proto__') && !Object.hasOwn(object, key)) return undefined;
  return v;
}

/** Reads `steps` from `value` (own keys only); undefined when any step is missing or steps into a non-object. */
export function readDotted(value: unknown, steps: readonly string[]): unknown {
  let v = value;
  for (let i = 0; i < steps.length; i++) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = ownValue(v, steps[i]!);
  }
  return v;
}

/** A compiled readDotted of fixed steps (see dottedReader). */
export type DottedReader = (value: unknown) => unknown;

/**
 * readDotted of these `steps`, compiled once to straight-line reads with each key a constant: V8
 * then caches every read by the objects' shape (JSON objects of one API share one), where
 * readDotted's computed key goes through a generic lookup each time. The same checks and the same
 * result as readDotted (a step named like an inherited member reads own keys only). The steps go into the code only as JSON string literals.
 */
export function dottedReader(steps: readonly string[]): DottedReader {
  let body = '';
  for (const step of steps) {
    const key = JSON.stringify(step);
    const read = isInheritedName(step) ? `Object.hasOwn(v, ${key}) ? v[${key}] : undefined` : `v[${key}]`;
    body += `if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;\nv = ${read};\n`;
  }
  return new Function(`"use strict";\nreturn function readDotted(v) {\n${body}return v;\n};`)() as DottedReader;
}
