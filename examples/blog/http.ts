/**
 * The little HTTP layer the example services share (the three blog services, examples/github): a route table of `/path/:param` patterns
 * (GET, or `METHOD /path/:param` for writes), JSON request bodies, JSON answers (none for a 204),
 * a 404 JSON body for anything unknown, and start/close on node:http.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BlogRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The parsed JSON body of a write (undefined when there is none). */
  readonly body: unknown;
  /** Request headers, names lower-cased (examples/github checks its token here). */
  readonly headers: http.IncomingHttpHeaders;
  /** The path and query as received, e.g. `/users?ids=1,2` (examples/github builds links from it). */
  readonly url?: string;
}

/**
 * A handler answers with a JSON body and an optional status (200 when absent) and headers; a 204
 * or a 304 has no body.
 */
export type BlogHandler = (request: BlogRequest) => {
  readonly status?: number;
  readonly json?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
};

/** Pattern such as `/users/:id` (GET) or `PATCH /users/:id`. */
export type BlogRoutes = ReadonlyArray<readonly [pattern: string, handler: BlogHandler]>;

export interface RunningService {
  /** Base URL, e.g. http://127.0.0.1:4001 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Matches `/users/:id` against `/users/7` → { id: "7" }; undefined when it does not match. */
function matchPattern(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of want.entries()) {
    const value = got[i] ?? '';
    if (segment.startsWith(':')) {
      if (value === '') return undefined;
      params[segment.slice(1)] = decodeURIComponent(value);
    } else if (segment !== value) {
      return undefined;
    }
  }
  return params;
}

function send(res: http.ServerResponse, status: number, json: unknown, headers?: Readonly<Record<string, string>>): void {
  if (status === 204 || status === 304) {
    res.writeHead(status, headers).end();
    return;
  }
  const body = JSON.stringify(json);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function handle(routes: BlogRoutes, req: http.IncomingMessage, res: http.ServerResponse, text: string): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = req.method ?? 'GET';
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    send(res, 400, { error: 'the request body is not JSON' });
    return;
  }
  let pathMatched = false;
  for (const [route, handler] of routes) {
    const space = route.indexOf(' ');
    const [routeMethod, pattern] = space < 0 ? ['GET', route] : [route.slice(0, space), route.slice(space + 1)];
    const params = matchPattern(pattern, url.pathname);
    if (params === undefined) continue;
    pathMatched = true;
    if (routeMethod !== method) continue;
    try {
      const answer = handler({ params, query: url.searchParams, body, headers: req.headers, url: req.url });
      send(res, answer.status ?? 200, answer.json, answer.headers);
    } catch {
      send(res, 500, { error: 'internal error' });
    }
    return;
  }
  if (pathMatched) send(res, 405, { error: `method ${method} not allowed on ${url.pathname}` });
  else send(res, 404, { error: `no route for ${method} ${url.pathname}` });
}

/**
 * Starts a service on host:port (0 picks a free port) and resolves once it listens. `observe` sees
 * every request and its response (examples/github records what it was sent).
 */
export function startService(
  routes: BlogRoutes,
  host: string,
  port: number,
  observe?: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<RunningService> {
  const server = http.createServer((req, res) => {
    observe?.(req, res);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(routes, req, res, Buffer.concat(chunks).toString('utf8')));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const actual = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${host}:${actual}`,
        port: actual,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** Parses `1,2,3` into positive integer ids; anything that is not one is skipped. */
export function parseIds(list: string | null): number[] {
  if (list === null || list === '') return [];
  return list
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
}

/** Parses an optional positive integer query parameter, falling back when absent or invalid. */
export function parseLimit(value: string | null, fallback: number, max: number): number {
  if (value === null) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) return fallback;
  return Math.min(n, max);
}

export function notFound(what: string, id: string | undefined): { status: number; json: unknown } {
  return { status: 404, json: { error: `${what} ${id ?? '(none)'} not found` } };
}
