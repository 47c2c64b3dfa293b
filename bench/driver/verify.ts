/**
 * The verification pass, run on every server before it is loaded: sequential queries, each checked
 * semantically against the expected data, with the backend requests each one caused. Under load,
 * wrk and the open-loop driver then compare every response byte for byte.
 */
import { deepStrictEqual } from 'node:assert/strict';
import { request } from 'undici';
import { REQUEST_HEADERS } from '../shared/data.js';

const preview = (text: string): string => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

/**
 * Is one HTTP response exactly the expected data? Semantic, not textual: the body is parsed and
 * compared value by value, so whitespace and member order do not matter, but a wrong, missing,
 * extra or reordered item, a null, or an `errors` member does. Undefined when it is; else why not.
 */
export function checkAnswer(status: number, bodyText: string, expected: unknown): string | undefined {
  if (status !== 200) return `HTTP status ${status}: ${preview(bodyText)}`;
  try {
    deepStrictEqual(JSON.parse(bodyText), expected);
    return undefined;
  } catch (error) {
    return error instanceof SyntaxError
      ? `body is not JSON: ${preview(bodyText)}`
      : `not the expected answer: ${preview((error as Error).message)}`;
  }
}

/** A counting server's /__stats (the backends', backend.ts; the OTLP sink's, otlp-sink.ts). */
export async function serviceStats(url: string): Promise<Readonly<Record<string, number>>> {
  const { statusCode, body } = await request(`${url}/__stats`);
  const stats = (await body.json()) as Record<string, number>;
  if (statusCode !== 200 || typeof stats !== 'object') throw new Error(`${url}/__stats answered ${statusCode}`);
  return stats;
}

export const backendRequestCount = async (backendUrl: string): Promise<number> => (await serviceStats(backendUrl)).requests!;

/** One query (10 s deadline), unchecked. */
export async function queryOnce(url: string, requestBody: string): Promise<{ status: number; body: string }> {
  const { statusCode, body } = await request(url, {
    method: 'POST',
    headers: REQUEST_HEADERS,
    body: requestBody,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: statusCode, body: await body.text() };
}

/** One verified query: the request, its expected data, and the bytes the load check will compare (if fixed). */
export interface Probe {
  readonly request: string;
  readonly expected: unknown;
  readonly bytes?: string;
}

export type Verification =
  { readonly ok: true; readonly bodies: string[]; readonly subrequests: number[] } | { readonly ok: false; readonly reason: string };

export async function verifyServer(url: string, backendUrl: string, probes: readonly Probe[]): Promise<Verification> {
  const bodies: string[] = [];
  const subrequests: number[] = [];
  for (const [i, probe] of probes.entries()) {
    const before = await backendRequestCount(backendUrl);
    const answer = await queryOnce(url, probe.request);
    subrequests.push((await backendRequestCount(backendUrl)) - before);
    const wrong = checkAnswer(answer.status, answer.body, probe.expected);
    if (wrong !== undefined) return { ok: false, reason: `query ${i + 1}: ${wrong}` };
    if (probe.bytes !== undefined && answer.body !== probe.bytes) {
      return { ok: false, reason: `query ${i + 1}: right data, but not the bytes the load check compares: ${answer.body.slice(0, 200)}` };
    }
    bodies.push(answer.body);
  }
  return { ok: true, bodies, subrequests };
}
