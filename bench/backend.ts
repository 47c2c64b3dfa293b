/**
 * The benchmark backend: the REST service behind gqlgw and every peer. Each counted request is
 * answered after `delayMs` (2 ms by default), like a service that does a little work.
 *
 *   GET /posts?limit=N      the first N of the 100 posts (JSON array)
 *   GET /users/{id}         one user, 404 if unknown
 *   GET /users?ids=a,b,c    the known users among the ids, in reverse order of the request
 *                           (clients must match by `id`, as @batch does)
 *   GET /__stats            {"requests": n}: requests counted so far; not counted, not delayed
 *
 * The count is what "subrequests per query" is computed from.
 */
import { createServer } from 'node:http';
import { POSTS, USERS } from './shared/data.js';
import { listen, type Listening } from './shared/http-server.js';

export interface BackendOptions {
  readonly port?: number;
  readonly host?: string;
  readonly delayMs?: number;
}

export interface RunningBackend extends Listening {
  /** Counted requests served or in progress since start. */
  requestCount(): number;
}

export const BACKEND_DELAY_MS = 2;

const USER_BODIES = new Map<string, string>([...USERS].map(([id, u]) => [String(id), JSON.stringify(u)]));
const POSTS_BODIES = new Map<number, string>();

function postsBody(limit: number): string {
  let body = POSTS_BODIES.get(limit);
  if (body === undefined) {
    body = JSON.stringify(POSTS.slice(0, limit));
    POSTS_BODIES.set(limit, body);
  }
  return body;
}

/** The status and body of one counted request (pure). */
export function answerBackendRequest(url: string): { status: number; body: string } {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  if (path === '/posts') {
    const limit = Number(params.get('limit') ?? POSTS.length);
    if (!Number.isInteger(limit) || limit < 0) return { status: 400, body: '{"error":"bad limit"}' };
    return { status: 200, body: postsBody(Math.min(limit, POSTS.length)) };
  }
  if (path === '/users') {
    const ids = (params.get('ids') ?? '').split(',').filter((s) => s !== '');
    const found = ids.map((id) => USER_BODIES.get(id)).filter((b): b is string => b !== undefined);
    return { status: 200, body: `[${found.reverse().join(',')}]` };
  }
  if (path.startsWith('/users/')) {
    const body = USER_BODIES.get(decodeURIComponent(path.slice('/users/'.length)));
    return body === undefined ? { status: 404, body: '{"error":"not found"}' } : { status: 200, body };
  }
  return { status: 404, body: '{"error":"no such route"}' };
}

export async function startBackend(options: BackendOptions = {}): Promise<RunningBackend> {
  const delayMs = options.delayMs ?? BACKEND_DELAY_MS;
  let requests = 0;
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/__stats') {
      const body = JSON.stringify({ requests });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    requests++;
    const { status, body } = answerBackendRequest(url);
    setTimeout(() => {
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }, delayMs);
  });
  const listening = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1', '');
  return { ...listening, requestCount: () => requests };
}
