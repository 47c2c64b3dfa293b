/**
 * A counting upstream for end-to-end tests: a real node:http server on 127.0.0.1 (free port) that
 * answers from a route table and records every request it receives, so a test can assert exactly
 * what the gateway sent.
 *
 *   const users = await startUpstream({
 *     'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: `user ${params.id}` } }),
 *     'GET /users': ({ query }) => ({ json: ids(query.get('ids')).map(...) }),
 *     'GET /slow': () => ({ json: {}, delayMs: 2000 }),
 *     'GET /broken': () => ({ status: 500, body: 'oops' }),
 *   });
 *   // point a gateway source at users.url, run queries, then:
 *   users.count('GET /users/:id'); users.requests[0].query.get('ids'); await users.close();
 *
 * Route keys are `METHOD /path` with `:name` segments; they match the path only (the query string
 * is in `request.query`; the body, as text, in `request.body`). Routes are tried in insertion order. An unmatched request is recorded
 * with `route: undefined` and answered 404 JSON.
 */
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { compileRoute, matchSegments, type CompiledRoute } from './routes.js';
import { listenLocal } from './listen.js';

export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string, still URL-encoded as received, e.g. `/users/42`. */
  readonly path: string;
  /** The raw query string with its `?`, or '' when there is none. */
  readonly search: string;
  /** Path and query string exactly as received, e.g. `/users?ids=1,2`. */
  readonly url: string;
  /** The decoded query parameters. */
  readonly query: URLSearchParams;
  /** Request headers, names lower-cased (node:http). */
  readonly headers: IncomingHttpHeaders;
  /** The request body as text ('' when there is none). */
  readonly body: string;
  /** The route key that answered, e.g. `GET /users/:id`; undefined when none matched. */
  readonly route: string | undefined;
}

/** The `:name` segments of a route key: `GET /users/:id/posts/:n` → 'id' | 'n' (any name for a key not known statically). */
export type ParamNames<Key extends string> = string extends Key
  ? string
  : Key extends `${string}:${infer Name}/${infer Rest}`
    ? Name | ParamNames<Rest>
    : Key extends `${string}:${infer Name}`
      ? Name
      : never;

export interface RouteRequest<Name extends string = string> extends RecordedRequest {
  /** Decoded `:name` segments of the matched route (typed from the route key in a table). */
  readonly params: Readonly<Record<Name, string>>;
}

export interface RouteReply {
  /** HTTP status; 200 when absent. */
  readonly status?: number;
  /** Sent as JSON (content-type application/json) unless `body` is given. */
  readonly json?: unknown;
  /** Raw body sent verbatim (content-type text/plain unless set in `headers`); wins over `json`. */
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Wait this long before answering; the timer is dropped if the client goes away or on close(). */
  readonly delayMs?: number;
}

export type RouteHandler<Name extends string = string> = (request: RouteRequest<Name>) => RouteReply | Promise<RouteReply>;
/** Route key → handler; each handler's `params` has exactly the key's `:name` segments. */
export type RouteTable<Keys extends string = string> = { readonly [Key in Keys]: RouteHandler<ParamNames<Key>> };

/** A route table whose handlers' `params` are typed from their keys, usable where any table is. */
export function routeTable<Keys extends string>(table: RouteTable<Keys>): RouteTable {
  return table as RouteTable;
}

export interface CountingUpstream {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:53127: use it as a source `url`. */
  readonly url: string;
  readonly port: number;
  /** Every request received since start or the last reset(), in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Requests received for one route key (e.g. `GET /users/:id`), or in total when omitted. */
  count(route?: string): number;
  /** Requests for one route key, in arrival order. */
  requestsFor(route: string): RecordedRequest[];
  /** Adds a route, or replaces the handler of an existing key (keeps its position). */
  setRoute<Key extends string>(route: Key, handler: RouteHandler<ParamNames<Key>>): void;
  /** Forgets the recorded requests (routes stay). */
  reset(): void;
  /** Stops listening, drops pending delayed answers and destroys open (keep-alive) sockets. */
  close(): Promise<void>;
}

type CompiledRouteOf = CompiledRoute<RouteHandler>;

export async function startUpstream<Keys extends string>(table?: RouteTable<Keys>): Promise<CountingUpstream> {
  // A route's handler only ever sees params matched against its own key, so widening its type is safe.
  const entries = Object.entries((table ?? {}) as Readonly<Record<string, RouteHandler<never>>>);
  const routes: CompiledRouteOf[] = entries.map(([key, handler]) => compileRoute(key, handler as RouteHandler));
  let requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const send = (res: http.ServerResponse, reply: RouteReply): void => {
    if (res.destroyed || res.writableEnded) return;
    const raw = reply.body !== undefined;
    const body = raw ? reply.body! : JSON.stringify(reply.json ?? null);
    res.writeHead(reply.status ?? 200, {
      'content-type': raw ? 'text/plain' : 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      ...reply.headers,
    });
    res.end(body);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')));
  });

  const answer = (req: http.IncomingMessage, res: http.ServerResponse, body: string): void => {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const search = q === -1 ? '' : rawUrl.slice(q);
    const method = req.method ?? 'GET';
    let matched: { route: CompiledRouteOf; params: Record<string, string> } | undefined;
    for (const route of routes) {
      if (route.method !== method) continue;
      const params = matchSegments(route.segments, path);
      if (params !== undefined) {
        matched = { route, params };
        break;
      }
    }
    const recorded: RecordedRequest = {
      method,
      path,
      search,
      url: rawUrl,
      query: new URLSearchParams(search),
      headers: req.headers,
      body,
      route: matched?.route.key,
    };
    requests.push(recorded);
    if (matched === undefined) {
      send(res, { status: 404, json: { error: `no route for ${method} ${path}` } });
      return;
    }
    const { route, params } = matched;
    Promise.resolve()
      .then(() => route.handler({ ...recorded, params }))
      .then(
        (reply) => {
          if (reply.delayMs === undefined || reply.delayMs <= 0) {
            send(res, reply);
            return;
          }
          const timer = setTimeout(() => {
            timers.delete(timer);
            send(res, reply);
          }, reply.delayMs);
          timers.add(timer);
          res.once('close', () => {
            clearTimeout(timer);
            timers.delete(timer);
          });
        },
        (error: unknown) => send(res, { status: 500, json: { error: `handler threw: ${String(error)}` } }),
      );
  };

  const port = await listenLocal(server);

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get requests() {
      return requests;
    },
    count: (route) => (route === undefined ? requests.length : requests.filter((r) => r.route === route).length),
    requestsFor: (route) => requests.filter((r) => r.route === route),
    setRoute: (key, handler) => {
      const existing = routes.find((r) => r.key === key);
      if (existing !== undefined) existing.handler = handler as RouteHandler;
      else routes.push(compileRoute(key, handler as RouteHandler));
    },
    reset: () => {
      requests = [];
    },
    close: () => {
      if (closed) return Promise.resolve();
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

export { splitIds } from './routes.js';
