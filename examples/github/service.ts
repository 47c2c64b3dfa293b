/**
 * A small GitHub-shaped REST service for the example (examples/github/README.md): the endpoints a
 * GitHub client reads, with GitHub's shapes (no envelope on single resources, `{total_count, items}`
 * on search, nested owners, label objects, typed events), plus two batch endpoints such APIs offer
 * (`GET /users?login=a&login=b` with an envelope, `POST /users/lookup` with `{"ids": [...]}`).
 * Every request needs `authorization: Bearer <token>` (401 otherwise), which the gateway sends
 * from `[sources.github] headers`.
 */
import { startService, type BlogHandler, type BlogRoutes, type RunningService } from '../blog/http.js';
import { GH_EVENTS, GH_ISSUES, GH_REPOS, GH_USERS } from './data.js';

/** The token the example service accepts unless told otherwise (gateway.toml's default too). */
export const EXAMPLE_TOKEN = 'example-token';

export interface GithubServiceOptions {
  readonly host?: string;
  /** 0 picks a free port; default 4011 (as in examples/github/gateway.toml). */
  readonly port?: number;
  readonly token?: string;
}

export function startGithubService(options: GithubServiceOptions = {}): Promise<RunningService> {
  const token = options.token ?? EXAMPLE_TOKEN;
  const authorized =
    (handler: BlogHandler): BlogHandler =>
    (req) =>
      req.headers.authorization === `Bearer ${token}` ? handler(req) : { status: 401, json: { message: 'Requires authentication' } };
  const notFound = { status: 404, json: { message: 'Not Found' } };
  const repoOf = (p: Readonly<Record<string, string>>) => GH_REPOS.find((r) => r.full_name === `${p.owner}/${p.repo}`);
  const routes: BlogRoutes = [
    [
      'POST /users/lookup',
      authorized(({ body }) => {
        const ids = (body as { ids?: unknown } | undefined)?.ids;
        return Array.isArray(ids)
          ? { json: GH_USERS.filter((u) => ids.includes(u.id)) }
          : { status: 422, json: { message: 'ids must be a list' } };
      }),
    ],
    [
      '/users',
      authorized(({ query }) => {
        const logins = query.getAll('login');
        const items = GH_USERS.filter((u) => logins.includes(u.login));
        return { json: { total_count: items.length, items } };
      }),
    ],
    [
      '/users/:login',
      authorized(({ params }) => {
        const user = GH_USERS.find((u) => u.login === params.login);
        return user ? { json: user } : notFound;
      }),
    ],
    [
      '/users/by-id/:id',
      authorized(({ params }) => {
        const user = GH_USERS.find((u) => String(u.id) === params.id);
        return user ? { json: user } : notFound;
      }),
    ],
    ['/users/:login/repos', authorized(({ params }) => ({ json: GH_REPOS.filter((r) => r.owner.login === params.login) }))],
    [
      '/search/repositories',
      authorized(({ query }) => {
        const q = (query.get('q') ?? '').toLowerCase();
        const perPage = Number(query.get('per_page') ?? 30);
        const items = GH_REPOS.filter((r) => r.name.includes(q) || r.topics.some((t) => t.includes(q))).sort(
          (a, b) => b.stargazers_count - a.stargazers_count,
        );
        return { json: { total_count: items.length, incomplete_results: false, items: items.slice(0, perPage) } };
      }),
    ],
    ['/repos/:owner/:repo', authorized(({ params }) => (repoOf(params) ? { json: repoOf(params) } : notFound))],
    [
      '/repos/:owner/:repo/issues',
      authorized(({ params, query }) => {
        const state = query.get('state') ?? 'open';
        const labels = (query.get('labels') ?? '').split(',').filter((l) => l !== '');
        const issues = GH_ISSUES.filter(
          (i) =>
            i.repo === `${params.owner}/${params.repo}` &&
            (state === 'all' || i.state === state) &&
            labels.every((l) => i.labels.some((x) => x.name === l)),
        );
        return { json: issues };
      }),
    ],
    [
      '/repos/:owner/:repo/events',
      authorized(({ params }) => ({ json: GH_EVENTS.filter((e) => e.repo === `${params.owner}/${params.repo}`) })),
    ],
  ];
  return startService(routes, options.host ?? '127.0.0.1', options.port ?? 4011);
}
