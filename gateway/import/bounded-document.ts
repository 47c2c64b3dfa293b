import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { pointerOf, type Json } from './pointer.js';

/** The most a document may expand to once its YAML aliases are followed (docs/openapi.md). */
export const MAX_EXPANDED_BYTES = 10 * 1024 * 1024;

/** Why a document file may not be read: a `$ref` that leaves the document's folder, or a YAML bomb. */
export class DocumentRefused extends Error {
  constructor(
    readonly file: string,
    readonly pointer: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One file of an OpenAPI document as JSON, parsed with bounds (docs/openapi.md): YAML aliases are
 * followed as shared values (never copied) and the document is refused when its expansion would
 * exceed MAX_EXPANDED_BYTES, measured over the shared values once each (linear in the text).
 */
export function parseBounded(text: string, file: string): Json {
  const trimmed = text.trimStart();
  const value = (trimmed.startsWith('{') || trimmed.startsWith('[') ? JSON.parse(text) : parseYaml(text, { maxAliasCount: -1 })) as Json;
  if (expandedSize(value, new Map()) > MAX_EXPANDED_BYTES)
    throw new DocumentRefused(file, '', `expands past ${MAX_EXPANDED_BYTES} bytes through its YAML aliases`);
  return value;
}

/** The size a value would have written out, counting a shared value at every place it appears. */
function expandedSize(value: Json, seen: Map<object, number>): number {
  if (value === null || typeof value !== 'object') return typeof value === 'string' ? value.length + 2 : 8;
  const known = seen.get(value);
  if (known !== undefined) return known;
  seen.set(value, Infinity); // a value that holds itself expands without end
  let size = 2;
  if (Array.isArray(value)) for (const item of value) size += expandedSize(item, seen) + 1;
  else for (const [key, item] of Object.entries(value)) size += key.length + 4 + expandedSize(item, seen);
  seen.set(value, size);
  return size;
}

/**
 * The `$ref`s a file may hold (docs/openapi.md): refs inside a document (`#/…`), and relative
 * files inside the folder of the document being imported. An absolute path, any URL (`file:`,
 * `http:`) or a relative path out of that folder is refused, naming the `$ref`.
 */
export function checkRefs(value: Json, file: string, folder: string): void {
  const stack: Array<[Json, Array<string | number>]> = [[value, []]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [node, steps] = stack.pop()!;
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node) && typeof node.$ref === 'string') {
      const why = refusal(node.$ref, file, folder);
      if (why) throw new DocumentRefused(file, pointerOf(steps), why);
    }
    const entries: Array<[string | number, Json]> = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], [...steps, entries[i]![0]]]);
  }
}

function refusal(ref: string, file: string, folder: string): string | undefined {
  if (ref.startsWith('#')) return;
  const target = ref.split('#')[0]!;
  let why: string | undefined;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(target)) why = 'a URL';
  else if (isAbsolute(target) || target.startsWith('\\')) why = 'an absolute path';
  else if (!insideFolder(resolve(dirname(file), decodeURIComponent(target)), folder)) why = "a path out of the document's folder";
  return why && `$ref "${ref}" is ${why}; only refs inside the document and relative files in its own folder are followed`;
}

/** True when `path` is `folder` or below it. */
export function insideFolder(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
