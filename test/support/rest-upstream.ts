/**
 * A realistic REST upstream for end-to-end tests, shaped like GitHub's and JSONPlaceholder's APIs
 * (docs/reference.md, issue 10): a counting upstream (test/support/upstream.ts) whose routes
 * answer with the shapes real APIs have:
 *
 * - every route checks `x-api-key` (401 without the right one);
 * - envelopes: `GET /api/users/:id` → `{"data": user}`, `GET /api/repos` → `{"data": {"items": [...]}}`;
 * - nested objects: a repo embeds `owner: {id, login}`, a user `address: {city}` (or none);
 * - arrays of ids: a repo's `topic_ids` (strings, one repeated, one unknown) and `contributor_ids`
 *   (numbers, one unknown);
 * - batch endpoints of every style: repeated parameters `GET /api/users?id=1&id=2` (enveloped),
 *   comma lists `GET /api/topics?slugs=a,b` and `GET /api/repos?owner=1,2`, and a POST lookup
 *   `POST /api/users/lookup` with `{"ids": [1, 2]}`;
 * - lowercase `kind` discriminators in `GET /api/repos/:owner/:name/events` (one of them a kind
 *   no type has);
 * - a value of the wrong type holding a secret-looking string: user 3's `bio` is an object with a
 *   `password_hash`;
 * - a 204 (`/readme`) and an empty 200 body (`/license`).
 *
 * Tests count its requests and read their raw URLs and bodies through the returned CountingUpstream.
 */
import { startUpstream, type CountingUpstream, type RouteReply, type RouteRequest } from './upstream.js';
import { splitIds } from './routes.js';

export const REST_API_KEY = 'test-key-42';
/** The secret-looking string inside user 3's malformed `bio`. */
export const SECRET_HASH = '$2b$12$SECRETHASHk9Qz1pL0vT';

interface User {
  readonly id: number;
  readonly login: string;
  readonly name: string;
  readonly address?: { readonly city: string } | null;
  readonly bio: unknown;
}

export const USERS: readonly User[] = [
  { id: 1, login: 'octo', name: 'Octo Cat', address: { city: 'Lisbon' }, bio: 'ships things' },
  { id: 2, login: 'mona', name: 'Mona Lisa', address: null, bio: 'paints' },
  { id: 3, login: 'hubot', name: 'Hubot', address: { city: 'Porto' }, bio: { text: 'a robot', password_hash: SECRET_HASH } },
  { id: 4, login: 'ghost', name: 'Ghost', bio: null },
];

export const REPOS = [
  {
    id: 10,
    name: 'gateway',
    full_name: 'octo/gateway',
    visibility: 'public',
    owner: { id: 1, login: 'octo' },
    topic_ids: ['graphql', 'rest', 'graphql', 'unknown-topic'],
    contributor_ids: [2, 1, 99],
  },
  {
    id: 11,
    name: 'sketches',
    full_name: 'mona/sketches',
    visibility: 'public',
    owner: { id: 2, login: 'mona' },
    topic_ids: [],
    contributor_ids: [],
  },
  {
    id: 12,
    name: 'secret-plans',
    full_name: 'octo/secret-plans',
    visibility: 'private',
    owner: { id: 1, login: 'octo' },
    topic_ids: ['rest'],
    contributor_ids: [3],
  },
];

export const TOPICS = [
  { slug: 'graphql', title: 'GraphQL' },
  { slug: 'rest', title: 'REST' },
  { slug: 'http', title: 'HTTP' },
];

const EVENTS = [
  { kind: 'push', ref: 'refs/heads/main' },
  { kind: 'issue', title: 'Batch POST keys' },
  { kind: 'fork', forkee: 'mona/gateway' },
  { kind: 'PUSH', ref: 'refs/heads/dev' },
];

const unauthorized: RouteReply = { status: 401, json: { message: 'Bad credentials' } };

/** Wraps a handler with the API-key check every route of this upstream makes. */
function keyed(handler: (req: RouteRequest) => RouteReply): (req: RouteRequest) => RouteReply {
  return (req) => (req.headers['x-api-key'] === REST_API_KEY ? handler(req) : unauthorized);
}

const userById = (id: string): User | undefined => USERS.find((u) => String(u.id) === id);
const repoOf = (params: Readonly<Record<string, string>>) => REPOS.find((r) => r.owner.login === params.owner && r.name === params.name);

export function startRestUpstream(): Promise<CountingUpstream> {
  return startUpstream({
    'GET /api/users/:id': keyed(({ params }) => {
      const user = userById(params.id!);
      return user ? { json: { data: user } } : { status: 404, json: { message: 'Not Found' } };
    }),
    // Repeated-parameter batch with an envelope: ?id=1&id=2 → {"data": {"users": [...]}}.
    'GET /api/users': keyed(({ query }) => ({ json: { data: { users: query.getAll('id').map(userById).filter(Boolean) } } })),
    // POST batch: {"ids": [1, 2]} → [...]; ids must be JSON numbers, as the repos hold them.
    'POST /api/users/lookup': keyed(({ body }) => {
      const ids = (JSON.parse(body) as { ids: unknown[] }).ids;
      if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'number')) return { status: 400, json: { message: 'ids must be numbers' } };
      return { json: USERS.filter((u) => ids.includes(u.id)) };
    }),
    'GET /api/repos': keyed(({ query }) => {
      let items = REPOS.filter((r) => r.visibility === (query.get('visibility') ?? 'public'));
      const owners = query.get('owner');
      if (owners !== null) items = REPOS.filter((r) => splitIds(owners).includes(String(r.owner.id)));
      const topics = query.get('topic');
      if (topics !== null) items = items.filter((r) => splitIds(topics).some((t) => r.topic_ids.includes(t)));
      const first = Number(query.get('first') ?? 100);
      return { json: { data: { items: items.slice(0, first) }, meta: { total: items.length } } };
    }),
    'GET /api/repos/:owner/:name': keyed(({ params }) => {
      const repo = repoOf(params);
      return repo ? { json: { data: repo, meta: { etag: `"${repo.id}"` } } } : { status: 404, json: { message: 'Not Found' } };
    }),
    'GET /api/repos/:owner/:name/events': keyed(({ params }) => (repoOf(params) ? { json: EVENTS } : { status: 404, json: {} })),
    'GET /api/repos/:owner/:name/readme': keyed(() => ({ status: 204, body: '' })),
    'GET /api/repos/:owner/:name/license': keyed(() => ({ status: 200, body: '', headers: { 'content-type': 'application/json' } })),
    'GET /api/topics/:slug': keyed(({ params }) => {
      const topic = TOPICS.find((t) => t.slug === params.slug);
      return topic ? { json: topic } : { status: 404, json: { message: 'Not Found' } };
    }),
    // Comma-list batch: ?slugs=graphql,rest → [...].
    'GET /api/topics': keyed(({ query }) => ({ json: TOPICS.filter((t) => splitIds(query.get('slugs')).includes(t.slug)) })),
  });
}
