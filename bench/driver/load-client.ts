/**
 * The open-loop driver's HTTP client: keep-alive HTTP/1.1 over `node:net`, one request in flight
 * per connection (no pipelining), up to `connections` of them; requests beyond them wait in a
 * first-in-first-out queue, on the caller's clock.
 *
 * Why not undici: the driver shares the load core with the backend, and undici's work per answer
 * (a request and its handlers, a body stream, decoding the body to a string) made the driver use
 * about twice the CPU of this client at the same rates, which the backend then lacked, and which
 * delayed the driver's own reading of answers (bench/README.md "What is measured"). This client
 * writes one prepared request and compares bytes.
 *
 * It reads only what a benchmark server sends: a status line, headers, and a body framed by
 * Content-Length or by chunked transfer-coding (trailers ignored), or none for a 204 or 304. Anything else (no framing, a
 * malformed chunk, bytes after the answer, a connection that ends mid-answer) fails that one request
 * with an error, and its connection is dropped; the caller counts that as a wrong answer.
 */
import { connect, type Socket } from 'node:net';

/** How one request ended: an error, or the answer's status and body. */
export type Done = (error: Error | undefined, status: number, body: Buffer | undefined) => void;

export interface LoadClientOptions {
  readonly host: string;
  readonly port: number;
  readonly connections: number;
  /** The whole request, written as is for every send (method, path, headers, body). */
  readonly request: Buffer;
}

/** The complete HTTP/1.1 request for a POST with these headers and body (Host and Content-Length added). */
export function postRequest(url: URL, headers: Readonly<Record<string, string>>, body: string): Buffer {
  const lines = [`POST ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${Buffer.byteLength(body)}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

export class LoadClient {
  private readonly idle: Connection[] = [];
  private open = 0;
  private readonly queue: Done[] = [];
  private queueHead = 0;
  private closed = false;
  /** Connections with a request in flight (so `close` can fail them). */
  private readonly busy = new Set<Connection>();

  constructor(private readonly options: LoadClientOptions) {}

  /** Sends the request on an idle connection, a new one, or after the requests queued before it. */
  send(done: Done): void {
    if (this.closed) {
      done(new Error('client closed'), 0, undefined);
      return;
    }
    const connection = this.idle.pop() ?? this.connect();
    if (connection === undefined) this.queue.push(done);
    else this.start(connection, done);
  }

  /** Destroys every connection; requests in flight or queued end with an error. */
  close(): void {
    this.closed = true;
    const error = new Error('client closed');
    for (const connection of [...this.busy]) connection.fail(error);
    for (const connection of this.idle) connection.socket.destroy();
    this.idle.length = 0;
    for (let i = this.queueHead; i < this.queue.length; i++) this.queue[i]?.(error, 0, undefined);
    this.queue.length = 0;
    this.queueHead = 0;
  }

  private connect(): Connection | undefined {
    if (this.open >= this.options.connections) return undefined;
    this.open++;
    return new Connection(this, connect({ host: this.options.host, port: this.options.port, noDelay: true }));
  }

  private start(connection: Connection, done: Done): void {
    this.busy.add(connection);
    connection.start(done, this.options.request);
  }

  /** Called by a connection whose request ended; `reusable` is false when the connection is gone. */
  released(connection: Connection, reusable: boolean): void {
    this.busy.delete(connection);
    if (!reusable) {
      this.open--;
      connection.socket.destroy();
    }
    if (this.closed) {
      connection.socket.destroy();
      return;
    }
    if (this.queueHead >= this.queue.length) {
      if (reusable) this.idle.push(connection);
      return;
    }
    // A connection that is gone was just given back, so a new one can always be opened.
    const target = reusable ? connection : this.connect();
    if (target !== undefined) this.start(target, this.takeQueued());
  }

  /** An idle connection closed by the server: forget it. */
  dropped(connection: Connection): void {
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    this.open--;
  }

  /** The first queued request (the caller checked that there is one). */
  private takeQueued(): Done {
    const next = this.queue[this.queueHead]!;
    this.queue[this.queueHead++] = undefined as unknown as Done;
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
    return next;
  }
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const CR = 13;
const LF = 10;

/** One keep-alive connection and the parse state of the answer it is reading. */
class Connection {
  private done: Done | undefined;
  private data: Buffer | undefined;
  /** The client no longer counts this connection as open. */
  private gone = false;

  constructor(
    private readonly client: LoadClient,
    readonly socket: Socket,
  ) {
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('connection closed before the answer ended')));
  }

  start(done: Done, request: Buffer): void {
    this.done = done;
    this.data = undefined;
    this.socket.write(request);
  }

  /** Ends the request in flight with `error` (if any) and drops the connection. */
  fail(error: Error): void {
    const done = this.done;
    if (this.gone) return;
    this.gone = true;
    if (done === undefined) {
      this.client.dropped(this);
      return;
    }
    this.done = undefined;
    this.client.released(this, false);
    done(error, 0, undefined);
  }

  private received(chunk: Buffer): void {
    if (this.done === undefined) {
      this.fail(new Error('bytes received with no request in flight'));
      return;
    }
    this.data = this.data === undefined ? chunk : Buffer.concat([this.data, chunk]);
    let answer: Answer | undefined;
    try {
      answer = parseAnswer(this.data);
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    if (answer === undefined) return;
    const done = this.done;
    this.done = undefined;
    this.data = undefined;
    this.gone = !answer.keepAlive;
    this.client.released(this, answer.keepAlive);
    done(undefined, answer.status, answer.body);
  }
}

interface Answer {
  readonly status: number;
  readonly body: Buffer;
  readonly keepAlive: boolean;
}

/** The answer in `data`, undefined while it is incomplete; throws when it is malformed or followed by more bytes. */
export function parseAnswer(data: Buffer): Answer | undefined {
  const headerEnd = data.indexOf(HEADER_END);
  if (headerEnd < 0) return undefined;
  const head = data.toString('latin1', 0, headerEnd).toLowerCase();
  const status = /^http\/1\.[01] (\d{3})/.exec(head);
  if (status === null) throw new Error(`not an HTTP/1.x answer: ${JSON.stringify(head.slice(0, 40))}`);
  const keepAlive = !/\r\nconnection: *close/.test(head) && head.startsWith('http/1.1');
  const start = headerEnd + HEADER_END.length;
  const length = /\r\ncontent-length: *(\d+)/.exec(head);
  let body: Buffer | undefined;
  let end: number;
  if (status[1] === '204' || status[1] === '304') {
    end = start; // no body, whatever the headers say
    body = data.subarray(start, start);
  } else if (length !== null) {
    end = start + Number(length[1]);
    if (data.length < end) return undefined;
    body = data.subarray(start, end);
  } else if (/\r\ntransfer-encoding: *chunked/.test(head)) {
    const chunked = readChunked(data, start);
    if (chunked === undefined) return undefined;
    ({ body, end } = chunked);
  } else {
    throw new Error('answer has neither Content-Length nor chunked framing');
  }
  if (data.length > end) throw new Error('bytes after the answer');
  return { status: Number(status[1]), body, keepAlive };
}

/** A chunked body from `start`, undefined while incomplete. */
function readChunked(data: Buffer, start: number): { body: Buffer; end: number } | undefined {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = data.indexOf(CRLF, at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(data.toString('latin1', at, lineEnd).split(';')[0] ?? '', 16);
    if (!Number.isFinite(size) || size < 0) throw new Error('malformed chunk size');
    at = lineEnd + CRLF.length;
    if (size === 0) {
      // The last chunk; trailers, if any, are skipped up to the empty line that ends them.
      if (data.length < at + CRLF.length) return undefined;
      const body = Buffer.concat(parts);
      if (data[at] === CR && data[at + 1] === LF) return { body, end: at + CRLF.length };
      const trailersEnd = data.indexOf(HEADER_END, at);
      return trailersEnd < 0 ? undefined : { body, end: trailersEnd + HEADER_END.length };
    }
    if (data.length < at + size + CRLF.length) return undefined;
    parts.push(data.subarray(at, at + size));
    at += size + CRLF.length;
  }
}
