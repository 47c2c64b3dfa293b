import type { HttpMethod } from '../../directives/request.js';
import type { UpstreamFailure } from './outcome.js';

/**
 * When the gateway sends a failed subrequest again (docs/hardening.md "Retries"). Every extra
 * request is a real subrequest: counted in X-GQL-Subrequests, reported to the metrics listener,
 * and charged against limits.max_subrequests (no retry is made that would go over it).
 *
 * 1. Re-send once on a reset socket: a GET (single fetch or batch chunk) whose connection was reset
 *    or closed before its whole answer arrived is sent once more. GETs are idempotent, and a reset
 *    is most often a keep-alive connection the source closed just as it was reused.
 *    Any other method is never sent again, not even after a reset (docs/mutations.md): a reset
 *    says nothing about whether the source already acted on the request, so a POST, PUT, PATCH or
 *    DELETE of a Mutation field could be applied twice. The same holds for a POST read (search,
 *    POST @batch): the gateway cannot know the source treats it as idempotent.
 * 2. Split a failed chunk once: a @batch chunk of two or more keys that failed with a 5xx, a
 *    413/414/431 (request too large for the source), a body that is not JSON or too large, is sent
 *    again as two halves, concurrently. Each half settles its own keys, so one bad key fails at
 *    most half of its chunk. Halves are final: never split or re-sent again. A well-formed answer
 *    of the wrong shape (not the item array, JSON nested too deep) is the source's considered
 *    answer: an error of its keys, not split.
 * 3. Resend a shared chunk apart (docs/hardening.md "Isolation"): a chunk holding keys of several
 *    requests that failed for a reason one key may have caused (`keyMayCause`) is not split; each
 *    request sends its own keys again alone, under rules 1 and 2 (execute/send/isolate.ts).
 * So a single fetch costs at most 2 requests and a chunk at most 3 (plus, for a shared chunk, each
 * request's own resend of its keys).
 * Nothing else is retried: a timeout has used up its deadline, a 4xx is the source's considered
 * answer, a refused connection means the source is down, an overloaded pool needs less traffic.
 */
export function shouldResend(failure: UpstreamFailure, method: HttpMethod): boolean {
  return method === 'GET' && failure.cause === 'reset';
}

/** Statuses worth splitting a chunk for: server errors and "your request is too large". */
const SPLIT_STATUSES = new Set([413, 414, 431]);

export function shouldSplitChunk(failure: UpstreamFailure, keyCount: number): boolean {
  if (keyCount < 2) return false;
  switch (failure.cause) {
    case 'status':
      return failure.status !== undefined && (failure.status >= 500 || SPLIT_STATUSES.has(failure.status));
    case 'not-json':
    case 'too-large':
      return true;
    default:
      return false;
  }
}

/** Statuses that say nothing about the keys asked: a slow or rate-limited answer. */
const NOT_KEY_STATUSES = new Set([408, 429]);

/**
 * Whether one key of a chunk of `keyCount` keys may have made it fail: any 4xx or 5xx but 408 and
 * 429, a body that is not JSON, too large, or of the wrong shape. A timeout, a refused or reset
 * connection and an overloaded pool are the source's state, the same for any keys.
 */
export function keyMayCause(failure: UpstreamFailure, keyCount: number): boolean {
  if (keyCount < 2) return false;
  switch (failure.cause) {
    case 'status':
      return failure.status !== undefined && failure.status >= 400 && !NOT_KEY_STATUSES.has(failure.status);
    case 'not-json':
    case 'too-large':
    case 'shape':
      return true;
    default:
      return false;
  }
}

/** The two halves a split chunk is sent as (the first half gets the extra key). */
export function splitInHalves<T>(keys: readonly T[]): [T[], T[]] {
  const middle = Math.ceil(keys.length / 2);
  return [keys.slice(0, middle), keys.slice(middle)];
}
