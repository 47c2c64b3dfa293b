/**
 * What an answer's headers become where a field reads them (docs/reference.md, *new*):
 * - `response: true`: the value is `{status, headers, body}`; `headers` has lower-case names,
 *   repeated headers joined with ", ", and `link` parsed into an object of `rel` → URL
 *   (`<…?page=2>; rel="next", <…?page=5>; rel="last"` → `{next: "…?page=2", last: "…?page=5"}`;
 *   a link with several rels is under each; the first link of a rel wins; a link header that
 *   parses to nothing is `{}`);
 * - revalidation: the `etag` and `last-modified` of a 2xx answer (cache/entry.ts Validators);
 * - redirects: a 3xx answer's `location`.
 * Raw headers are undici's: name, value, name, value… as Buffers or strings.
 */
import type { Validators } from './outcome.js';

export type RawHeaders = ReadonlyArray<Buffer | string> | null;

/** The lower-cased headers, repeated ones joined with ", ", and `link` parsed. */
export function headersObject(raw: RawHeaders): Record<string, unknown> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (raw) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toString().toLowerCase();
      if (name === '__proto__') continue;
      const value = raw[i + 1]!.toString();
      out[name] = name in out ? `${out[name]}, ${value}` : value;
    }
  }
  const headers: Record<string, unknown> = {};
  for (const name of Object.keys(out).sort()) headers[name] = name === 'link' ? parseLinkHeader(out[name]!) : out[name];
  return headers;
}

/** The body as a response value: `{status, headers, body}`. */
export function responseValue(status: number, raw: RawHeaders, body: unknown): Record<string, unknown> {
  return { status, headers: headersObject(raw), body };
}

/**
 * RFC 8288 links by rel: `<url>; rel="next"` → `{next: url}`. One forward scan, linear in the
 * header's length whatever it holds (docs/hardening.md): each link is `<url>` and its parameters up to
 * the next comma outside quotes; the first `rel` parameter names it.
 */
export function parseLinkHeader(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < value.length) {
    const open = value.indexOf('<', at);
    if (open < 0) break;
    const close = value.indexOf('>', open + 1);
    if (close < 0) break;
    const end = endOfLink(value, close + 1);
    const rels = relOf(value.slice(close + 1, end));
    if (rels !== undefined) {
      const url = value.slice(open + 1, close);
      for (const r of rels.toLowerCase().split(/\s+/)) if (r !== '' && r !== '__proto__' && !Object.hasOwn(out, r)) out[r] = url;
    }
    at = end + 1;
  }
  return out;
}

/** Where a link's parameters end: the first comma at or after `from` outside a quoted string. */
function endOfLink(value: string, from: number): number {
  let quoted = false;
  for (let i = from; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x22) quoted = !quoted;
    else if (c === 0x2c && !quoted) return i;
  }
  return value.length;
}

/** The value of the first `rel` parameter of `; a=b; rel="next"`, quotes removed; undefined: none. */
function relOf(params: string): string | undefined {
  for (const param of params.split(';')) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'rel') continue;
    const raw = param.slice(eq + 1).trim();
    return raw.startsWith('"') ? raw.slice(1, raw.endsWith('"') && raw.length > 1 ? -1 : undefined) : raw;
  }
  return undefined;
}

/** The value of one header (the first), or undefined. */
export function headerValue(raw: RawHeaders, lowerName: string): string | undefined {
  if (!raw) return undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === lowerName.length && name.toString().toLowerCase() === lowerName) return raw[i + 1]!.toString();
  }
  return undefined;
}

/** A 2xx answer's ETag and Last-Modified; undefined when it has neither (or they are unusably long). */
export function validatorsOf(raw: RawHeaders): Validators | undefined {
  const etag = headerValue(raw, 'etag');
  const lastModified = headerValue(raw, 'last-modified');
  if (etag === undefined && lastModified === undefined) return undefined;
  if ((etag?.length ?? 0) > 256 || (lastModified?.length ?? 0) > 64) return undefined;
  return { etag, lastModified };
}
