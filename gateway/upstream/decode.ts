import type { SourceConfig } from '../config/types.js';
import { CODE } from '../errors.js';
import { isSuccess, type RawAnswer } from './exchange.js';
import { NULL_BODY, failure, type UpstreamOutcome } from './outcome.js';
import { parseJsonBody } from './json-body.js';
import { responseValue, validatorsOf } from './response-value.js';
import { exposedValues } from './exposed-errors.js';

/** How much of a non-2xx answer's body `detail` keeps. */
const ERROR_DETAIL_CHARS = 512;

/** What decodeAnswer reads of the request: its line, and whether headers matter for its value. */
export interface DecodedRequest {
  readonly method: string;
  readonly path: string;
  /** `@fetch(response: true)`: a 2xx answer's value is `{status, headers, body}`. */
  readonly whole?: boolean;
  /** Revalidation: a 2xx answer carries its ETag / Last-Modified (outcome `validators`). */
  readonly validators?: boolean;
}

/** How an answer is decoded beyond its request: where a redirect leads, how deep its JSON may go. */
export interface DecodeOptions {
  /** The path a followable redirect leads to (upstream/client.ts decides). */
  readonly redirect?: string;
  /** limits.max_json_depth: a body nested deeper is UPSTREAM_BAD_RESPONSE. */
  readonly maxJsonDepth: number;
  /** How long the answer asked its source to be left alone (upstream/rate-limit-headers.ts), if it did. */
  readonly holdMs?: number;
}

/**
 * What one HTTP answer is, the innermost step of the upstream dispatch: a 404 is `not-found` (its
 * `detail`, debug only, names the request and status); another non-2xx is UPSTREAM_HTTP_ERROR
 * whose `detail` holds the start of its body, with `redirect` the path a followable redirect
 * leads to; a 204 or an empty 2xx body is `ok` with a null body, whatever the method; a body over
 * `max_response_bytes` or one that is not JSON is UPSTREAM_BAD_RESPONSE; else the parsed JSON,
 * as `{status, headers, body}` for `whole` and with its validators for `validators`. A 429 or 503
 * that asked to be left alone (`holdMs`) is UPSTREAM_RATE_LIMITED with `retryAfterMs`; another
 * 4xx carries the `expose_errors` values of its body (upstream/exposed-errors.ts).
 */
export function decodeAnswer(
  answer: RawAnswer,
  request: DecodedRequest,
  source: Pick<SourceConfig, 'name' | 'maxResponseBytes' | 'exposeErrors'>,
  options: DecodeOptions,
): UpstreamOutcome {
  const { redirect, holdMs } = options;
  const { name } = source;
  const { method, path } = request;
  const status = answer.status;
  if (!isSuccess(status)) {
    const text = answer.body === undefined ? undefined : decode(answer.body);
    const detail = `${method} ${path} → ${status}: ${text === undefined ? '(body over the read cap)' : text.slice(0, ERROR_DETAIL_CHARS)}`;
    if (status === 404) return { kind: 'not-found', detail };
    if (holdMs !== undefined && (status === 429 || status === 503)) {
      const message = `source "${name}" answered HTTP ${status}: rate limited, retry after ${Math.ceil(holdMs / 1000)} s`;
      return failure({
        code: CODE.UPSTREAM_RATE_LIMITED,
        source: name,
        message,
        detail,
        status,
        cause: 'rate-limited',
        retryAfterMs: holdMs,
      });
    }
    const paths = { paths: source.exposeErrors ?? [], maxJsonDepth: options.maxJsonDepth };
    return failure({
      code: CODE.UPSTREAM_HTTP_ERROR,
      source: name,
      message: `source "${name}" answered HTTP ${status}`,
      detail,
      status,
      redirect,
      upstream: exposedValues(status, text, answer.body, paths),
    });
  }
  const plain = bodyOf(answer, request, source, options.maxJsonDepth);
  if (plain.kind !== 'ok' || !(request.whole || request.validators)) return plain;
  const body = request.whole ? responseValue(answer.status, answer.headers, plain.body) : plain.body;
  const validators = request.validators ? validatorsOf(answer.headers) : undefined;
  return validators ? { kind: 'ok', body, validators } : { kind: 'ok', body };
}

/** The JSON body of a 2xx answer (null for a 204 or an empty body). */
function bodyOf(
  answer: RawAnswer,
  request: DecodedRequest,
  source: Pick<SourceConfig, 'name' | 'maxResponseBytes'>,
  maxJsonDepth: number,
): UpstreamOutcome {
  const { name, maxResponseBytes } = source;
  const { method, path } = request;
  if (answer.status === 204) return NULL_BODY;
  if (answer.body === undefined) {
    const why = answer.declared > maxResponseBytes ? `content-length ${answer.declared}` : 'body over the cap';
    return failure({
      code: CODE.UPSTREAM_BAD_RESPONSE,
      source: name,
      message: `source "${name}" answered a body over ${maxResponseBytes} bytes`,
      detail: `${method} ${path}: ${why}`,
      cause: 'too-large',
    });
  }
  const text = decode(answer.body);
  if (text.trim() === '') return NULL_BODY;
  // Integers beyond 2^53 keep their digits (upstream/json-body.ts).
  const parsed = parseJsonBody(text, answer.body, maxJsonDepth);
  if (parsed.ok) return { kind: 'ok', body: parsed.value };
  if (parsed.tooDeep) {
    return failure({
      code: CODE.UPSTREAM_BAD_RESPONSE,
      source: name,
      message: `source "${name}" answered JSON nested deeper than ${maxJsonDepth} levels (limits.max_json_depth)`,
      detail: `${method} ${path}`,
      cause: 'shape',
    });
  }
  return failure({
    code: CODE.UPSTREAM_BAD_RESPONSE,
    source: name,
    message: `source "${name}" answered a body that is not JSON`,
    detail: `${method} ${path}: ${text.slice(0, 80)}`,
    cause: 'not-json',
  });
}

/** A body's text as UTF-8, without a leading byte order mark (as undici's `body.text()` read it). */
function decode(body: Buffer): string {
  const start = body.length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  return body.toString('utf8', start);
}
