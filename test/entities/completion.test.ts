/**
 * Completing partial objects end to end (docs/federation.md): a GitHub-shaped
 * repository embeds only its owner's login, id and type; a query that selects the owner's name
 * and description gets them through the owner type's @lookup, batched over every partial owner
 * of the round, one round more. The upstream's request lines are asserted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, writeGatewayFiles, type TestGateway } from '../support/gateway.js';
import { runCli } from '../support/cli.js';
import type { CountingUpstream } from '../support/upstream.js';
import { GITHUB_SCHEMA, ORGS, REPOS, USERS, startGithub } from './github-fixture.js';

const OWNERS_QUERY = `{
  repositories {
    name
    owner { login ... on Organization { name description } ... on User { name bio } }
  }
}`;

describe('completing partial objects through @lookup', () => {
  let github: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    github = await startGithub();
    gw = await startTestGateway({ sources: { github: { url: github.url } }, schemas: { 'github.graphqls': GITHUB_SCHEMA } });
  });
  after(async () => {
    await gw.close();
    await github.close();
  });

  test("one repository: its owner's name and description are looked up, one round more", async () => {
    github.reset();
    const res = await gw.query('{ repository(owner: "octo", name: "dotfiles") { fullName owner { login ... on User { name bio } } } }');
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data, {
      repository: { fullName: 'octo/dotfiles', owner: { login: 'octo', name: 'Octo Cat', bio: 'ships things' } },
    });
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 2, batches: 1 });
    assert.deepEqual(
      github.requests.map((r) => r.url),
      ['/repos/octo/dotfiles', '/users?logins=octo'],
    );
  });

  test('several owners: one batch per type over the distinct logins, in the order first met', async () => {
    github.reset();
    const res = await gw.query(OWNERS_QUERY);
    assert.equal(res.body.errors, undefined);
    const byLogin = new Map<string, Record<string, unknown>>([
      ...ORGS.map((o) => [o.login, { login: o.login, name: o.name, description: o.description }] as const),
      ...USERS.map((u) => [u.login, { login: u.login, name: u.name, bio: u.bio }] as const),
    ]);
    assert.deepEqual(res.body.data, { repositories: REPOS.map((r) => ({ name: r.name, owner: byLogin.get(r.owner.login) })) });
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 3, batches: 2 });
    assert.deepEqual(
      github.requests.map((r) => r.url),
      ['/repositories', '/orgs?logins=acme,initech,globex', '/users?logins=octo,mona'],
    );
  });

  test('nothing absent, nothing looked up: the embedded fields answer in one round', async () => {
    github.reset();
    const res = await gw.query('{ repositories { owner { login id } } }');
    assert.equal(res.body.errors, undefined);
    assert.equal((res.body.data?.repositories as unknown[]).length, REPOS.length);
    assert.deepEqual(debugCounts(res), { rounds: 1, subrequests: 1, batches: 0 });
    assert.deepEqual(
      github.requests.map((r) => r.url),
      ['/repositories'],
    );
  });

  test('a field under @include(if: $v) completes the object only when it is included', async () => {
    github.reset();
    const query =
      'query ($v: Boolean!) { repository(owner: "mona", name: "sketches") { owner { login ... on User { bio @include(if: $v) } } } }';
    const without = await gw.query(query, { v: false });
    assert.deepEqual(without.body.data, { repository: { owner: { login: 'mona' } } });
    assert.deepEqual(
      github.requests.map((r) => r.url),
      ['/repos/mona/sketches'],
    );
    const withBio = await gw.query(query, { v: true });
    assert.deepEqual(withBio.body.data, { repository: { owner: { login: 'mona', bio: 'paints' } } });
    assert.deepEqual(
      github.requests.map((r) => r.url),
      ['/repos/mona/sketches', '/repos/mona/sketches', '/users?logins=mona'],
    );
  });

  test("@cache on the type caches its lookups under the single lookup's key", async () => {
    github.reset();
    // The organizations were cached by the test before (ttl 60); the users' type has no @cache.
    const res = await gw.query(OWNERS_QUERY);
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(
      github.requests.map((r) => r.url),
      ['/repositories', '/users?logins=octo,mona'],
    );
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 2, batches: 1 });
  });
});

describe('a failed completion', () => {
  test('nulls only the absent fields of the keys whose chunk failed, errors at their paths; the embedded fields are served', async () => {
    const github = await startGithub({ failLogin: 'mona' });
    const gw = await startTestGateway({ sources: { github: { url: github.url } }, schemas: { 'github.graphqls': GITHUB_SCHEMA } });
    try {
      const res = await gw.query('{ repositories { name owner { login ... on User { name } ... on Organization { name } } } }');
      const repos = res.body.data?.repositories as Array<{ name: string; owner: { login: string; name: string | null } }>;
      assert.deepEqual(
        repos.map((r) => [r.owner.login, r.owner.name]),
        REPOS.map((r) => [
          r.owner.login,
          r.owner.login === 'mona' ? null : [...ORGS, ...USERS].find((o) => o.login === r.owner.login)!.name,
        ]),
      );
      const errors = res.body.errors ?? [];
      assert.deepEqual(
        errors.map((e) => [e.path, e.extensions?.code, e.extensions?.status]),
        [[['repositories', 5, 'owner', 'name'], 'UPSTREAM_HTTP_ERROR', 500]],
      );
      // The failed chunk is sent again as two halves (upstream/retry-policy.ts): only mona's fails.
      assert.deepEqual(
        github.requests.map((r) => r.url),
        ['/repositories', '/orgs?logins=acme,initech,globex', '/users?logins=octo,mona', '/users?logins=octo', '/users?logins=mona'],
      );
    } finally {
      await gw.close();
      await github.close();
    }
  });
});

test('gqlgw plan shows the completion as a round of its own, and the fetches below it one round later', async () => {
  const files = await writeGatewayFiles({
    sources: { github: { url: 'http://127.0.0.1:1' } },
    schemas: {
      'github.graphqls': `${GITHUB_SCHEMA}\nextend type User { repos: [Repository!]! @fetch(source: "github", path: "/users/{parent.login}/repos") }`,
    },
  });
  try {
    const run = await runCli([
      'plan',
      '--config',
      files.configPath,
      '{ repositories { owner { ... on User { name repos { name } } ... on Organization { description } } } }',
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      run.stdout,
      [
        'query anonymous: 3 rounds when every field is reached',
        'round 1:',
        '  repositories  Query.repositories  fetch github /repositories',
        'round 2:',
        '  repositories.owner  complete Organization when description is absent: Organization.@lookup(login)  batch github /orgs?logins={keys} (match login, max 10; single /orgs/{key.login}), cache 60s',
        '  repositories.owner  complete User when name is absent: User.@lookup(login)  batch github /users?logins={keys} (match login, max 100; single /users/{key.login})',
        'round 3:',
        '  repositories.owner.repos  User.repos  fetch github /users/{parent.login}/repos',
        'X-GQL-Subrequests counts only what this operation sends: a lookup of github (coalesce = true) that another request already has in flight waits for that call and is counted in gqlgw_coalesced_total instead',
        // 100 owners (assumed_list_size): completed in chunks of 10 and of 100, then one repos fetch each.
        'planned bound: 112 subrequests (X-GQL-Cost), every list at its assumed size',
        '  round 1: 1',
        '  round 2: 11',
        '  round 3: 100',
        "  on top, only what answers cause: a redirect's hops, the re-send of a reset GET, a failed chunk's halves (counted by max_subrequests)",
        '',
      ].join('\n'),
    );
  } finally {
    await files.cleanup();
  }
});
