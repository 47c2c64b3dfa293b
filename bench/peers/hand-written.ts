/**
 * The hand-written peers of the blog rows: the backend calls of a gqlgw variant, with no GraphQL
 * engine. `answerQuery` is the whole request path between reading the body and writing the JSON;
 * the peers differ only in how they get the users for a list of ids.
 * - ceiling: one `/users?ids=` for all the authors (2 subrequests per query);
 * - per-item cache: a process LRU of users (ttl 300 s, like `@cache(ttl: 300)`), only misses
 *   batched (1 subrequest once warm): the peer of gqlgw's batch + cache;
 * - no batch: one `/users/{id}` per distinct author, all at once (1 + 100 subrequests, the same
 *   101 undici GETs as gqlgw without @batch): the peer of gqlgw's no batch;
 * - floor: no backend, no parsing, the precomputed answer: the cost of HTTP alone.
 */
import { LRUCache } from 'lru-cache';
import { EXPECTED_BODY, QUERY, type BackendPost, type BackendUser } from '../shared/data.js';
import type { BodyHandler, Upstream } from '../shared/http.js';

/** Users by `String(id)` for the given distinct keys; missing keys are absent. */
type UserLookup = (keys: readonly string[]) => Promise<Map<string, BackendUser>>;

const BAD_QUERY = { status: 400, body: JSON.stringify({ errors: [{ message: 'this server only answers the benchmark query' }] }) };

function answerQuery(upstream: Upstream, lookupUsers: UserLookup): BodyHandler {
  return async (requestBody) => {
    if ((JSON.parse(requestBody) as { query?: unknown }).query !== QUERY) return BAD_QUERY; // malformed JSON: a 500
    const posts = (await upstream.posts('/posts?limit=100')) as BackendPost[];
    const users = await lookupUsers([...new Set(posts.map((p) => String(p.author_id)))]);
    const answer = posts.map((p) => {
      const user = users.get(String(p.author_id));
      return { id: String(p.id), title: p.title, author: user === undefined ? null : { name: user.name } };
    });
    return { status: 200, body: JSON.stringify({ data: { posts: answer } }) };
  };
}

const byId = (users: readonly BackendUser[]): Map<string, BackendUser> => new Map(users.map((u) => [String(u.id), u]));

async function fetchUsers(upstream: Upstream, keys: readonly string[]): Promise<Map<string, BackendUser>> {
  return keys.length === 0
    ? new Map()
    : byId((await upstream.users(`/users?ids=${keys.map(encodeURIComponent).join(',')}`)) as BackendUser[]);
}

export function ceilingHandler(upstream: Upstream): BodyHandler {
  return answerQuery(upstream, (keys) => fetchUsers(upstream, keys));
}

export function perItemCacheHandler(upstream: Upstream): BodyHandler {
  const cache = new LRUCache<string, BackendUser>({ max: 100_000, ttl: 300_000 });
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

export function noBatchHandler(upstream: Upstream): BodyHandler {
  return answerQuery(upstream, async (keys) =>
    byId(await Promise.all(keys.map((key) => upstream.users(`/users/${encodeURIComponent(key)}`) as Promise<BackendUser>))),
  );
}

export function floorHandler(body = EXPECTED_BODY): BodyHandler {
  const reply = { status: 200, body };
  return () => reply;
}
