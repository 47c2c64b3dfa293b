/**
 * The benchmark backend: the REST service behind gqlgw and every peer. Each counted request is
 * answered after `delayMs` (2 ms). With `inService: N` it models a pool-bound service: at most N
 * requests are in service at once, the rest wait in arrival order (the shared-batching phase).
 *
 *   GET /posts?limit=N   the first N posts          GET /posts/{id}   one post, 404 if unknown
 *   GET /users/{id}      one user, 404 if unknown
 *   GET /users?ids=a,b   /posts?ids=a,b: the known records among the ids, in reverse order of the
 *                        request (clients must match by `id`, as @batch does)
 *   GET /__stats         {"requests", "maxInService", "bodyBytes", "notModified"}: not counted, not delayed
 *
 * With `etags: true` (the revalidation phase) every 200 carries `ETag: "<url>"` (the data never
 * changes), and a request whose If-None-Match is that ETag is answered 304 without a body.
 * `bodyBytes` sums the body bytes of every counted answer (a 304 has none; headers are not counted).
 */
import { createServer } from 'node:http';
import { backendPost, backendUser, RECORD_COUNT } from './shared/data.js';
import { listen, type Listening } from './shared/http.js';

export const BACKEND_DELAY_MS = 2;

const bodies = (make: (id: number) => unknown): string[] =>
  Array.from({ length: RECORD_COUNT + 1 }, (_, id) => (id === 0 ? '' : JSON.stringify(make(id))));
const RECORDS: Readonly<Record<string, string[]>> = { '/users': bodies(backendUser), '/posts': bodies(backendPost) };

const record = (list: string[], id: string): string | undefined => (/^[1-9]\d*$/.test(id) ? list[Number(id)] : undefined);

/** The status and body of one counted request (pure). */
export function answerBackendRequest(url: string): { status: number; body: string } {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  const slash = path.indexOf('/', 1);
  const list = RECORDS[slash < 0 ? path : path.slice(0, slash)];
  if (list === undefined) return { status: 404, body: '{"error":"no such route"}' };
  if (slash >= 0) {
    const body = record(list, path.slice(slash + 1));
    return body === undefined ? { status: 404, body: '{"error":"not found"}' } : { status: 200, body };
  }
  const ids = params.get('ids');
  if (ids !== null) {
    const found = ids.split(',').map((id) => record(list, id));
    return {
      status: 200,
      body: `[${found
        .filter((b) => b !== undefined)
        .reverse()
        .join(',')}]`,
    };
  }
  const limit = Number(params.get('limit'));
  if (path !== '/posts' || !Number.isInteger(limit) || limit < 0) return { status: 400, body: '{"error":"bad request"}' };
  return { status: 200, body: `[${list.slice(1, 1 + Math.min(limit, RECORD_COUNT)).join(',')}]` };
}

type BackendOptions = { port?: number; inService?: number; delayMs?: number; etags?: boolean };
export async function startBackend(options: BackendOptions = {}): Promise<Listening> {
  const limit = options.inService ?? Number.POSITIVE_INFINITY;
  const stats = { requests: 0, maxInService: 0, bodyBytes: 0, notModified: 0 };
  let inService = 0;
  const waiting: Array<() => void> = [];
  const serve = (done: () => void): void => {
    inService++;
    stats.maxInService = Math.max(stats.maxInService, inService);
    setTimeout(() => {
      inService--;
      done();
      waiting.shift()?.();
    }, options.delayMs ?? BACKEND_DELAY_MS);
  };
  const server = createServer((req, res) => {
    const reply = ({ status, body }: { status: number; body: string }, etag?: string): void => {
      const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(etag && { etag }) };
      res.writeHead(status, headers);
      res.end(body);
      if (counted) stats.bodyBytes += headers['content-length'];
    };
    const counted = req.url !== '/__stats';
    if (!counted) return reply({ status: 200, body: JSON.stringify(stats) });
    stats.requests++;
    const answer = answerBackendRequest(req.url ?? '/');
    const etag = options.etags && answer.status === 200 ? `"${req.url}"` : undefined;
    const unchanged = etag !== undefined && req.headers['if-none-match'] === etag;
    stats.notModified += unchanged ? 1 : 0;
    const start = (): void => serve(() => reply(unchanged ? { status: 304, body: '' } : answer, etag));
    if (inService < limit) start();
    else waiting.push(start);
  });
  return listen(server, options.port ?? 0, '');
}
