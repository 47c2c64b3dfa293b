/**
 * JSON pointers (RFC 6901) into the bundled document: every external `$ref` has already been
 * brought in by the parser (load-document.ts), so what is left are `#/...` pointers into the one
 * document. These read them; they never fetch or parse anything.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** `#/a/b~1c` for the steps ["a", "b/c"]. */
export function pointerOf(steps: readonly (string | number)[]): string {
  return `#${steps.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')}`;
}

/** `base` extended by steps. */
export function childPointer(base: string, ...steps: (string | number)[]): string {
  return base + pointerOf(steps).slice(1);
}

/** The value at a `#/...` pointer, or undefined when a step is missing. */
export function valueAt(root: Json, pointer: string): Json | undefined {
  if (!pointer.startsWith('#')) return undefined;
  const body = pointer.slice(1);
  if (body === '') return root;
  if (!body.startsWith('/')) return undefined;
  let node: Json | undefined = root;
  for (const raw of body.slice(1).split('/')) {
    const step = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = Array.isArray(node) ? node[Number(step)] : node[step];
    if (node === undefined) return undefined;
  }
  return node;
}

export function isObject(value: Json | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A node with a `$ref`, resolved through chains of `$ref`s: the target, its pointer, and the first ref's pointer (undefined for a plain node). */
export interface Resolved {
  readonly node: JsonObject;
  /** The pointer the node lives at (where the last `$ref` led). */
  readonly pointer: string;
  /** The `$ref` value that was followed first, when there was one. */
  readonly ref: string | undefined;
}

/** Follows `$ref` (chains included) from a node at `pointer`; undefined when it leads nowhere or in a circle of bare refs. */
export function resolveRef(root: Json, node: JsonObject, pointer: string): Resolved | undefined {
  let current = node;
  let at = pointer;
  let first: string | undefined;
  const seen = new Set<string>();
  while (typeof current.$ref === 'string') {
    const ref = current.$ref;
    first ??= ref;
    if (seen.has(ref)) return undefined;
    seen.add(ref);
    const target = valueAt(root, ref);
    if (!isObject(target)) return undefined;
    current = target;
    at = ref;
  }
  return { node: current, pointer: at, ref: first };
}
