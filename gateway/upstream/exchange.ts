import type { Dispatcher } from 'undici';
import type { Abortable } from '../util/canceller.js';
import type { ByteBudget } from './byte-budget.js';

/** What one HTTP exchange brought back. */
export interface RawAnswer {
  readonly status: number;
  /** The declared content-length; NaN when the answer declared none. */
  readonly declared: number;
  /**
   * The body's bytes; undefined when the answer went past its cap (a declared length over it, or
   * more bytes than it): the exchange was then cut there and its connection dropped.
   */
  readonly body: Buffer | undefined;
  /** undici's raw headers (name, value, …), kept as they came. */
  readonly headers: Buffer[] | string[] | null;
  /** The answer was cut because its operation's byte budget ran out (`caps.budget`), not at its own cap. */
  readonly overBudget?: boolean;
}

/** How many body bytes are read: of a 2xx answer, and of any other (an error's excerpt). */
export interface BodyCaps {
  readonly ok: number;
  readonly other: number;
  /** The operation's budget, taken from as each chunk arrives; the answer is cut when it runs out. */
  readonly budget?: ByteBudget;
}

/**
 * Sends one request through undici's `dispatch` and collects its answer's body as bytes, with
 * `caps`. Resolves with the status and body; rejects with the transport error, or with
 * `signal`'s reason once it aborts (the request is then aborted and its socket closed).
 *
 * Why not `pool.request()`: it wraps every answer in a Node Readable stream (stream state,
 * ticks, events, a close listener) only for the body to be read whole at once. Here the chunks go
 * straight into an array, which costs less CPU per answer (docs/performance.md). The caps, the abort and the connection handling are the same: a body read to
 * its end leaves the connection in the pool, one cut short closes it.
 */
export function exchange(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: Abortable,
  caps: BodyCaps,
): Promise<RawAnswer> {
  return new Promise<RawAnswer>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    dispatcher.dispatch(options, new Collector(resolve, reject, signal, caps));
  });
}

const IGNORE = (): void => undefined;
const NO_CHUNKS: Buffer[] = [];

/**
 * undici's (legacy) dispatch handler that collects one answer; see `exchange`. Once settled it
 * lets go of its promise's functions, its chunks and its signal: undici may keep a finished
 * request (and so this handler) in a queue array it has since copied, and a handler that still
 * held them would keep the answer, its waiting request and its deadline alive with it.
 */
class Collector {
  private status = 0;
  private declared = Number.NaN;
  private headers: Buffer[] | string[] | null = null;
  private cap = 0;
  private size = 0;
  private chunks: Buffer[] = [];
  private settled = false;
  /** undici's abort of this request, once connected. */
  private abortRequest: ((err?: Error) => void) | undefined;
  /** The signal's reason when it aborted before undici connected the request. */
  private early: Error | undefined = undefined;
  /** The request's signal, until the answer is settled. */
  private signal: Abortable | undefined;
  private readonly onAbort = (): void => {
    if (this.settled) return; // a signal calls the listeners it had when it aborted, this one included
    // The gateway's signals abort with Errors (upstream/deadline.ts); undici passes the reason on.
    const reason = (this.signal!.reason ?? new Error('aborted')) as Error;
    if (this.abortRequest) this.abortRequest(reason);
    else this.early = reason;
  };

  constructor(
    private resolve: (answer: RawAnswer) => void,
    private reject: (reason: unknown) => void,
    signal: Abortable,
    private readonly caps: BodyCaps,
  ) {
    this.signal = signal;
    signal.addEventListener('abort', this.onAbort);
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.early !== undefined) {
      abort(this.early);
      return;
    }
    this.abortRequest = abort;
  }

  onHeaders(status: number, rawHeaders: Buffer[] | string[] | null): boolean {
    if (status < 200) return true; // informational: the answer is still to come
    this.status = status;
    this.headers = rawHeaders;
    this.declared = contentLength(rawHeaders);
    this.cap = isSuccess(status) ? this.caps.ok : this.caps.other;
    if (this.declared > this.cap) this.cut();
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return true;
    if (this.caps.budget && !this.caps.budget.take(chunk.length)) {
      this.cut(true);
      return true;
    }
    this.size += chunk.length;
    if (this.size > this.cap) {
      this.cut();
      return true;
    }
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    const { chunks: c, resolve, headers } = this;
    this.settle();
    resolve({ status: this.status, declared: this.declared, body: c.length === 1 ? c[0]! : Buffer.concat(c), headers });
  }

  onError(err: unknown): void {
    if (this.settled) return; // the abort of an answer already cut at its cap
    const reject = this.reject;
    this.settle();
    reject(err);
  }

  /** The answer is over its cap (or its operation's budget): resolve without a body and drop the connection. */
  private cut(overBudget = false): void {
    const { resolve, abortRequest, headers } = this;
    this.settle();
    resolve({ status: this.status, declared: this.declared, body: undefined, headers, overBudget });
    abortRequest?.(new Error('answer over its size cap'));
  }

  private settle(): void {
    this.settled = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.signal = undefined;
    this.resolve = IGNORE;
    this.reject = IGNORE;
    this.chunks = NO_CHUNKS;
    this.headers = null;
    this.abortRequest = undefined;
  }
}

/** Whether `status` is a success (2xx): its body is the answer, read up to the larger cap. */
export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** The content-length of raw headers (name, value, name, value...); NaN when absent. */
function contentLength(raw: Buffer[] | string[] | null): number {
  if (!raw) return Number.NaN;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 14 && name.toString().toLowerCase() === 'content-length') return Number(raw[i + 1]!.toString());
  }
  return Number.NaN;
}
