/**
 * A small GitHub-shaped REST service for the example (examples/github/README.md): the endpoints a
 * GitHub client reads, with GitHub's shapes and conventions:
 * - no envelope on single resources, `{total_count, items}` on search, nested owners, label
 *   objects, embedded accounts as `{login, id, type}` (the rest at `/users/:login`), typed events,
 *   pull requests listed as issues with a `pull_request` key (`{url, merged_at}`);
 * - `comments_url` links on issues, and comment pages (two a page here) with a
 *   `Link: <…?page=2>; rel="next", <…?page=2>; rel="last"` header (and `X-Total-Count`, which many
 *   REST APIs send; GitHub counts comments on the issue, `comments`);
 * - a weak `ETag` on every 200, and a 304 without a body when `If-None-Match` matches;
 * - a renamed repository answers 301 with `Location: …/repositories/ID`;
 * - issue search reads `q` (`repo:OWNER/NAME label:L state:S`) and answers 422 without `repo:`;
 * - every request needs `authorization: Bearer <token>` (401) and a `User-Agent` (403);
 * plus two batch endpoints such APIs offer (`GET /users?login=a&login=b` with an envelope,
 * `POST /users/lookup` with `{"ids": [...]}`). Every request is recorded (`requests`).
 */
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { startService, type BlogHandler, type BlogRequest, type BlogRoutes, type RunningService } from '../blog/http.js';
import { GH_COMMENTS, GH_EVENTS, GH_ISSUES, GH_RENAMED, GH_REPOS, GH_USERS } from './data.js';

/** The token the example service accepts unless told otherwise (gateway.toml's default too). */
export const EXAMPLE_TOKEN = 'example-token';
const COMMENTS_PER_PAGE = 2;

export interface GithubServiceOptions {
  readonly host?: string;
  /** 0 picks a free port; default 4011 (as in examples/github/gateway.toml). */
  readonly port?: number;
  readonly token?: string;
}

/** One request as the service received it, and the status it answered. */
export interface ReceivedRequest {
  readonly method: string;
  /** Path and query as sent, e.g. `/search/issues?q=repo:octocat%2Fhello-world+label:bug`. */
  readonly url: string;
  readonly authorization: string | undefined;
  readonly userAgent: string | undefined;
  readonly ifNoneMatch: string | undefined;
  status: number;
}

export interface GithubService extends RunningService {
  /** Every request since start or the last reset(), in arrival order. */
  readonly requests: readonly ReceivedRequest[];
  reset(): void;
}

type Answer = ReturnType<BlogHandler>;

export async function startGithubService(options: GithubServiceOptions = {}): Promise<GithubService> {
  const token = options.token ?? EXAMPLE_TOKEN;
  let requests: ReceivedRequest[] = [];
  const observe = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const header = (name: string): string | undefined => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    };
    const received: ReceivedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      authorization: header('authorization'),
      userAgent: header('user-agent'),
      ifNoneMatch: header('if-none-match'),
      status: 0,
    };
    requests.push(received);
    res.once('finish', () => (received.status = res.statusCode));
  };
  const github = gate(token);
  const routes: BlogRoutes = [...userRoutes(github), ...searchRoutes(github), ...repoRoutes(github)];
  const running = await startService(routes, options.host ?? '127.0.0.1', options.port ?? 4011, observe);
  return {
    ...running,
    get requests() {
      return requests;
    },
    reset: () => {
      requests = [];
    },
  };
}

/** GitHub's gate on every request, then a weak ETag on a 200 and a 304 when it matches. */
function gate(token: string): (handler: BlogHandler) => BlogHandler {
  return (handler) => (req) => {
    if (req.headers.authorization !== `Bearer ${token}`) return { status: 401, json: { message: 'Requires authentication' } };
    if (!req.headers['user-agent'])
      return { status: 403, json: { message: 'Request forbidden: make sure your request has a User-Agent header' } };
    return withEtag(req, handler(req));
  };
}

const NOT_FOUND: Answer = { status: 404, json: { message: 'Not Found' } };
const base = (req: BlogRequest): string => `http://${req.headers.host ?? '127.0.0.1'}`;
const repoOf = (p: Readonly<Record<string, string>>) => GH_REPOS.find((r) => r.full_name === `${p.owner}/${p.repo}`);
const issueOf = (req: BlogRequest, issue: (typeof GH_ISSUES)[number]) => ({
  ...issue,
  comments: GH_COMMENTS.filter((c) => c.repo === issue.repo && c.issue === issue.number).length,
  comments_url: `${base(req)}/repos/${issue.repo}/issues/${issue.number}/comments`,
  ...(issue.pull_request && { pull_request: { url: `${base(req)}/repos/${issue.repo}/pulls/${issue.number}`, ...issue.pull_request } }),
});

/** The users' routes: lookups by login, by id and in bulk, and a user's repositories. */
function userRoutes(github: ReturnType<typeof gate>): BlogRoutes {
  return [
    [
      'POST /users/lookup',
      github(({ body }) => {
        const ids = (body as { ids?: unknown } | undefined)?.ids;
        return Array.isArray(ids)
          ? { json: GH_USERS.filter((u) => ids.includes(u.id)) }
          : { status: 422, json: { message: 'ids must be a list' } };
      }),
    ],
    [
      '/users',
      github(({ query }) => {
        const logins = query.getAll('login');
        const items = GH_USERS.filter((u) => logins.includes(u.login));
        return { json: { total_count: items.length, items } };
      }),
    ],
    [
      '/users/:login',
      github(({ params }) =>
        found(
          GH_USERS.find((u) => u.login === params.login),
          NOT_FOUND,
        ),
      ),
    ],
    [
      '/users/by-id/:id',
      github(({ params }) =>
        found(
          GH_USERS.find((u) => String(u.id) === params.id),
          NOT_FOUND,
        ),
      ),
    ],
    ['/users/:login/repos', github(({ params }) => ({ json: GH_REPOS.filter((r) => r.owner.login === params.login) }))],
  ];
}

/** Search of repositories and of issues (GitHub's qualifiers in `q`). */
function searchRoutes(github: ReturnType<typeof gate>): BlogRoutes {
  return [
    [
      '/search/repositories',
      github(({ query }) => {
        const q = (query.get('q') ?? '').toLowerCase();
        const perPage = Number(query.get('per_page') ?? 30);
        const items = GH_REPOS.filter((r) => r.name.includes(q) || r.topics.some((t) => t.includes(q))).sort(
          (a, b) => b.stargazers_count - a.stargazers_count,
        );
        return { json: { total_count: items.length, incomplete_results: false, items: items.slice(0, perPage) } };
      }),
    ],
    [
      '/search/issues',
      github((req) => {
        // `+` in a query value is a space: `repo:o/r+label:bug` reads as two qualifiers.
        const qualifiers = new Map((req.query.get('q') ?? '').split(/\s+/).map((part) => part.split(':', 2) as [string, string]));
        const repo = qualifiers.get('repo');
        if (!repo) return { status: 422, json: { message: 'Validation Failed', errors: [{ field: 'q', code: 'missing' }] } };
        const label = qualifiers.get('label');
        const state = qualifiers.get('state');
        const items = GH_ISSUES.filter(
          (i) => i.repo === repo && (!label || i.labels.some((l) => l.name === label)) && (!state || i.state === state),
        ).map((i) => issueOf(req, i));
        const perPage = Number(req.query.get('per_page') ?? 30);
        return { json: { total_count: items.length, incomplete_results: false, items: items.slice(0, perPage) } };
      }),
    ],
  ];
}

/** Repositories (a renamed one redirects), their issues with comments (paged with Link), and events. */
function repoRoutes(github: ReturnType<typeof gate>): BlogRoutes {
  return [
    [
      '/repos/:owner/:repo',
      github((req) => {
        const moved = GH_RENAMED.get(`${req.params.owner}/${req.params.repo}`);
        if (moved === undefined) return found(repoOf(req.params), NOT_FOUND);
        const location = `${base(req)}/repositories/${moved}`;
        return { status: 301, json: { message: 'Moved Permanently', url: location }, headers: { location } };
      }),
    ],
    [
      '/repositories/:id',
      github(({ params }) =>
        found(
          GH_REPOS.find((r) => String(r.id) === params.id),
          NOT_FOUND,
        ),
      ),
    ],
    [
      '/repos/:owner/:repo/issues',
      github((req) => {
        const { params, query } = req;
        const state = query.get('state') ?? 'open';
        const labels = (query.get('labels') ?? '').split(',').filter((l) => l !== '');
        const issues = GH_ISSUES.filter(
          (i) =>
            i.repo === `${params.owner}/${params.repo}` &&
            (state === 'all' || i.state === state) &&
            labels.every((l) => i.labels.some((x) => x.name === l)),
        );
        return { json: issues.map((i) => issueOf(req, i)) };
      }),
    ],
    [
      '/repos/:owner/:repo/issues/:number/comments',
      github((req) => {
        const all = GH_COMMENTS.filter((c) => c.repo === `${req.params.owner}/${req.params.repo}` && String(c.issue) === req.params.number);
        const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
        const last = Math.max(1, Math.ceil(all.length / COMMENTS_PER_PAGE));
        const at = `${base(req)}/repos/${req.params.owner}/${req.params.repo}/issues/${req.params.number}/comments`;
        const links = [page < last ? `<${at}?page=${page + 1}>; rel="next"` : '', `<${at}?page=${last}>; rel="last"`];
        return {
          json: all.slice((page - 1) * COMMENTS_PER_PAGE, page * COMMENTS_PER_PAGE).map(({ id, body, user }) => ({ id, body, user })),
          headers: { link: links.filter((l) => l !== '').join(', '), 'x-total-count': String(all.length) },
        };
      }),
    ],
    [
      '/repos/:owner/:repo/events',
      github(({ params }) => ({ json: GH_EVENTS.filter((e) => e.repo === `${params.owner}/${params.repo}`) })),
    ],
  ];
}

function found(value: unknown, notFound: Answer): Answer {
  return value === undefined ? notFound : { json: value };
}

/** A 200 gets a weak ETag of its body; a request whose If-None-Match names it gets a 304 without a body. */
function withEtag(req: BlogRequest, answer: Answer): Answer {
  if ((answer.status ?? 200) !== 200) return answer;
  const etag = `W/"${createHash('sha256').update(JSON.stringify(answer.json)).digest('hex').slice(0, 16)}"`;
  if (req.headers['if-none-match'] === etag) return { status: 304, headers: { etag } };
  return { ...answer, headers: { ...answer.headers, etag } };
}
