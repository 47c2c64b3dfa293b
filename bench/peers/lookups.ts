/**
 * The peers of the shared-batching phase: hand-written servers that answer the lookup queries of
 * LOOKUP_WORKLOADS (shared/data.ts), and nothing else.
 * - per request: one backend call per lookup (`/users/{id}`, `/posts/{id}`), as a naive server does;
 * - DataLoader: every lookup goes through one process-wide DataLoader per source, cache off,
 *   flushed once per event-loop tick (setImmediate: after the I/O callbacks of this turn, so the
 *   requests read in it share; DataLoader's default, after the current job, flushes per request),
 *   so the keys of concurrent requests share `/users?ids=` and `/posts?ids=` calls.
 */
import DataLoader from 'dataloader';
import { LOOKUP_WORKLOADS, type BackendPost, type BackendUser } from '../shared/data.js';
import type { BodyHandler, JsonReply } from '../shared/http.js';
import type { Upstream } from '../shared/http.js';

type Source = 'users' | 'posts';
type Lookup = (source: Source, id: string) => Promise<unknown>;

const BAD: JsonReply = { status: 400, body: '{"errors":[{"message":"this server only answers the lookup queries"}]}' };
const ok = (data: unknown): JsonReply => ({ status: 200, body: JSON.stringify({ data }) });

function lookupHandler(get: Lookup): BodyHandler {
  return async (requestBody) => {
    const request = JSON.parse(requestBody) as { query?: unknown; variables?: { id?: unknown } }; // malformed JSON: a 500
    const id = request.variables?.id;
    if (typeof id !== 'string') return BAD;
    if (request.query === LOOKUP_WORKLOADS.a.query) {
      const user = (await get('users', id)) as BackendUser;
      return ok({ user: { id: String(user.id), name: user.name } });
    }
    if (request.query !== LOOKUP_WORKLOADS.b.query) return BAD;
    const post = (await get('posts', id)) as BackendPost;
    const author = (await get('users', String(post.author_id))) as BackendUser;
    return ok({ post: { author: { name: author.name } } });
  };
}

export function perRequestHandler(upstream: Upstream): BodyHandler {
  return lookupHandler((source, id) => upstream[source](`/${source}/${encodeURIComponent(id)}`));
}

export function dataLoaderHandler(upstream: Upstream): BodyHandler {
  const loader = (source: Source): DataLoader<string, unknown> =>
    new DataLoader(
      async (keys) => {
        const list = (await upstream[source](`/${source}?ids=${keys.map(encodeURIComponent).join(',')}`)) as Array<{ id: number }>;
        const byId = new Map(list.map((item) => [String(item.id), item]));
        return keys.map((key) => byId.get(key) ?? new Error(`${source} ${key} not found`));
      },
      { cache: false, maxBatchSize: 100, batchScheduleFn: (send) => setImmediate(send) },
    );
  const loaders = { users: loader('users'), posts: loader('posts') };
  return lookupHandler((source, id) => loaders[source].load(id));
}
