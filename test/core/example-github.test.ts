/**
 * The GitHub-shaped example (examples/github): its own gateway.toml and schema, served against its
 * service on a free port (`${GITHUB_EXAMPLE_PORT:-4011}` in the config), which sends GitHub's
 * shapes: 301s for renamed repositories, ETags and 304s, Link headers on comment pages, search
 * `q` qualifiers, lower-case wire enums, pull requests among issues (a `pull_request` key),
 * embedded accounts of `{login, id, type}` only, and 401/403 without a token or a User-Agent. Each test asserts the exact requests
 * the service received for a query: method, path and query, If-None-Match, User-Agent and
 * Authorization, and the status it answered.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, beforeEach, describe, test } from 'node:test';
import { startGateway, type RunningGateway } from '../../gateway/server/start.js';
import { startGithubService, type GithubService, type ReceivedRequest } from '../../examples/github/service.js';
import { PACKAGE_VERSION } from '../../gateway/config/version.js';
import { until } from '../support/wait.js';
import { runCli } from '../support/cli.js';

// dist/test/core/example-github.test.js → repository root
const CONFIG = fileURLToPath(new URL('../../../examples/github/gateway.toml', import.meta.url));
const UA = `gqlgw/${PACKAGE_VERSION}`;
const AUTH = 'Bearer example-token';

describe('examples/github', () => {
  let service: GithubService;
  let gateway: RunningGateway;

  before(async () => {
    service = await startGithubService({ port: 0 });
    process.env.GITHUB_EXAMPLE_PORT = String(service.port);
    try {
      gateway = await startGateway({ configPath: CONFIG, port: 0 });
    } finally {
      delete process.env.GITHUB_EXAMPLE_PORT;
    }
  });
  after(async () => {
    await gateway.close();
    await service.close();
  });
  beforeEach(() => service.reset());

  async function query(q: string): Promise<{ body: { data?: Record<string, unknown>; errors?: unknown[] }; counts: string }> {
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: q }),
    });
    const counts = ['x-gql-rounds', 'x-gql-subrequests', 'x-gql-batches'].map((h) => res.headers.get(h)).join('/');
    return { body: (await res.json()) as { data?: Record<string, unknown> }, counts };
  }
  /** `METHOD url status`, with If-None-Match when sent; every request must carry the token and the User-Agent. */
  const lines = (): string[] =>
    service.requests.map((r: ReceivedRequest) => {
      assert.equal(r.authorization, AUTH, `${r.url} carries the token`);
      assert.equal(r.userAgent, UA, `${r.url} carries the User-Agent`);
      return `${r.method} ${r.url} ${r.status}${r.ifNoneMatch ? ` if-none-match ${r.ifNoneMatch}` : ''}`;
    });

  test('a repo with its owner profile, issues (state sent and read in its wire form), their authors and assignees, events by type', async () => {
    const { body, counts } = await query(`{
      repo(owner: "octocat", name: "hello-world") {
        fullName stars licenseName topics
        ownerProfile { name city }
        issues(filter: { state: OPEN, labels: ["bug"] }) { number state author { login } assignees { login } }
        closed: issues(filter: { state: CLOSED }) { number state }
        events { __typename ... on PushEvent { ref commits } ... on IssuesEvent { action issueNumber } ... on WatchEvent { actor { login } } }
      }
    }`);
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    assert.deepEqual(body.data?.repo, {
      fullName: 'octocat/hello-world',
      stars: 2600,
      licenseName: 'MIT License',
      topics: ['example', 'git'],
      ownerProfile: { name: 'The Octocat', city: 'San Francisco' },
      issues: [
        { number: 1, state: 'OPEN', author: { login: 'monalisa' }, assignees: [{ login: 'octocat' }, { login: 'hubot' }] },
        { number: 4, state: 'OPEN', author: { login: 'octocat' }, assignees: [] },
      ],
      closed: [{ number: 3, state: 'CLOSED' }],
      events: [
        { __typename: 'PushEvent', ref: 'refs/heads/main', commits: 2 },
        { __typename: 'IssuesEvent', action: 'opened', issueNumber: 1 },
        { __typename: 'WatchEvent', actor: { login: 'hubot' } },
      ],
    });
    // repo; then ownerProfile (batch), both issue lists, events; then author (batch) and assignees (POST batch).
    assert.equal(counts, '3/7/3');
    assert.deepEqual(lines().sort(), [
      'GET /repos/octocat/hello-world 200',
      'GET /repos/octocat/hello-world/events 200',
      'GET /repos/octocat/hello-world/issues?state=closed 200',
      'GET /repos/octocat/hello-world/issues?state=open&labels=bug 200',
      'GET /users?login=monalisa 200',
      'GET /users?login=octocat 200',
      'POST /users/lookup 200',
    ]);
  });

  test('issue search with optional qualifiers (a null label or state leaves its qualifier out, never q); items told apart by pull_request', async () => {
    const { body } = await query(`{
      all: searchIssues(repo: "octocat/hello-world") {
        total
        items { __typename ... on Issue { number state } ... on PullRequest { number state mergedAt user { login } } }
      }
      bugs: searchIssues(repo: "octocat/hello-world", label: "bug") { total }
      openBugs: searchIssues(repo: "octocat/hello-world", label: "bug", state: OPEN) { total }
      closed: searchIssues(repo: "octocat/hello-world", state: CLOSED) { items { ... on Issue { title state } } }
    }`);
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    assert.deepEqual(body.data, {
      all: {
        total: 4,
        items: [
          { __typename: 'Issue', number: 1, state: 'OPEN' },
          { __typename: 'Issue', number: 2, state: 'OPEN' },
          { __typename: 'Issue', number: 3, state: 'CLOSED' },
          { __typename: 'PullRequest', number: 4, state: 'OPEN', mergedAt: null, user: { login: 'octocat' } },
        ],
      },
      bugs: { total: 2 },
      openBugs: { total: 2 },
      closed: { items: [{ title: 'Old question', state: 'CLOSED' }] },
    });
    assert.deepEqual(lines().sort(), [
      'GET /search/issues?q=repo:octocat%2Fhello-world&per_page=30 200',
      'GET /search/issues?q=repo:octocat%2Fhello-world+label:bug&per_page=30 200',
      'GET /search/issues?q=repo:octocat%2Fhello-world+label:bug+state:open&per_page=30 200',
      'GET /search/issues?q=repo:octocat%2Fhello-world+state:closed&per_page=30 200',
    ]);
  });

  test('comments followed through comments_url; a page has next and total from Link and X-Total-Count; next is fetched by its URL', async () => {
    const { body, counts } = await query(`{
      searchIssues(repo: "octocat/hello-world", state: OPEN) {
        items {
          __typename
          ... on Issue { number commentCount comments { total next items { body author { login } } nextPage { next items { body } } } }
          ... on PullRequest { number }
        }
      }
    }`);
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    const at = `${service.url}/repos/octocat/hello-world/issues/1/comments`;
    assert.deepEqual(body.data, {
      searchIssues: {
        items: [
          {
            __typename: 'Issue',
            number: 1,
            commentCount: 3,
            comments: {
              total: 3,
              next: `${at}?page=2`,
              items: [
                { body: 'Me too', author: { login: 'hubot' } },
                { body: 'Which version?', author: { login: 'octocat' } },
              ],
              nextPage: { next: null, items: [{ body: 'The latest' }] },
            },
          },
          { __typename: 'Issue', number: 2, commentCount: 0, comments: { total: 0, next: null, items: [], nextPage: null } },
          { __typename: 'PullRequest', number: 4 },
        ],
      },
    });
    assert.equal(counts, '3/4/0');
    assert.deepEqual(lines().sort(), [
      'GET /repos/octocat/hello-world/issues/1/comments 200',
      'GET /repos/octocat/hello-world/issues/1/comments?page=2 200',
      'GET /repos/octocat/hello-world/issues/2/comments 200',
      'GET /search/issues?q=repo:octocat%2Fhello-world+state:open&per_page=30 200',
    ]);
  });

  test('a renamed repository: the 301 is followed to /repositories/ID and cached under the name asked', async () => {
    const first = await query('{ repo(owner: "octocat", name: "old-hello") { fullName ownerProfile { login } } }');
    assert.deepEqual(first.body.data, { repo: { fullName: 'octocat/hello-world', ownerProfile: { login: 'octocat' } } });
    assert.equal(first.counts, '2/3/1');
    assert.deepEqual(lines(), ['GET /repos/octocat/old-hello 301', 'GET /repositories/101 200', 'GET /users?login=octocat 200']);
    service.reset();
    const again = await query('{ repo(owner: "octocat", name: "old-hello") { fullName } }');
    assert.deepEqual(again.body.data, { repo: { fullName: 'octocat/hello-world' } });
    assert.equal(again.counts, '1/0/0');
    assert.deepEqual(lines(), []);
  });

  test('ETags: once the entry is stale, its background refetch sends If-None-Match and the 304 renews it', async () => {
    await query('{ repo(owner: "monalisa", name: "smile") { stars } }');
    const fetched = Date.now();
    assert.equal(service.requests.length, 1);
    const etag = /^W\/"[0-9a-f]{16}"$/;
    await until(() => Date.now() > fetched + 1050, 'the ttl is over');
    service.reset();
    const stale = await query('{ repo(owner: "monalisa", name: "smile") { stars } }');
    assert.deepEqual(stale.body.data, { repo: { stars: 42 } });
    assert.equal(stale.counts, '1/0/0', 'served stale: the refetch is in the background');
    await until(() => service.requests.length === 1 && service.requests[0]!.status !== 0, 'the background revalidation');
    const [line] = lines();
    assert.match(line!, /^GET \/repos\/monalisa\/smile 304 if-none-match W\/"[0-9a-f]{16}"$/);
    assert.match(service.requests[0]!.ifNoneMatch!, etag);
    // Renewed: fresh again, nothing is asked.
    service.reset();
    assert.equal((await query('{ repo(owner: "monalisa", name: "smile") { stars } }')).counts, '1/0/0');
    assert.deepEqual(lines(), []);
  });

  test('an embedded owner is completed by its login from /users/{login} when a query asks for what it lacks', async () => {
    const { body, counts } = await query(`{
      repo(owner: "hubot", name: "hubot-scripts") { owner { login type name company } }
      searchRepos(q: "example") { name owner { name } }
    }`);
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    assert.deepEqual(body.data, {
      repo: { owner: { login: 'hubot', type: 'User', name: 'Hubot', company: null } },
      searchRepos: [
        { name: 'spoon-knife', owner: { name: 'The Octocat' } },
        { name: 'hello-world', owner: { name: 'The Octocat' } },
      ],
    });
    // The repo and the search; then one lookup per distinct login (both search results are octocat's).
    assert.equal(counts, '2/4/0');
    assert.deepEqual(lines().sort(), [
      'GET /repos/hubot/hubot-scripts 200',
      'GET /search/repositories?q=example&per_page=10 200',
      'GET /users/hubot 200',
      'GET /users/octocat 200',
    ]);
  });

  test('search through an envelope, users with their repos; an owner asked only for its login costs nothing more', async () => {
    const { body } = await query(
      '{ searchRepos(q: "example", first: 1) { name owner { login } } user(login: "hubot") { city repos { name } } }',
    );
    assert.deepEqual(body.data, {
      searchRepos: [{ name: 'spoon-knife', owner: { login: 'octocat' } }],
      user: { city: null, repos: [{ name: 'hubot-scripts' }] },
    });
    assert.deepEqual(lines().sort(), [
      'GET /search/repositories?q=example&per_page=1 200',
      'GET /users/hubot 200',
      'GET /users/hubot/repos 200',
    ]);
  });

  test('gqlgw check --strict passes: the N+1s GitHub has no batch endpoint for are accepted in [check]', async () => {
    const run = await runCli(['check', '--strict', '--config', CONFIG]);
    assert.equal(run.stderr, '');
    assert.equal(run.stdout, `${CONFIG}: ok\n`);
    assert.equal(run.status, 0);
  });
});
