/**
 * The HTTP shell of the hand-written peers and the backend (one place, so every peer pays the
 * same HTTP cost), and the client every peer reaches the backend with: one undici Pool per
 * source, with the gateway's default connection count, so the peers and gqlgw differ only in what
 * they do between the calls.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

export interface JsonReply {
  readonly status: number;
  readonly body: string;
}

/** Answers one request body; a rejection becomes a 500. */
export type BodyHandler = (requestBody: string) => Promise<JsonReply> | JsonReply;

export interface Listening {
  readonly url: string;
  close(): Promise<void>;
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')));
    req.on('error', reject);
  });
}

/** A server that answers every request with `handler(body)`, as JSON with a Content-Length. */
export function createJsonServer(handler: BodyHandler): Server {
  return createServer((req, res) => {
    const write = (reply: JsonReply): void => {
      res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(reply.body) });
      res.end(reply.body);
    };
    readBody(req)
      .then(handler)
      .then(write, (error: unknown) => write({ status: 500, body: JSON.stringify({ errors: [{ message: String(error) }] }) }));
  });
}

/** Listens on 127.0.0.1:port (0 = any free port); `path` is appended to the URL. */
export function listen(server: Server, port: number, path: string): Promise<Listening> {
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const close = (): Promise<void> => new Promise((done) => server.close(() => done()).closeAllConnections());
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, close });
    });
  });
}

/** GETs `path` from the backend and parses the JSON body; rejects on a non-200 status. */
export type GetJson = (path: string) => Promise<unknown>;

export interface Upstream {
  readonly posts: GetJson;
  readonly users: GetJson;
  close(): Promise<void>;
}

/** Keep-alive connections per source: the gateway's per-source default, like for like. */
export const UPSTREAM_CONNECTIONS = 64;

export function createUpstream(backendUrl: string): Upstream {
  const pools = [new Pool(backendUrl, { connections: UPSTREAM_CONNECTIONS }), new Pool(backendUrl, { connections: UPSTREAM_CONNECTIONS })];
  const source =
    (pool: Pool): GetJson =>
    async (path) => {
      const { statusCode, body } = await pool.request({ method: 'GET', path });
      if (statusCode === 200) return body.json();
      await body.dump();
      throw new Error(`backend GET ${path} answered ${statusCode}`);
    };
  return { posts: source(pools[0]!), users: source(pools[1]!), close: async () => void (await Promise.all(pools.map((p) => p.close()))) };
}
