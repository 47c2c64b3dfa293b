/**
 * The hand-written peers: the same two backend calls as gqlgw's batch variant, with no GraphQL
 * engine. `answerQuery` is the whole request path between reading the body and writing the JSON;
 * the peers differ only in how they get users for a list of ids.
 *
 * - ceiling: every query asks the backend for all its authors (2 subrequests).
 * - per-item cache: a process LRU of users (ttl 300 s, like `@cache(ttl: 300)`), only misses
 *   batched (1 subrequest once warm) — the peer of gqlgw's batch + cache variant.
 * - no batch: one `/users/{id}` per distinct author, all at once (1 + 100 subrequests): the same
 *   101 undici GETs as gqlgw without @batch — the peer of gqlgw's no-batch variant.
 * - floor: no backend, no parsing: writes the precomputed answer; the cost of HTTP alone.
 */
import { LRUCache } from 'lru-cache';
import { EXPECTED_BODY, FRONT_EXPECTED_BODY, QUERY, type BackendPost, type BackendUser } from '../shared/data.js';
import type { BodyHandler } from '../shared/http-server.js';
import type { Upstream } from '../shared/upstream.js';

/** Users by `String(id)` for the given distinct keys; missing keys are absent. */
type UserLookup = (keys: readonly string[]) => Promise<Map<string, BackendUser>>;

const BAD_QUERY = JSON.stringify({ errors: [{ message: 'this server only answers the benchmark query' }] });

function queryOf(requestBody: string): unknown {
  try {
    return (JSON.parse(requestBody) as { query?: unknown }).query;
  } catch {
    return undefined;
  }
}

function answerQuery(upstream: Upstream, lookupUsers: UserLookup): BodyHandler {
  return async (requestBody) => {
    if (queryOf(requestBody) !== QUERY) return { status: 400, body: BAD_QUERY };
    const posts = (await upstream.posts.getJson('/posts?limit=100')) as BackendPost[];
    const keys = [...new Set(posts.map((p) => String(p.author_id)))];
    const users = await lookupUsers(keys);
    const answer = posts.map((p) => {
      const user = users.get(String(p.author_id));
      return { id: String(p.id), title: p.title, author: user === undefined ? null : { name: user.name } };
    });
    return { status: 200, body: JSON.stringify({ data: { posts: answer } }) };
  };
}

async function fetchUsers(upstream: Upstream, keys: readonly string[]): Promise<Map<string, BackendUser>> {
  const found = new Map<string, BackendUser>();
  if (keys.length === 0) return found;
  const users = (await upstream.users.getJson(`/users?ids=${keys.map(encodeURIComponent).join(',')}`)) as BackendUser[];
  for (const user of users) found.set(String(user.id), user);
  return found;
}

/** The hand-written ceiling: two backend calls per query, nothing else. */
export function ceilingHandler(upstream: Upstream): BodyHandler {
  return answerQuery(upstream, (keys) => fetchUsers(upstream, keys));
}

/** The hand-written per-item cache: users from a process LRU, misses batched in one call. */
export function perItemCacheHandler(upstream: Upstream, ttlSeconds = 300, maxEntries = 100_000): BodyHandler {
  const cache = new LRUCache<string, BackendUser>({ max: maxEntries, ttl: ttlSeconds * 1000 });
  return answerQuery(upstream, async (keys) => {
    const users = new Map<string, BackendUser>();
    const misses: string[] = [];
    for (const key of keys) {
      const hit = cache.get(key);
      if (hit === undefined) misses.push(key);
      else users.set(key, hit);
    }
    for (const [key, user] of await fetchUsers(upstream, misses)) {
      cache.set(key, user);
      users.set(key, user);
    }
    return users;
  });
}

/** Hand-written without a batch endpoint: one GET per distinct author, sent concurrently. */
export function noBatchHandler(upstream: Upstream): BodyHandler {
  return answerQuery(upstream, async (keys) => {
    const users = await Promise.all(keys.map((key) => upstream.users.getJson(`/users/${encodeURIComponent(key)}`) as Promise<BackendUser>));
    const found = new Map<string, BackendUser>();
    for (const user of users) found.set(String(user.id), user);
    return found;
  });
}

/** The front reference: parses the request body like a server must, answers `{ __typename }`'s bytes. */
export function frontHandler(): BodyHandler {
  const reply = { status: 200, body: FRONT_EXPECTED_BODY };
  return (body) => {
    JSON.parse(body);
    return reply;
  };
}

/** The floor: the precomputed answer, no backend, no parsing. */
export function floorHandler(): BodyHandler {
  const reply = { status: 200, body: EXPECTED_BODY };
  return () => reply;
}
