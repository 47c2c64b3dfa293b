/**
 * The verification pass, run on every server before it is loaded: a few sequential queries,
 * each checked semantically against the expected data (shared/check.ts), with the exact backend
 * requests each one caused. Its accepted body is what wrk and the open-loop driver then compare
 * every response with, byte for byte.
 */
import { request } from 'undici';
import { checkAnswer } from '../shared/check.js';
import { REQUEST_BODY, REQUEST_HEADERS } from '../shared/data.js';
import { backendRequestCount } from './backend-stats.js';

export type Verification =
  | {
      readonly ok: true;
      /** The body of the last verified answer (wrk and the open-loop driver compare with it). */
      readonly body: string;
      /** Backend requests of the first query, and of each later one (they must all agree). */
      readonly subrequestsFirst: number;
      readonly subrequestsLater: number;
    }
  | { readonly ok: false; readonly reason: string };

/** One query (10 s deadline), unchecked: the bench query, or `requestBody`. */
export async function queryOnce(url: string, requestBody: string = REQUEST_BODY): Promise<{ status: number; body: string }> {
  const { statusCode, body } = await request(url, {
    method: 'POST',
    headers: REQUEST_HEADERS,
    body: requestBody,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: statusCode, body: await body.text() };
}

export async function verifyServer(url: string, backendUrl: string, queries = 4): Promise<Verification> {
  const subrequests: number[] = [];
  const bodies: string[] = [];
  for (let i = 0; i < queries; i++) {
    const before = await backendRequestCount(backendUrl);
    const answer = await queryOnce(url);
    subrequests.push((await backendRequestCount(backendUrl)) - before);
    const check = checkAnswer(answer.status, answer.body);
    if (!check.ok) return { ok: false, reason: `query ${i + 1}: ${check.reason}` };
    bodies.push(answer.body);
  }
  const [first, ...later] = subrequests;
  const last = bodies[bodies.length - 1];
  if (first === undefined || last === undefined) return { ok: false, reason: 'no query was verified (queries must be at least 1)' };
  if (later.some((n) => n !== later[0])) {
    return { ok: false, reason: `queries after the first made different numbers of subrequests: ${subrequests.join(', ')}` };
  }
  if (bodies.slice(1).some((b) => b !== last)) {
    return {
      ok: false,
      reason: 'right answers, but not byte-identical from one query to the next; the byte comparison under load would count them wrong',
    };
  }
  return { ok: true, body: last, subrequestsFirst: first, subrequestsLater: later[0] ?? first };
}
