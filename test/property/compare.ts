/**
 * Whether a variant's answer equals the reference's: data (key order included) and errors by
 * message, code and path. One tolerance, only in worlds with failing ids: a batch chunk that fails
 * fails every key in it (and a split half every key in the half), so a field the reference fetched
 * alone may be null with `UPSTREAM_HTTP_ERROR` in a variant, and the other way round. Where either
 * answer has such an error, both answers are cut at the nearest null above it before comparing.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Answer, ComparedError } from './client.js';

type Json = unknown;

const FAILED = 'UPSTREAM_HTTP_ERROR';

function at(data: Json, path: readonly string[]): Json {
  let value = data;
  for (const step of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, Json>)[step];
  }
  return value;
}

/** The longest prefix of `path` whose value in `data` is null (where the error's null stopped). */
function nullAbove(data: Json, path: readonly string[]): readonly string[] | undefined {
  for (let n = path.length; n >= 0; n--) if (at(data, path.slice(0, n)) === null) return path.slice(0, n);
  return undefined;
}

function cut(data: Json, path: readonly string[]): Json {
  if (path.length === 0) return null;
  if (data === null || typeof data !== 'object') return data;
  const [step, ...rest] = path;
  if (Array.isArray(data)) return data.map((v, i) => (String(i) === step ? cut(v, rest) : v));
  const object = data as Record<string, Json>;
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, k === step ? cut(v, rest) : v]));
}

const under = (path: string, cutAt: string): boolean => cutAt === '' || path === cutAt || path.startsWith(`${cutAt}.`);

/** Both answers with the failed-chunk tolerance applied. */
function tolerant(reference: Answer, variant: Answer): [Answer, Answer] {
  const points = [reference, variant]
    .flatMap((a) => a.errors.filter((e) => e.code === FAILED).map((e) => nullAbove(a.data, e.path === '' ? [] : e.path.split('.'))))
    .filter((p): p is readonly string[] => p !== undefined);
  const apply = (a: Answer): Answer => {
    let data = a.data;
    for (const p of points) if (at(data, p) !== undefined) data = cut(data, p);
    const errors = a.errors.filter((e: ComparedError) => !points.some((p) => under(e.path, p.join('.'))));
    return { ...a, data, errors };
  };
  return [apply(reference), apply(variant)];
}

/** Undefined when equal, else a sentence saying what differs. */
export function difference(reference: Answer, variant: Answer, failingWorld: boolean): string | undefined {
  const [r, v] = failingWorld ? tolerant(reference, variant) : [reference, variant];
  if (JSON.stringify(r.data) !== JSON.stringify(v.data)) return 'data differs';
  if (!isDeepStrictEqual(r.errors, v.errors)) return 'errors differ';
  return undefined;
}
