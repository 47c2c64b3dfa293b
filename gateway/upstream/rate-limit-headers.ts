import { headerValue, type RawHeaders } from './response-value.js';

/**
 * How long an answer asks its source to be left alone (docs/rest-shapes.md "Rate limits"), in
 * milliseconds from `now` (epoch ms), at most MAX_HOLD_MS; undefined when it asks nothing:
 * - a 429 or 503 with `Retry-After`: delay seconds, or an HTTP date;
 * - any answer whose `X-RateLimit-Remaining` or `RateLimit-Remaining` is `0`, with
 *   `X-RateLimit-Reset` (epoch seconds) or `RateLimit-Reset` (seconds from now).
 * The longest of them wins. A value that is not a plain number (or a date) is ignored. Every
 * parser is linear in its input (docs/rest-shapes.md "Rate limits"): a value longer
 * than MAX_NUMBER_CHARS is no number, one longer than MAX_DATE_CHARS no date, and nothing backtracks.
 */
export function holdMsOf(status: number, raw: RawHeaders, now: number): number | undefined {
  if (!raw) return undefined;
  let wait: number | undefined;
  if (status === 429 || status === 503) wait = retryAfterMs(headerValue(raw, 'retry-after'), now);
  if (isZero(headerValue(raw, 'x-ratelimit-remaining'))) wait = longer(wait, epochResetMs(headerValue(raw, 'x-ratelimit-reset'), now));
  if (isZero(headerValue(raw, 'ratelimit-remaining'))) wait = longer(wait, secondsMs(headerValue(raw, 'ratelimit-reset')));
  return wait === undefined ? undefined : Math.min(wait, MAX_HOLD_MS);
}

/** The longest hold a source's answer can start: an hour. */
export const MAX_HOLD_MS = 3_600_000;

/** A longer value is no number worth reading (an epoch in seconds has 10 digits), spaces included. */
const MAX_NUMBER_CHARS = 32;
/** Longer than any HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT` has 29 characters). */
const MAX_DATE_CHARS = 64;

/** `Retry-After`: delay seconds, or an HTTP date (then from `now`); a past date is 0. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const seconds = secondsMs(value);
  if (seconds !== undefined) return seconds;
  const text = value.trim();
  if (text.length === 0 || text.length > MAX_DATE_CHARS || !/^[A-Za-z]{3,9},/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** A whole number of seconds (surrounding spaces allowed) as milliseconds; undefined otherwise. */
function secondsMs(value: string | undefined): number | undefined {
  const n = plainNumber(value);
  return n === undefined ? undefined : n * 1000;
}

/** `X-RateLimit-Reset`: epoch seconds, as milliseconds from `now` (a past reset is 0). */
function epochResetMs(value: string | undefined, now: number): number | undefined {
  const n = plainNumber(value);
  return n === undefined ? undefined : Math.max(0, n * 1000 - now);
}

function isZero(value: string | undefined): boolean {
  return plainNumber(value) === 0;
}

/** The digits of `value` between optional spaces, as a number; undefined for anything else. */
function plainNumber(value: string | undefined): number | undefined {
  if (value === undefined || value.length > MAX_NUMBER_CHARS) return undefined;
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) === 32) start++;
  while (end > start && value.charCodeAt(end - 1) === 32) end--;
  if (start === end || end - start > 16) return undefined;
  let n = 0;
  for (let i = start; i < end; i++) {
    const d = value.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
  }
  return n;
}

function longer(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}
