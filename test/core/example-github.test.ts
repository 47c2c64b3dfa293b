/**
 * The GitHub-shaped example (examples/github): its own gateway.toml and schema, served against its
 * service on a free port (`${GITHUB_EXAMPLE_PORT:-4011}` in the config), answer real queries with
 * the request counts the directives promise.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { startGateway, type RunningGateway } from '../../gateway/server/start.js';
import { startGithubService } from '../../examples/github/service.js';
import type { RunningService } from '../../examples/blog/http.js';

// dist/test/core/example-github.test.js → repository root
const CONFIG = fileURLToPath(new URL('../../../examples/github/gateway.toml', import.meta.url));

describe('examples/github', () => {
  let service: RunningService;
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

  async function query(q: string): Promise<{ body: { data?: Record<string, unknown>; errors?: unknown[] }; counts: string }> {
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: q }),
    });
    const counts = ['x-gql-rounds', 'x-gql-subrequests', 'x-gql-batches'].map((h) => res.headers.get(h)).join('/');
    return { body: (await res.json()) as { data?: Record<string, unknown> }, counts };
  }

  test('a repo with its owner profile, issues, their authors and assignees, events by type', async () => {
    const { body, counts } = await query(`{
      repo(owner: "octocat", name: "hello-world") {
        fullName stars licenseName topics
        ownerProfile { name city }
        issues(filter: { labels: ["bug"] }) { number author { login } assignees { login } }
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
      issues: [{ number: 1, author: { login: 'monalisa' }, assignees: [{ login: 'octocat' }, { login: 'hubot' }] }],
      events: [
        { __typename: 'PushEvent', ref: 'refs/heads/main', commits: 2 },
        { __typename: 'IssuesEvent', action: 'opened', issueNumber: 1 },
        { __typename: 'WatchEvent', actor: { login: 'hubot' } },
      ],
    });
    // repo; then ownerProfile (batch), issues, events; then author (batch) and assignees (POST batch).
    assert.equal(counts, '3/6/3');
  });

  test('search through an envelope, users with their repos', async () => {
    const { body } = await query(
      '{ searchRepos(q: "example", first: 1) { name owner { login } } user(login: "hubot") { city repos { name } } }',
    );
    assert.deepEqual(body.data, {
      searchRepos: [{ name: 'spoon-knife', owner: { login: 'octocat' } }],
      user: { city: null, repos: [{ name: 'hubot-scripts' }] },
    });
  });
});
