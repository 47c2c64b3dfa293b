/**
 * How a cached value is stored in a shared tier: the marker `gqlgw1\n` followed by the value's
 * JSON text in UTF-8. The marker carries a format version, so bytes written by anything else (or
 * a future format) are recognised as garbage and treated as a miss rather than served.
 */
const MARKER = Buffer.from('gqlgw1\n', 'utf8');
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export interface EncodedValue {
  /** The bytes to store (marker + JSON). */
  readonly bytes: Buffer;
  /** Size of the JSON text alone, which `maxValueBytes` limits. */
  readonly jsonBytes: number;
}

/**
 * Encodes a JSON-serialisable value. Returns undefined for a value JSON cannot represent
 * (undefined, a function, a cycle, a BigInt): such a value is simply not stored.
 */
export function encodeCacheValue(value: unknown): EncodedValue | undefined {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return undefined;
  }
  if (json === undefined) return undefined;
  const body = Buffer.from(json, 'utf8');
  return { bytes: Buffer.concat([MARKER, body]), jsonBytes: body.length };
}

export type DecodedValue = { readonly ok: true; readonly value: unknown } | { readonly ok: false };

/** Decodes stored bytes; `ok: false` when they lack the marker, are not UTF-8 or not JSON. */
export function decodeCacheValue(bytes: Uint8Array): DecodedValue {
  if (bytes.length < MARKER.length || !MARKER.equals(bytes.subarray(0, MARKER.length))) {
    return { ok: false };
  }
  try {
    return { ok: true, value: JSON.parse(strictUtf8.decode(bytes.subarray(MARKER.length))) };
  } catch {
    return { ok: false };
  }
}
