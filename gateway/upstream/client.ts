import { Pool } from 'undici';
import { CODE } from '../errors.js';
import type { SourceConfig } from '../config/types.js';
import { Admission } from './admission.js';
import { decodeAnswer } from './decode.js';
import { exchange, type BodyCaps, type RawAnswer } from './exchange.js';
import { Deadline } from './deadline.js';
import { overBudget, type ByteBudget } from './byte-budget.js';
import type { Abortable } from '../util/canceller.js';
import type { HttpMethod } from '../../directives/request.js';
import { failure, type FailureCause, type UpstreamOutcome } from './outcome.js';
import { headerValue } from './response-value.js';
import { pathOfUrl, type SourceBase } from '../../directives/url-link.js';
import { holdMsOf } from './rate-limit-headers.js';
import { SourceHold, TokenBucket } from './source-limits.js';

export type { HttpMethod };

/** One request to a source. */
export interface UpstreamRequest {
  readonly method: HttpMethod;
  /** Resolved and URL-encoded, appended to the source's base URL. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON text, sent with `content-type: application/json`; absent: no body. */
  readonly body?: string;
  /** `@fetch(response: true)`: a 2xx answer's value is `{status, headers, body}`. */
  readonly whole?: boolean;
  /** Revalidation: a 2xx answer carries its ETag / Last-Modified (outcome `validators`). */
  readonly validators?: boolean;
}

/** Redirect statuses that may be followed (follow_redirects). */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Whether `status` is a redirect follow_redirects may follow. */
export function isRedirectStatus(status: number | undefined): boolean {
  return status !== undefined && REDIRECTS.has(status);
}

/** The headers of a request that adds none to the source's own (no forward_headers). */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** How much of a non-2xx answer's body is read (then the connection is dropped), and how much of it `detail` keeps. */
const ERROR_BODY_READ_BYTES = 64 * 1024;
/** The most header bytes an answer may have (Node's own default for its HTTP parser). */
const MAX_HEADER_BYTES = 16 * 1024;

/** What a source's client takes from `[limits]` (the same for every source). */
export interface SourceClientOptions {
  /** limits.max_json_depth: a body nested deeper is UPSTREAM_BAD_RESPONSE, never parsed. */
  readonly maxJsonDepth: number;
}

const DEFAULT_CLIENT_OPTIONS: SourceClientOptions = { maxJsonDepth: 256 };

/**
 * One source's HTTP client: a keep-alive undici Pool whose size (`connections`) is the source's
 * concurrency limit, so a slow source holds at most that many sockets. At most `maxQueued` more
 * requests wait for a free connection; past that a request fails at once (UPSTREAM_UNREACHABLE,
 * "overloaded") instead of piling up. Every request runs under a gateway deadline (queue wait,
 * headers and body together; undici's timeouts only bound the gaps) that the requests sent
 * together share (upstream/deadline.ts), has a body size cap, and has its body always consumed or
 * destroyed so the connection goes back to the pool.
 */
export class SourceClient {
  private readonly pool: Pool;
  private readonly basePath: string;
  /** `accept` and the source's fixed `headers` (gateway.toml), sent on every request. */
  private readonly fixedHeaders: Readonly<Record<string, string>>;
  private readonly fixedJsonHeaders: Readonly<Record<string, string>>;
  /** Requests in flight or waiting for a connection (what `maxQueued` bounds). */
  private active = 0;
  /** At most `connections` requests reach the pool at once; the rest wait here (upstream/admission.ts). */
  private readonly admission: Admission;
  /** How much of an answer's body is read: `max_response_bytes` of a 2xx, an excerpt of any other. */
  private readonly caps: BodyCaps;

  /** Where a followed redirect may lead: this source's origin and base path. */
  private readonly base: SourceBase;

  /** Until when the source asked to be left alone (set here from its answers, read by execute/send/dispatch.ts). */
  readonly hold = new SourceHold();
  /** `rate_limit`: the tokens of this process's calls to the source; undefined without one. */
  readonly bucket: TokenBucket | undefined;

  constructor(
    private readonly config: SourceConfig,
    private readonly options: SourceClientOptions = DEFAULT_CLIENT_OPTIONS,
  ) {
    const url = new URL(config.url);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.base = { origin: url.origin, basePath: this.basePath };
    // `headers` may set its own user-agent, which then wins.
    const agent = config.userAgent ? { 'user-agent': config.userAgent } : undefined;
    this.fixedHeaders = { accept: 'application/json', ...agent, ...config.headers };
    this.fixedJsonHeaders = { ...this.fixedHeaders, 'content-type': 'application/json' };
    this.admission = new Admission(config.connections);
    this.caps = { ok: config.maxResponseBytes, other: ERROR_BODY_READ_BYTES };
    this.bucket = config.rateLimit && new TokenBucket(config.rateLimit, performance.now());
    this.pool = new Pool(url.origin, {
      connections: config.connections,
      // HTTP/1.1 cannot tell an answer a source sends twice (or unasked) from the answer to the
      // next request written on that connection; undici closes a connection that receives bytes
      // while idle, but not one whose next request is already out. A per-caller source (forwarded
      // or `{auth.*}` headers) serves callers their own data, so it never reuses a connection: one
      // per request (`connection: close`). docs/hardening.md "Fault matrix".
      ...(config.perCaller ? { pipelining: 0 } : {}),
      maxHeaderSize: MAX_HEADER_BYTES,
      keepAliveTimeout: 10_000,
      headersTimeout: config.timeoutMs + 1000,
      bodyTimeout: config.timeoutMs + 1000,
    });
  }

  get name(): string {
    return this.config.name;
  }

  /** `timeout_ms`: the deadline of one request sent on its own. */
  get timeoutMs(): number {
    return this.config.timeoutMs;
  }

  /** `retry_after_max_ms`: the longest 429/503 wait a GET or batch chunk waits out to be sent once more. */
  get retryAfterMaxMs(): number {
    return this.config.retryAfterMaxMs ?? 0;
  }

  /** How many redirect hops a GET may follow (follow_redirects). */
  get followRedirects(): number {
    return this.config.followRedirects ?? 0;
  }

  /**
   * A deadline of this source's `timeout_ms` from now, for requests sent together; it also aborts
   * them when `caller` aborts. The caller releases it once they are done.
   */
  deadline(caller: Abortable | undefined): Deadline {
    return new Deadline(this.config.timeoutMs, caller);
  }

  /**
   * Sends one request (`path` already resolved and encoded) under the `shared` deadline (else one
   * of its own) and reads its answer. Never rejects, except with the caller's abort reason once
   * the deadline's caller signal aborts (the client went away): then the request is aborted too,
   * so its socket is closed and nothing more is read. Past the deadline it is UPSTREAM_TIMEOUT. A 204 or an empty
   * 2xx body is `ok` with a null body, whatever the method; a 404 is `not-found`; another non-2xx
   * is UPSTREAM_HTTP_ERROR whose `detail` (debug only) holds the start of the upstream's body.
   */
  send(request: UpstreamRequest, shared?: Deadline, budget?: ByteBudget): Promise<UpstreamOutcome> {
    const { name, connections, maxQueued } = this.config;
    if (shared?.callerAborted) return Promise.reject(shared.callerReason);
    if (budget?.spent) return Promise.resolve(this.overBudget(request, budget));
    if (this.active >= connections + maxQueued) {
      return Promise.resolve(
        failure({
          code: CODE.UPSTREAM_UNREACHABLE,
          source: name,
          message: `source "${name}" is overloaded`,
          detail: `${request.method} ${request.path}: ${this.active} requests in flight or queued`,
          cause: 'overloaded',
        }),
      );
    }
    this.active++;
    const deadline = shared ?? this.deadline(undefined);
    const turn = this.admission.enter(deadline);
    if (turn === undefined) return this.admitted(request, deadline, shared, budget);
    // While it waits for a connection a request holds this promise's reactions, not an async frame:
    // the no-batch row queues thousands (docs/performance.md).
    return turn.then(
      () => this.admitted(request, deadline, shared, budget),
      (err: unknown) => this.ended(request, deadline, shared, err),
    );
  }

  /** The exchange of an admitted request and what its answer is (upstream/decode.ts); it then leaves the admission. */
  private async admitted(
    request: UpstreamRequest,
    deadline: Deadline,
    shared: Deadline | undefined,
    budget: ByteBudget | undefined,
  ): Promise<UpstreamOutcome> {
    const { method, path } = request;
    let answer: RawAnswer;
    try {
      answer = await exchange(
        this.pool,
        { path: this.basePath + path, method, headers: this.headersOf(request), body: request.body },
        deadline,
        budget ? { ...this.caps, budget } : this.caps,
      );
    } catch (err) {
      this.admission.release();
      return this.ended(request, deadline, shared, err);
    }
    this.admission.release();
    this.done(deadline, shared);
    if (answer.overBudget) return this.overBudget(request, budget!);
    const redirect = this.redirectOf(request, answer.status, answer.headers);
    const now = Date.now();
    const holdMs = holdMsOf(answer.status, answer.headers, now);
    if (holdMs !== undefined && holdMs > 0) this.hold.holdFor(holdMs, now);
    return decodeAnswer(answer, request, this.config, { redirect, maxJsonDepth: this.options.maxJsonDepth, holdMs });
  }

  /**
   * Where a redirect of a GET may be followed (docs/caching.md, follow_redirects): the path after
   * the base of a Location with this source's origin and base path (resolved against the URL
   * asked); undefined when it may not be (another method, no hops allowed, elsewhere).
   */
  private redirectOf(request: UpstreamRequest, status: number, headers: RawAnswer['headers']): string | undefined {
    if (!REDIRECTS.has(status) || request.method !== 'GET' || !(this.config.followRedirects! > 0)) return undefined;
    const location = headerValue(headers, 'location');
    if (location === undefined) return undefined;
    let target: string;
    try {
      const url = new URL(location, this.base.origin + this.basePath + request.path);
      url.hash = '';
      target = url.href;
    } catch {
      return undefined;
    }
    const path = pathOfUrl(target, this.base);
    return typeof path === 'string' ? path : undefined;
  }

  /**
   * A request that ended without an HTTP answer (its deadline aborted while it waited or ran, or
   * the transport failed): the caller's abort reason is thrown, anything else is a failure.
   */
  private ended(request: UpstreamRequest, deadline: Deadline, shared: Deadline | undefined, err: unknown): UpstreamOutcome {
    this.done(deadline, shared);
    if (deadline.callerAborted) throw deadline.callerReason;
    const what = `${request.method} ${request.path}`;
    const { name, timeoutMs } = this.config;
    if (deadline.timedOut) {
      return failure({
        code: CODE.UPSTREAM_TIMEOUT,
        source: name,
        message: `source "${name}" did not answer within ${timeoutMs} ms`,
        detail: what,
        cause: 'timeout',
      });
    }
    return transportFailure(name, what, err);
  }

  /** A request is no longer in flight: its own deadline (not a shared one) is released. */
  private done(deadline: Deadline, shared: Deadline | undefined): void {
    if (!shared) deadline.release();
    this.active--;
  }

  /** UPSTREAM_BYTES_LIMIT: the operation has taken all the bytes it may (limits.max_operation_upstream_bytes). */
  private overBudget(request: UpstreamRequest, budget: ByteBudget): UpstreamOutcome {
    return overBudget(this.config.name, budget, `${request.method} ${request.path}`);
  }

  /** The source's fixed headers, the request's own, and a content type when it has a body. */
  private headersOf(request: UpstreamRequest): Readonly<Record<string, string>> {
    const fixed = request.body === undefined ? this.fixedHeaders : this.fixedJsonHeaders;
    if (request.headers === NO_HEADERS) return fixed;
    return request.body === undefined
      ? { ...this.fixedHeaders, ...request.headers }
      : { ...this.fixedHeaders, ...request.headers, 'content-type': 'application/json' };
  }

  /** Lets in-flight requests finish for up to `graceMs`, then destroys the pool (aborting the rest). */
  async close(graceMs = 1000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), graceMs);
    });
    const closing = this.pool.close().then(
      () => 'closed' as const,
      () => 'closed' as const,
    );
    const how = await Promise.race([closing, late]);
    clearTimeout(timer);
    if (how === 'late') await this.pool.destroy().catch(() => undefined);
  }
}

/** Socket-level error codes that mean "the connection went away under this request". */
const RESET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);

/** Maps a transport error (no usable HTTP answer) to a failure; the cause feeds the retry policy. */
function transportFailure(name: string, what: string, err: unknown): UpstreamOutcome {
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code ?? 'ERROR';
  const detail = `${what}: ${code} ${(err as Error).message}`;
  if (code === 'UND_ERR_HEADERS_OVERFLOW') {
    return failure({
      code: CODE.UPSTREAM_BAD_RESPONSE,
      source: name,
      message: `source "${name}" answered headers larger than ${MAX_HEADER_BYTES / 1024} KiB`,
      detail,
      cause: 'other',
    });
  }
  if (code.startsWith('HPE_') || (err as Error).name === 'HTTPParserError') {
    return failure({
      code: CODE.UPSTREAM_BAD_RESPONSE,
      source: name,
      message: `source "${name}" answered something that is not valid HTTP`,
      detail,
      cause: 'other',
    });
  }
  const cause: FailureCause = RESET_CODES.has(code) ? 'reset' : code === 'ECONNREFUSED' ? 'refused' : 'other';
  const message = cause === 'reset' ? `source "${name}" closed the connection before answering` : `source "${name}" could not be reached`;
  return failure({ code: CODE.UPSTREAM_UNREACHABLE, source: name, message, detail, cause });
}
