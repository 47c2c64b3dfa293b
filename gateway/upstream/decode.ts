import type { SourceConfig } from '../config/types.js';
import { isSuccess, type RawAnswer } from './exchange.js';
import { failure, type UpstreamOutcome } from './outcome.js';

/** A 204 or empty 2xx answer. */
const NULL_BODY: UpstreamOutcome = Object.freeze({ kind: 'ok', body: null });
/** How much of a non-2xx answer's body `detail` keeps. */
const ERROR_DETAIL_CHARS = 512;

/**
 * What one HTTP answer is, the innermost step of the upstream dispatch: a 404 is `not-found`;
 * another non-2xx is UPSTREAM_HTTP_ERROR whose `detail` (debug only) holds the start of its body;
 * a 204 or an empty 2xx body is `ok` with a null body, whatever the method; a body over
 * `max_response_bytes` or one that is not JSON is UPSTREAM_BAD_RESPONSE; else the parsed JSON.
 */
export function decodeAnswer(
  answer: RawAnswer,
  request: { readonly method: string; readonly path: string },
  source: Pick<SourceConfig, 'name' | 'maxResponseBytes'>,
): UpstreamOutcome {
  const { name, maxResponseBytes } = source;
  const { method, path } = request;
  const status = answer.status;
  if (status === 404) return { kind: 'not-found' };
  if (!isSuccess(status)) {
    const shown = answer.body === undefined ? '(body over the read cap)' : decode(answer.body).slice(0, ERROR_DETAIL_CHARS);
    return failure({
      code: 'UPSTREAM_HTTP_ERROR',
      source: name,
      message: `source "${name}" answered HTTP ${status}`,
      detail: `${method} ${path} → ${status}: ${shown}`,
      status,
    });
  }
  if (status === 204) return NULL_BODY;
  if (answer.body === undefined) {
    const why = answer.declared > maxResponseBytes ? `content-length ${answer.declared}` : 'body over the cap';
    return failure({
      code: 'UPSTREAM_BAD_RESPONSE',
      source: name,
      message: `source "${name}" answered a body over ${maxResponseBytes} bytes`,
      detail: `${method} ${path}: ${why}`,
      cause: 'too-large',
    });
  }
  const text = decode(answer.body);
  if (text.trim() === '') return NULL_BODY;
  try {
    return { kind: 'ok', body: JSON.parse(text) as unknown };
  } catch {
    return failure({
      code: 'UPSTREAM_BAD_RESPONSE',
      source: name,
      message: `source "${name}" answered a body that is not JSON`,
      detail: `${method} ${path}: ${text.slice(0, 80)}`,
      cause: 'not-json',
    });
  }
}

/** A body's text as UTF-8, without a leading byte order mark (as undici's `body.text()` read it). */
function decode(body: Buffer): string {
  const start = body.length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  return body.toString('utf8', start);
}
