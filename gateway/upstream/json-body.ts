import { isInteger, isSafeNumber, parse as parseLossless } from 'lossless-json';

/**
 * Parsing a source's JSON body so that integers beyond 2^53 keep their exact digits (docs/reference.md
 * "@batch": keys compare by string form; docs/hardening.md "Fault matrix"). JSON.parse turns
 * 9007199254740993 into 9007199254740992, and a key, a placeholder or a match built from it then
 * names another record. Such a number has at least 16 digits in a row; a body without a run of 16
 * digits (nearly every body) is parsed by JSON.parse, and the check costs a look at every eighth
 * byte (docs/dependencies.md "lossless-json" has the measurement). A body with one is parsed by
 * lossless-json, where an unsafe integer becomes the string of its digits.
 */
export type ParsedBody = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly tooDeep: boolean };

const NOT_JSON: ParsedBody = Object.freeze({ ok: false, tooDeep: false });
const TOO_DEEP: ParsedBody = Object.freeze({ ok: false, tooDeep: true });

/**
 * The value of the JSON `text` (whose UTF-8 bytes are `bytes`), or why there is none: not JSON,
 * or, on the lossless path (whose parser recurses), nested deeper than `maxDepth`. An unsafe
 * integer keeps its digits as a string: an `ID` or `String` field writes them, `Int` refuses them
 * (it is 32-bit), `Float` reads them as a number, and a custom scalar passes them on as a JSON
 * string. A repeated key keeps its last value, as with JSON.parse.
 */
export function parseJsonBody(text: string, bytes: Uint8Array, maxDepth: number): ParsedBody {
  try {
    if (!hasLongDigitRun(bytes)) return { ok: true, value: JSON.parse(text) };
    if (nestsDeeper(bytes, maxDepth)) return TOO_DEEP;
    return { ok: true, value: parseLossless(text, null, { parseNumber: exactNumber, onDuplicateKey: lastValue }) };
  } catch {
    return NOT_JSON;
  }
}

function exactNumber(digits: string): unknown {
  return isInteger(digits) && !isSafeNumber(digits) ? digits : Number(digits);
}

function lastValue({ newValue }: { readonly newValue: unknown }): unknown {
  return newValue;
}

const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;

/**
 * Whether the bytes hold 16 or more ASCII digits in a row (inside a string too: that only sends a
 * body to the slower parser). Any run of 16 covers two positions that are multiples of 8, so only
 * every eighth byte is read until two such bytes eight apart are both digits.
 */
export function hasLongDigitRun(bytes: Uint8Array): boolean {
  const n = bytes.length;
  for (let i = 8; i < n; i += 8) {
    if (!isDigit(bytes[i]) || !isDigit(bytes[i - 8])) continue;
    let start = i - 8;
    let end = i;
    let all = true;
    for (let k = start + 1; k < end; k++) {
      if (!isDigit(bytes[k])) {
        all = false;
        break;
      }
    }
    if (!all) continue;
    while (start > 0 && isDigit(bytes[start - 1])) start--;
    while (end + 1 < n && isDigit(bytes[end + 1])) end++;
    if (end - start + 1 >= 16) return true;
  }
  return false;
}

/** Whether more than `maxDepth` objects and arrays are open at once (strings skipped). */
export function nestsDeeper(bytes: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}
