import { parseJsonBody } from './json-body.js';

/** A value whose JSON is longer than this is left out of `extensions.upstream`. */
const MAX_EXPOSED_CHARS = 1024;

/**
 * `expose_errors` (docs/rest-shapes.md "Errors a caller may read"): from a 4xx answer's JSON body,
 * the value at each dotted path (a step of digits indexes a list), keyed by the path as written,
 * for `extensions.upstream` in production too. A path with no value, a value whose JSON is over
 * 1 KB, a body that is not JSON, and any status outside 400–499 give nothing; undefined when
 * nothing is left. Keys are looked up as own properties only, so no path reaches a prototype.
 */
export function exposedValues(
  status: number,
  text: string | undefined,
  bytes: Uint8Array | undefined,
  options: { readonly paths: readonly string[]; readonly maxJsonDepth: number },
): Readonly<Record<string, unknown>> | undefined {
  const { paths } = options;
  if (paths.length === 0 || status < 400 || status > 499 || text === undefined || bytes === undefined) return undefined;
  const parsed = parseJsonBody(text, bytes, options.maxJsonDepth);
  if (!parsed.ok) return undefined;
  let out: Record<string, unknown> | undefined;
  for (const path of paths) {
    const value = valueAt(parsed.value, path.split('.'));
    if (value === undefined || (JSON.stringify(value)?.length ?? 0) > MAX_EXPOSED_CHARS) continue;
    (out ??= Object.create(null) as Record<string, unknown>)[path] = value;
  }
  return out;
}

/** The value at `steps`: object keys, or list indexes for steps of digits; undefined when absent. */
function valueAt(root: unknown, steps: readonly string[]): unknown {
  let v = root;
  for (const step of steps) {
    if (Array.isArray(v) && /^\d+$/.test(step)) v = v[Number(step)];
    else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, step)) v = (v as Record<string, unknown>)[step];
    else return undefined;
  }
  return v;
}
