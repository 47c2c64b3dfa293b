/**
 * The small HTTP shell of the hand-written peers: read the whole request body, hand it to a
 * handler, write its JSON answer. One place, so every hand-written peer pays the same HTTP cost.
 */
import { createServer, type Server, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JsonReply {
  readonly status: number;
  readonly body: string;
}

/** Answers one request body; must not throw (a rejection becomes a 500). */
export type BodyHandler = (requestBody: string) => Promise<JsonReply> | JsonReply;

export interface Listening {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Reads a request body as UTF-8 text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const only = chunks.length === 1 ? chunks[0] : undefined;
      resolve((only ?? Buffer.concat(chunks)).toString('utf8'));
    });
    req.on('error', reject);
  });
}

export function writeJson(res: ServerResponse, reply: JsonReply): void {
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(reply.body),
  });
  res.end(reply.body);
}

/** A server that answers every request with `handler(body)`. */
export function createJsonServer(handler: BodyHandler): Server {
  return createServer((req, res) => {
    readBody(req)
      .then((body) => handler(body))
      .then(
        (reply) => writeJson(res, reply),
        (error: unknown) => writeJson(res, { status: 500, body: JSON.stringify({ errors: [{ message: String(error) }] }) }),
      );
  });
}

/** Listens on host:port (0 = any free port); `path` is appended to the printed URL. */
export function listen(server: Server, port: number, host: string, path: string): Promise<Listening> {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      resolve({
        url: `http://${host}:${address.port}${path}`,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
