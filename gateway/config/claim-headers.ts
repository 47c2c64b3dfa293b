import type { ClaimHeader } from './types.js';

/** `{auth.a.b}` in a header value: a claim of the caller's token, by dotted steps. */
const CLAIM = /\{auth\.([_A-Za-z][_0-9A-Za-z]*(?:\.[_A-Za-z][_0-9A-Za-z]*)*)\}/g;

/**
 * A `[sources.X] headers` value that reads claims (`"Bearer-For {auth.sub}"`), compiled to its
 * parts; undefined when it reads none (a fixed header). Only `{auth.…}` is a placeholder here:
 * any other brace is literal text, as header values such as API keys may hold braces.
 */
export function compileClaimHeader(name: string, value: string): ClaimHeader | undefined {
  const parts: Array<string | readonly string[]> = [];
  let at = 0;
  for (const m of value.matchAll(CLAIM)) {
    if (m.index > at) parts.push(value.slice(at, m.index));
    parts.push(Object.freeze(m[1]!.split('.')));
    at = m.index + m[0].length;
  }
  if (at === 0) return undefined;
  if (at < value.length) parts.push(value.slice(at));
  return Object.freeze({ name, parts: Object.freeze(parts) });
}

/** The first step of every claim a header reads. */
export function claimsRead(header: ClaimHeader): string[] {
  return header.parts.filter((p): p is readonly string[] => typeof p !== 'string').map((p) => p[0]!);
}
