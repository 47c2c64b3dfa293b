/**
 * A misbehaving upstream for the hardening tests: a real node:http server on 127.0.0.1 (free port)
 * whose route handlers answer with a `Fault` (a normal JSON answer, or one of the ways a source
 * can go wrong), and which records every request, how many were in flight at most, and how many
 * the gateway gave up on (closed before the answer was complete).
 *
 *   const up = await startFaultyUpstream({
 *     'GET /users': ({ query }) => ({ kind: 'json', body: ids(query).map(...) }),
 *     'GET /users/:id': () => ({ kind: 'reset' }),
 *   });
 *   up.count('GET /users'); up.maxInFlight; up.abandoned; await up.close();
 *
 * Route keys are `METHOD /path` with `:name` segments, tried in insertion order; an unmatched
 * request is answered 404 JSON. Every timer is dropped when the client goes away or on close().
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { compileRoute, matchSegments, splitIds, type CompiledRoute } from './routes.js';
import { listenLocal } from './listen.js';

export type Fault =
  /** A normal answer: JSON with a content-length, after `delayMs` (headers and body together). */
  | { readonly kind: 'json'; readonly body: unknown; readonly status?: number; readonly delayMs?: number }
  /** A body sent verbatim, e.g. HTML labelled application/json. */
  | { readonly kind: 'raw'; readonly body: string; readonly contentType: string; readonly status?: number }
  /** The socket is destroyed as soon as the request arrived: no status line at all. */
  | { readonly kind: 'reset' }
  /** Headers at once, then `chunks` one every `intervalMs` (chunked encoding); the sum is valid JSON. */
  | { readonly kind: 'drip'; readonly chunks: readonly string[]; readonly intervalMs: number }
  /** A JSON array of about `bytes` bytes, with or without a (true) content-length. */
  | { readonly kind: 'oversized'; readonly bytes: number; readonly declareLength: boolean }
  /** Bytes that are not HTTP, then the socket is closed. */
  | { readonly kind: 'garbage' };

export interface FaultyRequest {
  readonly method: string;
  /** Path without the query string, as received. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly params: Readonly<Record<string, string>>;
  readonly route: string | undefined;
  /** 1 for the first request to this route, 2 for the second, ... */
  readonly nth: number;
}

export type FaultHandler = (request: FaultyRequest) => Fault;

export interface FaultyUpstream {
  /** Base URL without a trailing slash: use it as a source `url`. */
  readonly url: string;
  readonly requests: readonly FaultyRequest[];
  count(route?: string): number;
  requestsFor(route: string): FaultyRequest[];
  /** The most requests this server was answering at the same time. */
  readonly maxInFlight: number;
  readonly inFlight: number;
  /** Requests whose connection the client closed before the answer was complete. */
  readonly abandoned: number;
  /** TCP connections accepted so far, and open now. */
  readonly connectionsAccepted: number;
  readonly connectionsOpen: number;
  setRoute(route: string, handler: FaultHandler): void;
  reset(): void;
  close(): Promise<void>;
}

type Route = CompiledRoute<FaultHandler>;

/** `?ids=1,2,3` → ['1', '2', '3']. */
export function idsOf(query: URLSearchParams, name = 'ids'): string[] {
  return splitIds(query.get(name));
}

export async function startFaultyUpstream(table: Readonly<Record<string, FaultHandler>> = {}): Promise<FaultyUpstream> {
  const routes = Object.entries(table).map(([k, h]) => compileRoute(k, h));
  let requests: FaultyRequest[] = [];
  const perRoute = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let inFlight = 0;
  let maxInFlight = 0;
  let abandoned = 0;
  let accepted = 0;

  const later = (res: http.ServerResponse, ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      if (!res.destroyed) fn();
    }, ms);
    timers.add(t);
    res.once('close', () => {
      clearTimeout(t);
      timers.delete(t);
    });
  };

  /** Responses this server cut off itself (reset, garbage): not counted as abandoned. */
  const cutOff = new WeakSet<http.ServerResponse>();

  const answer = (req: http.IncomingMessage, res: http.ServerResponse, fault: Fault): void => {
    switch (fault.kind) {
      case 'json': {
        const send = () => {
          const body = JSON.stringify(fault.body);
          res.writeHead(fault.status ?? 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
        };
        if (fault.delayMs) later(res, fault.delayMs, send);
        else send();
        return;
      }
      case 'raw':
        res
          .writeHead(fault.status ?? 200, { 'content-type': fault.contentType, 'content-length': Buffer.byteLength(fault.body) })
          .end(fault.body);
        return;
      case 'reset':
        cutOff.add(res);
        req.socket.destroy();
        return;
      case 'garbage':
        cutOff.add(res);
        req.socket.end('SSH-2.0-OpenSSH_9.0 this is not HTTP\r\n\r\n');
        return;
      case 'drip': {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        let i = 0;
        const next = () => {
          if (i >= fault.chunks.length) {
            res.end();
            return;
          }
          res.write(fault.chunks[i++]!);
          later(res, fault.intervalMs, next);
        };
        next();
        return;
      }
      case 'oversized': {
        const item = JSON.stringify({ id: 'x', pad: 'p'.repeat(1000) });
        const n = Math.max(1, Math.ceil(fault.bytes / (item.length + 1)));
        const body = `[${Array.from({ length: n }, () => item).join(',')}]`;
        const headers: Record<string, string | number> = { 'content-type': 'application/json' };
        if (fault.declareLength) headers['content-length'] = Buffer.byteLength(body);
        res.writeHead(200, headers);
        res.end(body);
        return;
      }
    }
  };

  const server = http.createServer((req, res) => {
    req.resume();
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const path = q === -1 ? raw : raw.slice(0, q);
    const method = req.method ?? 'GET';
    let found: { route: Route; params: Record<string, string> } | undefined;
    for (const route of routes) {
      if (route.method !== method) continue;
      const params = matchSegments(route.segments, path);
      if (params) {
        found = { route, params };
        break;
      }
    }
    const nth = (perRoute.get(found?.route.key ?? '') ?? 0) + 1;
    perRoute.set(found?.route.key ?? '', nth);
    const recorded: FaultyRequest = {
      method,
      path,
      query: new URLSearchParams(q === -1 ? '' : raw.slice(q)),
      params: found?.params ?? {},
      route: found?.route.key,
      nth,
    };
    requests.push(recorded);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => {
      inFlight--;
      if (!res.writableFinished && !cutOff.has(res)) abandoned++;
    });
    if (!found) {
      answer(req, res, { kind: 'json', status: 404, body: { error: 'no route' } });
      return;
    }
    let fault: Fault;
    try {
      fault = found.route.handler(recorded);
    } catch (err) {
      fault = { kind: 'json', status: 500, body: { error: String(err) } };
    }
    answer(req, res, fault);
  });
  server.on('connection', (socket: Socket) => {
    accepted++;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const port = await listenLocal(server);
  let closed = false;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    count: (route) => (route === undefined ? requests.length : requests.filter((r) => r.route === route).length),
    requestsFor: (route) => requests.filter((r) => r.route === route),
    get maxInFlight() {
      return maxInFlight;
    },
    get inFlight() {
      return inFlight;
    },
    get abandoned() {
      return abandoned;
    },
    get connectionsAccepted() {
      return accepted;
    },
    get connectionsOpen() {
      return sockets.size;
    },
    setRoute(key, handler) {
      const existing = routes.find((r) => r.key === key);
      if (existing) existing.handler = handler;
      else routes.push(compileRoute(key, handler));
    },
    reset() {
      requests = [];
      perRoute.clear();
      maxInFlight = inFlight;
      abandoned = 0;
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
    },
  };
}
