/**
 * The bench's own HTTP client (the open-loop driver's and the keyed closed loop's): keep-alive
 * HTTP/1.1 over `node:net`, one request in flight per connection, up to `connections`; more wait
 * in arrival order. It writes a prepared request and hands back the answer's bytes (undici took twice the CPU on the load core the backend shares).
 *
 * It reads what every benchmark server sends: a status line, headers, and a body framed by
 * Content-Length, or none for a 204 or 304. Anything else (no Content-Length, as a chunked answer,
 * bytes after the answer, a connection that ends mid-answer) fails that one request with an error
 * and drops its connection; the caller counts it wrong.
 */
import { connect, type Socket } from 'node:net';

/** How one request ended: an error, or the answer's status and body. */
export type Done = (error: Error | undefined, status: number, body: Buffer | undefined) => void;

export interface LoadClientOptions {
  readonly host: string;
  readonly port: number;
  readonly connections: number;
  /** The whole request written by a send that names none (method, path, headers, body). */
  readonly request?: Buffer;
}

/** The complete HTTP/1.1 request for a POST with these headers and body (Host and Content-Length added). */
export function postRequest(url: URL, headers: Readonly<Record<string, string>>, body: string): Buffer {
  const fields = Object.entries({ host: url.host, ...headers, 'content-length': String(Buffer.byteLength(body)) });
  return Buffer.from(`POST ${url.pathname}${url.search} HTTP/1.1\r\n${fields.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`);
}

/** A request waiting for a connection. */
type Pending = { readonly done: Done; readonly request: Buffer };

export class LoadClient {
  private readonly idle: Connection[] = [];
  private readonly busy = new Set<Connection>();
  private queue: Array<Pending | undefined> = [];
  private head = 0;
  private open = 0;
  private closed = false;

  constructor(private readonly options: LoadClientOptions) {}

  /** Sends `request` (else the options') on an idle connection, a new one, or after the requests queued before it. */
  send(done: Done, request: Buffer | undefined = this.options.request): void {
    if (this.closed) return done(new Error('client closed'), 0, undefined);
    if (request === undefined) return done(new Error('no request to send'), 0, undefined);
    this.queue.push({ done, request });
    this.pump();
  }

  /** Destroys every connection; requests in flight or queued end with an error. */
  close(): void {
    this.closed = true;
    const error = new Error('client closed');
    for (const connection of [...this.busy]) connection.fail(error);
    for (const connection of this.idle.splice(0)) connection.socket.destroy();
    for (const pending of this.queue.splice(this.head)) pending?.done(error, 0, undefined);
  }

  /** Starts queued requests on idle or new connections, up to the limit. */
  private pump(): void {
    while (this.head < this.queue.length && !this.closed) {
      let connection = this.idle.pop();
      if (connection === undefined && this.open < this.options.connections) {
        this.open++;
        connection = new Connection(this, connect({ host: this.options.host, port: this.options.port, noDelay: true }));
      }
      if (connection === undefined) return;
      const { done, request } = this.queue[this.head]!;
      this.queue[this.head++] = undefined;
      if (this.head === this.queue.length) [this.queue, this.head] = [[], 0];
      this.busy.add(connection);
      connection.start(done, request);
    }
  }

  /** A connection's request ended; `reusable` is false when the connection is gone. */
  released(connection: Connection, reusable: boolean): void {
    this.busy.delete(connection);
    if (!reusable || this.closed) {
      if (!reusable) this.open--;
      connection.socket.destroy();
    } else this.idle.push(connection);
    this.pump();
  }

  /** An idle connection closed by the server: forget it. */
  dropped(connection: Connection): void {
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    this.open--;
  }
}

const HEADER_END = Buffer.from('\r\n\r\n');

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
    if (this.gone) return;
    this.gone = true;
    const done = this.done;
    this.done = undefined;
    if (done === undefined) return this.client.dropped(this);
    this.client.released(this, false);
    done(error, 0, undefined);
  }

  private received(chunk: Buffer): void {
    const done = this.done;
    if (done === undefined) return this.fail(new Error('bytes received with no request in flight'));
    this.data = this.data === undefined ? chunk : Buffer.concat([this.data, chunk]);
    let answer: Answer | undefined;
    try {
      answer = parseAnswer(this.data);
    } catch (error) {
      return this.fail(error as Error);
    }
    if (answer === undefined) return;
    [this.done, this.data, this.gone] = [undefined, undefined, !answer.keepAlive];
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
  // A 204 or 304 has no body, whatever the headers say.
  const length = status[1] === '204' || status[1] === '304' ? ['', '0'] : /\r\ncontent-length: *(\d+)/.exec(head);
  if (length === null) throw new Error('answer has no Content-Length');
  const end = start + Number(length[1]);
  if (data.length < end) return undefined;
  if (data.length > end) throw new Error('bytes after the answer');
  return { status: Number(status[1]), body: data.subarray(start, end), keepAlive };
}
