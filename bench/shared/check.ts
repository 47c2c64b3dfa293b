/**
 * The answer checker: is one HTTP response to QUERY exactly the expected data?
 * Semantic, not textual: the body is parsed and compared with EXPECTED_ANSWER value by value,
 * so whitespace or an `extensions` member do not matter, but any wrong, missing, extra or
 * reordered post, a null author, or an `errors` member does.
 */
import { EXPECTED_ANSWER } from './data.js';

export type CheckResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Checks a response's status and body text against the expected answer. */
export function checkAnswer(status: number, bodyText: string): CheckResult {
  if (status !== 200) return fail(`HTTP status ${status}: ${preview(bodyText)}`);
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return fail(`body is not JSON: ${preview(bodyText)}`);
  }
  if (!isObject(body)) return fail('body is not a JSON object');
  if ('errors' in body) return fail(`response has errors: ${preview(JSON.stringify(body.errors))}`);
  const difference = firstDifference(EXPECTED_ANSWER.data, body.data, 'data');
  return difference === undefined ? { ok: true } : fail(difference);
}

function fail(reason: string): CheckResult {
  return { ok: false, reason };
}

/** The path and values of the first difference, or undefined when `actual` equals `expected`. */
function firstDifference(expected: unknown, actual: unknown, path: string): string | undefined {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected a list, got ${preview(JSON.stringify(actual))}`;
    if (actual.length !== expected.length) return `${path}: expected ${expected.length} items, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      const d = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (isObject(expected)) {
    if (!isObject(actual)) return `${path}: expected an object, got ${preview(JSON.stringify(actual))}`;
    const expectedKeys = Object.keys(expected);
    const extra = Object.keys(actual).filter((k) => !(k in expected));
    if (extra.length > 0) return `${path}: unexpected field(s) ${extra.join(', ')}`;
    for (const key of expectedKeys) {
      const d = firstDifference(expected[key], actual[key], `${path}.${key}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return Object.is(expected, actual)
    ? undefined
    : `${path}: expected ${JSON.stringify(expected)}, got ${preview(JSON.stringify(actual) ?? 'undefined')}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function preview(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
