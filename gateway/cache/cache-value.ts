import type { CacheEntry } from './entry.js';

/**
 * How a cache entry (entry.ts) is stored in memcached:
 *
 *   gqlgw2 <freshUntil> <staleUntil> <v|m>\n<JSON of the value>
 *   gqlgw3 <freshUntil> <staleUntil> <keepUntil> <v|m>\n<JSON of the validators>\n<JSON of the value>
 *
 * `gqlgw3` is written only for an entry with validators (revalidate) or a generation
 * (`@invalidate(prefix: true)`), its second line `{"etag": …, "lastModified": …, "gen": …}`;
 * `gqlgw2` for every other, so gateways of the previous release still read what they can use;
 * both are read.
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
const MARKER3 = 'gqlgw3 ';
const MARKER3_BYTES = Buffer.from(MARKER3, 'latin1');
const HEADER3 = /^gqlgw3 (\d{1,16}) (\d{1,16}) (\d{1,16}) ([vm])$/;
/** A validators line is short: an ETag and a date (response-value.ts caps them). */
const MAX_VALIDATORS_BYTES = 512;
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
 * cycle, a BigInt, a number that is not finite: an upstream's `1e400` parses to Infinity, which
 * JSON.stringify would write as `null`) or times that are not whole non-negative numbers: such an
 * entry is not stored, so every tier gives the answer a fetch gives (SPEC "One answer, whatever
 * the optimisations").
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
  // Only a text holding `null` can hide a number that is not finite (checked no further otherwise).
  if (json.includes('null') && !entry.missing && holdsNonFinite(entry.value)) return undefined;
  const body = Buffer.from(json, 'utf8');
  const flag = entry.missing ? 'm' : 'v';
  if (entry.validators || entry.generation !== undefined) {
    const keepUntil = Math.round(entry.keepUntil ?? entry.staleUntil);
    if (!(keepUntil >= staleUntil && Number.isSafeInteger(keepUntil))) return undefined;
    const validators = JSON.stringify({
      etag: entry.validators?.etag,
      lastModified: entry.validators?.lastModified,
      gen: entry.generation,
    });
    const header = Buffer.from(`${MARKER3}${freshUntil} ${staleUntil} ${keepUntil} ${flag}\n${validators}\n`, 'utf8');
    return { bytes: Buffer.concat([header, body]), jsonBytes: body.length };
  }
  const header = Buffer.from(`${MARKER}${freshUntil} ${staleUntil} ${flag}\n`, 'latin1');
  return { bytes: Buffer.concat([header, body]), jsonBytes: body.length };
}

/** Whether `value` (JSON data without a cycle, as JSON.stringify just found; parsed no deeper than limits.max_json_depth) holds NaN or ±Infinity. */
function holdsNonFinite(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsNonFinite(item)) return true;
    return false;
  }
  for (const key in value) if (Object.hasOwn(value, key) && holdsNonFinite((value as Record<string, unknown>)[key])) return true;
  return false;
}

export type DecodedEntry =
  { readonly kind: 'entry'; readonly entry: CacheEntry } | { readonly kind: 'outdated' } | { readonly kind: 'garbage' };

const GARBAGE: DecodedEntry = { kind: 'garbage' };
const OUTDATED: DecodedEntry = { kind: 'outdated' };

/** Decodes stored bytes; `garbage` when they lack the marker or a valid header, are not UTF-8 or not JSON. */
export function decodeCacheEntry(bytes: Uint8Array): DecodedEntry {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length >= OUTDATED_MARKER.length && OUTDATED_MARKER.equals(buffer.subarray(0, OUTDATED_MARKER.length))) return OUTDATED;
  if (buffer.length >= MARKER3_BYTES.length && MARKER3_BYTES.equals(buffer.subarray(0, MARKER3_BYTES.length)))
    return decodeWithValidators(buffer);
  if (buffer.length < MARKER_BYTES.length || !MARKER_BYTES.equals(buffer.subarray(0, MARKER_BYTES.length))) return GARBAGE;
  const end = buffer.indexOf(NEWLINE);
  const header = headerLine(buffer, end, HEADER);
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

/** The first line (ending at `end`) read by `form`; null when it is missing, too long or malformed. */
function headerLine(buffer: Buffer, end: number, form: RegExp): RegExpExecArray | null {
  if (end < 0 || end > MAX_HEADER_BYTES) return null;
  return form.exec(buffer.toString('latin1', 0, end));
}

/** Decodes a `gqlgw3` entry (with validators); `garbage` when any part is malformed. */
function decodeWithValidators(buffer: Buffer): DecodedEntry {
  const end = buffer.indexOf(NEWLINE);
  const header = headerLine(buffer, end, HEADER3);
  if (!header) return GARBAGE;
  const freshUntil = Number(header[1]);
  const staleUntil = Number(header[2]);
  const keepUntil = Number(header[3]);
  if (staleUntil < freshUntil || keepUntil < staleUntil) return GARBAGE;
  const missing = header[4] === 'm';
  const second = buffer.indexOf(NEWLINE, end + 1);
  if (second < 0 || second - end > MAX_VALIDATORS_BYTES) return GARBAGE;
  let validators: unknown;
  let value: unknown;
  try {
    validators = JSON.parse(strictUtf8.decode(buffer.subarray(end + 1, second)));
    value = JSON.parse(strictUtf8.decode(buffer.subarray(second + 1)));
  } catch {
    return GARBAGE;
  }
  const v = validators as { etag?: unknown; lastModified?: unknown; gen?: unknown } | null;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return GARBAGE;
  const etag = typeof v.etag === 'string' ? v.etag : undefined;
  const lastModified = typeof v.lastModified === 'string' ? v.lastModified : undefined;
  const generation = typeof v.gen === 'string' ? v.gen : undefined;
  if (etag === undefined && lastModified === undefined && generation === undefined) return GARBAGE;
  if (missing && value !== null) return GARBAGE;
  const entry: CacheEntry = { value, missing, freshUntil, staleUntil, keepUntil };
  const withValidators = etag === undefined && lastModified === undefined ? entry : { ...entry, validators: { etag, lastModified } };
  return { kind: 'entry', entry: generation === undefined ? withValidators : { ...withValidators, generation } };
}
