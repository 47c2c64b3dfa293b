import type { CacheEntry } from './entry.js';

/**
 * How a cache entry (entry.ts) is stored in memcached:
 *
 *   gqlgw2 <freshUntil> <staleUntil> <v|m>\n<JSON of the value>
 *
 * times in milliseconds since the Unix epoch, `v` for a value, `m` for a remembered miss (whose JSON
 * is `null`). The marker carries a format version, so bytes written by anything else are recognised
 * as garbage and treated as a miss rather than served. Entries of the previous format (`gqlgw1\n`,
 * which carried no age) are `outdated`: a plain miss, not garbage, so a rolling upgrade never
 * counts them as memcached failures.
 */
const MARKER = 'gqlgw2 ';
const MARKER_BYTES = Buffer.from(MARKER, 'latin1');
const OUTDATED_MARKER = Buffer.from('gqlgw1\n', 'latin1');
/** The header is ASCII and short: two integers of at most 16 digits and a flag. */
const MAX_HEADER_BYTES = 64;
const HEADER = /^gqlgw2 (\d{1,16}) (\d{1,16}) ([vm])$/;
const NEWLINE = 0x0a;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export interface EncodedEntry {
  /** The bytes to store (header + JSON). */
  readonly bytes: Buffer;
  /** Size of the JSON text alone, which `maxValueBytes` limits. */
  readonly jsonBytes: number;
}

/**
 * Encodes an entry. Returns undefined for a value JSON cannot represent (undefined, a function, a
 * cycle, a BigInt) or times that are not whole non-negative numbers: such an entry is not stored.
 */
export function encodeCacheEntry(entry: CacheEntry): EncodedEntry | undefined {
  const freshUntil = Math.round(entry.freshUntil);
  const staleUntil = Math.round(entry.staleUntil);
  if (!(freshUntil >= 0 && staleUntil >= freshUntil && Number.isSafeInteger(staleUntil))) return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(entry.missing ? null : entry.value);
  } catch {
    return undefined;
  }
  if (json === undefined) return undefined;
  const body = Buffer.from(json, 'utf8');
  const header = Buffer.from(`${MARKER}${freshUntil} ${staleUntil} ${entry.missing ? 'm' : 'v'}\n`, 'latin1');
  return { bytes: Buffer.concat([header, body]), jsonBytes: body.length };
}

export type DecodedEntry =
  { readonly kind: 'entry'; readonly entry: CacheEntry } | { readonly kind: 'outdated' } | { readonly kind: 'garbage' };

const GARBAGE: DecodedEntry = { kind: 'garbage' };
const OUTDATED: DecodedEntry = { kind: 'outdated' };

/** Decodes stored bytes; `garbage` when they lack the marker or a valid header, are not UTF-8 or not JSON. */
export function decodeCacheEntry(bytes: Uint8Array): DecodedEntry {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length >= OUTDATED_MARKER.length && OUTDATED_MARKER.equals(buffer.subarray(0, OUTDATED_MARKER.length))) return OUTDATED;
  if (buffer.length < MARKER_BYTES.length || !MARKER_BYTES.equals(buffer.subarray(0, MARKER_BYTES.length))) return GARBAGE;
  const end = buffer.indexOf(NEWLINE);
  if (end < 0 || end > MAX_HEADER_BYTES) return GARBAGE;
  const header = HEADER.exec(buffer.toString('latin1', 0, end));
  if (!header) return GARBAGE;
  const freshUntil = Number(header[1]);
  const staleUntil = Number(header[2]);
  if (staleUntil < freshUntil) return GARBAGE;
  const missing = header[3] === 'm';
  let value: unknown;
  try {
    value = JSON.parse(strictUtf8.decode(buffer.subarray(end + 1)));
  } catch {
    return GARBAGE;
  }
  if (missing && value !== null) return GARBAGE;
  return { kind: 'entry', entry: { value, missing, freshUntil, staleUntil } };
}
