/**
 * Route keys of the test upstreams (`GET /users/:id`): parsing, matching, and the `ids=` lists
 * they answer. Shared by the counting upstream and the faulty upstream.
 */
export interface CompiledRoute<H> {
  readonly key: string;
  readonly method: string;
  readonly segments: readonly string[];
  handler: H;
}

export function compileRoute<H>(key: string, handler: H): CompiledRoute<H> {
  const match = /^([A-Z]+) (\/\S*)$/.exec(key);
  if (match === null) throw new Error(`route key must look like "GET /path/:param", got "${key}"`);
  return { key, method: match[1]!, segments: match[2]!.split('/'), handler };
}

/** The decoded `:name` segments when `path` matches the route's segments, else undefined. */
export function matchSegments(segments: readonly string[], path: string): Record<string, string> | undefined {
  const got = path.split('/');
  if (got.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const want = segments[i]!;
    if (want.startsWith(':')) {
      if (got[i] === '') return undefined;
      params[want.slice(1)] = decodeURIComponent(got[i]!);
    } else if (want !== got[i]) {
      return undefined;
    }
  }
  return params;
}

/** Splits a comma-separated id list from a query parameter (`1,2,3`), dropping empty parts. */
export function splitIds(value: string | null): string[] {
  if (value === null) return [];
  return value.split(',').filter((s) => s !== '');
}
