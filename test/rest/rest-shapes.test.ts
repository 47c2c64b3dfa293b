/**
 * Real REST APIs end to end (docs/reference.md, issue 10) against the GitHub-shaped upstream of
 * test/support/rest-upstream.ts: envelopes and `select`, `@from(path:)`, dotted placeholders, list
 * values (comma-joined, repeated, left out when empty), every batch style (repeated parameters,
 * comma lists, POST bodies, dotted match, list foreign keys), lowercase kind discriminators, values
 * of the wrong type (never leaked), 204 and empty bodies, per-source headers from `${NAME}`, and
 * variables with defaults. Each test counts the upstream's requests and reads their raw URLs and
 * bodies.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import type { CountingUpstream } from '../support/upstream.js';
import { errorAt } from '../support/assert.js';
import { REST_API_KEY, SECRET_HASH, startRestUpstream } from '../support/rest-upstream.js';

export const REST_SCHEMA = `
type Query {
  repos(filter: RepoFilter = {}, first: Int! = 10): [Repo!]!
    @fetch(source: "gh", path: "/api/repos?visibility={args.filter.visibility}&topic={args.filter.topics}&first={args.first}", select: "data.items")
  repo(owner: String!, name: String!): Repo @fetch(source: "gh", path: "/api/repos/{args.owner}/{args.name}", select: "data") @cache(ttl: 60)
  repoMeta(owner: String!, name: String!): RepoMeta @fetch(source: "gh", path: "/api/repos/{args.owner}/{args.name}", select: "meta") @cache(ttl: 60)
  user(id: ID!): User @fetch(source: "gh", path: "/api/users/{args.id}", select: "data")
  topic(slug: String!): Topic @fetch(source: "gh", path: "/api/topics/{args.slug}") @cache(ttl: 60)
  usersByIds(ids: [ID!]!): [User] @fetch(source: "gh", path: "/api/users?id={args.ids}", repeat: true, select: "data.users")
  topicsBySlugs(slugs: [String!]!): [Topic] @fetch(source: "gh", path: "/api/topics?slugs={args.slugs}")
  admin: Admin
}
type Admin { user(id: ID!): User @fetch(source: "gh", path: "/api/users/{args.id}", select: "data") }
input RepoFilter { visibility: String = "public", topics: [String!] }
type RepoMeta { etag: String }
type Repo {
  id: ID!
  name: String!
  fullName: String! @from(key: "full_name")
  ownerLogin: String @from(path: "owner.login")
  owner: Account!
  ownerAsList: [Account] @from(key: "owner")
  profile: User
    @fetch(source: "gh", path: "/api/users/{parent.owner.id}", select: "data")
    @batch(path: "/api/users?id={keys}", repeat: true, select: "data.users", match: "id")
  profileByWrongMatch: User
    @fetch(source: "gh", path: "/api/users/{parent.owner.id}", select: "data")
    @batch(path: "/api/users?id={keys}", repeat: true, select: "data.users", match: "login")
  topicIds: [ID!]! @from(key: "topic_ids")
  topics: [Topic] @fetch(source: "gh", path: "/api/topics/{parent.topicIds}") @batch(path: "/api/topics?slugs={keys}", match: "slug") @cache(ttl: 60)
  topicsInOne: [Topic] @fetch(source: "gh", path: "/api/topics?slugs={parent.topicIds}")
  contributorIds: [ID!]! @from(key: "contributor_ids")
  contributors: [User!]
    @fetch(source: "gh", path: "/api/users/{parent.contributorIds}", select: "data")
    @batch(path: "/api/users/lookup", method: "POST", body: """{"ids": {keys}}""", match: "id")
  events: [Event] @fetch(source: "gh", path: "/api/repos/{parent.owner.login}/{parent.name}/events")
  readme: Readme @fetch(source: "gh", path: "/api/repos/{parent.owner.login}/{parent.name}/readme")
  license: Readme @fetch(source: "gh", path: "/api/repos/{parent.ownerLogin}/{parent.name}/license")
}
type Account {
  id: ID!
  login: String!
  repos: [Repo] @fetch(source: "gh", path: "/api/repos?owner={parent.id}", select: "data.items") @batch(path: "/api/repos?owner={keys}", select: "data.items", match: "owner.id")
}
type User { id: ID! login: String! name: String city: String @from(path: "address.city") bio: String }
type Topic { slug: String! title: String }
type Readme { text: String }
union Event @from(key: "kind") = Push | Issue
type Push { ref: String }
type Issue { title: String }
`;

const ENV_NAME = 'GQLGW_TEST_GH_API_KEY';

describe('real REST shapes against a GitHub-shaped upstream', () => {
  let gh: CountingUpstream;
  let gw: TestGateway;
  let quiet: TestGateway;

  before(async () => {
    gh = await startRestUpstream();
    process.env[ENV_NAME] = REST_API_KEY;
    const sources = { gh: { url: gh.url, extra: `headers = { "x-api-key" = "\${${ENV_NAME}}" }` } };
    gw = await startTestGateway({ sources, schemas: { 'schema/gh.graphqls': REST_SCHEMA } });
    quiet = await startTestGateway({ sources, schemas: { 'schema/gh.graphqls': REST_SCHEMA }, debugMode: false });
    delete process.env[ENV_NAME];
  });
  after(async () => {
    await gw.close();
    await quiet.close();
    await gh.close();
  });

  test('the API key from ${NAME} goes with every request; envelopes, @from(path:), dotted args with defaults', async () => {
    gh.reset();
    const res = await gw.query('{ repos { name fullName ownerLogin owner { login } } }');
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    assert.deepEqual(res.body.data?.repos, [
      { name: 'gateway', fullName: 'octo/gateway', ownerLogin: 'octo', owner: { login: 'octo' } },
      { name: 'sketches', fullName: 'mona/sketches', ownerLogin: 'mona', owner: { login: 'mona' } },
    ]);
    assert.deepEqual(
      gh.requests.map((r) => r.url),
      ['/api/repos?visibility=public&first=10'],
      'input default applied, null list left out',
    );
    assert.ok(gh.requests.every((r) => r.headers['x-api-key'] === REST_API_KEY));

    gh.reset();
    const users = await gw.query('{ a: user(id: 1) { city } b: user(id: 2) { city } c: user(id: 4) { city } }');
    assert.deepEqual(users.body.data, { a: { city: 'Lisbon' }, b: { city: null }, c: { city: null } }, 'a missing step is null');
    assert.equal(gh.count('GET /api/users/:id'), 3);
  });

  test('list arguments: comma-joined, repeated with repeat: true, left out when empty; never JSON', async () => {
    gh.reset();
    const res = await gw.query(`{
      repos(filter: { topics: ["graphql", "rest"] }) { name }
      usersByIds(ids: ["1", "3"]) { login }
      topicsBySlugs(slugs: ["rest", "http"]) { title }
      none: usersByIds(ids: []) { login }
    }`);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    assert.deepEqual(res.body.data, {
      repos: [{ name: 'gateway' }],
      usersByIds: [{ login: 'octo' }, { login: 'hubot' }],
      topicsBySlugs: [{ title: 'REST' }, { title: 'HTTP' }],
      none: [],
    });
    assert.deepEqual(gh.requests.map((r) => r.url).sort(), [
      '/api/repos?visibility=public&topic=graphql,rest&first=10',
      '/api/topics?slugs=rest,http',
      '/api/users',
      '/api/users?id=1&id=3',
    ]);
    assert.ok(!gh.requests.some((r) => r.url.includes('%5B') || r.url.includes('%22')), 'no JSON in any URL');
  });

  test('dotted {parent.owner.id} under a repeated-parameter batch with an envelope; {parent.owner.login} in a path', async () => {
    gh.reset();
    const res = await gw.query('{ repos { profile { login name } events { __typename } } }');
    const repos = res.body.data?.repos as Array<{ profile: unknown }>;
    assert.deepEqual(
      repos.map((r) => r.profile),
      [
        { login: 'octo', name: 'Octo Cat' },
        { login: 'mona', name: 'Mona Lisa' },
      ],
    );
    assert.deepEqual(
      gh.requestsFor('GET /api/users').map((r) => r.url),
      ['/api/users?id=1&id=2'],
    );
    assert.deepEqual(
      gh
        .requestsFor('GET /api/repos/:owner/:name/events')
        .map((r) => r.url)
        .sort(),
      ['/api/repos/mona/sketches/events', '/api/repos/octo/gateway/events'],
    );
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 4, batches: 1 });
  });

  test('list foreign keys: one batch, items in element order with repeats, a missing one null; each element its own cache key', async () => {
    gh.reset();
    const res = await gw.query('{ repo(owner: "octo", name: "gateway") { topicIds topics { slug title } topicsInOne { slug } } }');
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    const repo = res.body.data?.repo as { topics: unknown; topicsInOne: unknown };
    assert.deepEqual(repo.topics, [
      { slug: 'graphql', title: 'GraphQL' },
      { slug: 'rest', title: 'REST' },
      { slug: 'graphql', title: 'GraphQL' },
      null,
    ]);
    assert.deepEqual(
      repo.topicsInOne,
      [{ slug: 'graphql' }, { slug: 'rest' }],
      'a plain @fetch sends the list comma-joined, repeats included',
    );
    const batches = gh
      .requestsFor('GET /api/topics')
      .map((r) => r.url)
      .sort();
    assert.deepEqual(batches, ['/api/topics?slugs=graphql,rest,graphql,unknown-topic', '/api/topics?slugs=graphql,rest,unknown-topic']);

    gh.reset();
    const single = await gw.query('{ topic(slug: "rest") { title } again: repo(owner: "octo", name: "gateway") { topics { slug } } }');
    assert.deepEqual(single.body.data?.topic, { title: 'REST' });
    assert.equal(
      gh.count(),
      1,
      `topic "rest" came from the entry the batch filled; only the missing key is asked again: ${gh.requests.map((r) => r.url).join(' ')}`,
    );
    assert.deepEqual(
      gh.requests.map((r) => r.url),
      ['/api/topics?slugs=unknown-topic'],
    );
  });

  test('a POST batch sends the keys as a JSON array of their original values; a missing non-null item is NOT_FOUND at its path', async () => {
    gh.reset();
    const res = await gw.query('{ repos { name contributors { login } } }');
    const posts = gh.requestsFor('POST /api/users/lookup');
    assert.equal(posts.length, 1);
    assert.deepEqual(JSON.parse(posts[0]!.body), { ids: [2, 1, 99] }, 'numbers stay numbers');
    assert.equal(posts[0]!.headers['content-type'], 'application/json');
    assert.deepEqual(res.body.data?.repos, [
      { name: 'gateway', contributors: null },
      { name: 'sketches', contributors: [] },
    ]);
    const error = errorAt(res.body, ['repos', 0, 'contributors', 2]);
    assert.equal(error.extensions?.code, 'NOT_FOUND');
    assert.equal(error.extensions?.source, 'gh');
    assert.equal(res.body.errors?.length, 1);
  });

  test('a dotted match collects one-to-many items; select on a @fetch keys its cache entry by the select', async () => {
    gh.reset();
    const res = await gw.query('{ repos { owner { repos { name } } } }');
    const owners = (res.body.data?.repos as Array<{ owner: { repos: Array<{ name: string }> } }>).map((r) =>
      r.owner.repos.map((x) => x.name),
    );
    assert.deepEqual(owners, [['gateway', 'secret-plans'], ['sketches']]);
    assert.deepEqual(
      gh.requests.map((r) => r.url),
      ['/api/repos?visibility=public&first=10', '/api/repos?owner=1,2'],
    );

    gh.reset();
    const first = await gw.query('{ repo(owner: "mona", name: "sketches") { name } repoMeta(owner: "mona", name: "sketches") { etag } }');
    assert.deepEqual(first.body.data, { repo: { name: 'sketches' }, repoMeta: { etag: '"11"' } });
    assert.equal(gh.count(), 1, 'the same path with two selects is one request (docs/caching.md), two cache entries');
    gh.reset();
    const second = await gw.query(
      '{ repoMeta(owner: "mona", name: "sketches") { etag } repo(owner: "mona", name: "sketches") { fullName } }',
    );
    assert.deepEqual(second.body.data, { repoMeta: { etag: '"11"' }, repo: { fullName: 'mona/sketches' } });
    assert.equal(gh.count(), 0, 'both served from their own cache entries');
  });

  test('lowercase kind discriminators; an item of no known kind is UPSTREAM_BAD_RESPONSE at its own path', async () => {
    const res = await gw.query(
      '{ repo(owner: "octo", name: "gateway") { name events { __typename ... on Push { ref } ... on Issue { title } } } }',
    );
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data?.repo, {
      name: 'gateway',
      events: [
        { __typename: 'Push', ref: 'refs/heads/main' },
        { __typename: 'Issue', title: 'Batch POST keys' },
        null,
        { __typename: 'Push', ref: 'refs/heads/dev' },
      ],
    });
    const error = errorAt(res.body, ['repo', 'events', 2]);
    assert.equal(error.extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    assert.equal(error.extensions?.source, 'gh');
    assert.match(error.message, /"kind" names none of Push, Issue/);
    assert.ok(!error.message.includes('fork'));
  });

  test('a value of the wrong type is UPSTREAM_BAD_RESPONSE at its path; the secret only in debug detail', async () => {
    const query = '{ a: user(id: 1) { bio } b: user(id: 3) { login bio } }';
    const off = await quiet.query(query);
    assert.deepEqual(off.body.data, { a: { bio: 'ships things' }, b: { login: 'hubot', bio: null } });
    const error = errorAt(off.body, ['b', 'bio']);
    assert.deepEqual(error.extensions, { code: 'UPSTREAM_BAD_RESPONSE', source: 'gh' });
    assert.equal(error.message, 'the source answered a value that does not fit the type String');
    assert.ok(!off.text.includes('SECRETHASH') && !off.text.includes('password_hash'), off.text);

    const list = await quiet.query('{ repo(owner: "octo", name: "gateway") { name ownerAsList { id } } }');
    assert.deepEqual(list.body.data, { repo: { name: 'gateway', ownerAsList: null } });
    const notList = errorAt(list.body, ['repo', 'ownerAsList']);
    assert.deepEqual(notList.extensions, { code: 'UPSTREAM_BAD_RESPONSE', source: 'gh' });
    assert.equal(notList.message, 'the source answered a value that does not fit its type: a list was expected');

    const on = await gw.query(query);
    const detailed = errorAt(on.body, ['b', 'bio']);
    assert.equal(detailed.message, error.message);
    assert.match(String(detailed.extensions?.detail), /password_hash/);
    assert.ok(String(detailed.extensions?.detail).includes(SECRET_HASH));
  });

  test('a 204 and an empty 200 body are null, without an error', async () => {
    gh.reset();
    const res = await gw.query('{ repo(owner: "mona", name: "sketches") { readme { text } license { text } } }');
    assert.deepEqual(res.body.data, { repo: { readme: null, license: null } });
    assert.equal(res.body.errors, undefined);
    assert.equal(gh.count('GET /api/repos/:owner/:name/readme'), 1);
    assert.equal(gh.count('GET /api/repos/:owner/:name/license'), 1);
  });

  test('debug mode: a batch answer that matched none of its keys adds a warning naming match and the keys seen', async () => {
    const res = await gw.query('{ repos { profileByWrongMatch { login } } }');
    assert.deepEqual(res.body.data?.repos, [{ profileByWrongMatch: null }, { profileByWrongMatch: null }]);
    const warnings = (res.body.extensions as { warnings?: Array<Record<string, unknown>> } | undefined)?.warnings;
    assert.deepEqual(warnings, [
      {
        code: 'BATCH_MATCHED_NOTHING',
        message: '@batch on Repo.profileByWrongMatch: none of the 2 items answered matched any of the 2 keys asked by match "login"',
        coordinate: 'Repo.profileByWrongMatch',
        match: 'login',
        keysAsked: ['1', '2'],
        keysSeen: ['octo', 'mona'],
        itemFields: ['id', 'login', 'name', 'address', 'bio'],
      },
    ]);
    const off = await quiet.query('{ repos { profileByWrongMatch { login } } }');
    assert.equal(off.body.extensions, undefined, 'no warnings without debug');
  });

  test('a namespace root field with no @fetch is an empty object whose fields fetch', async () => {
    gh.reset();
    const res = await gw.query('{ admin { user(id: 2) { login } } }');
    assert.deepEqual(res.body.data, { admin: { user: { login: 'mona' } } });
    assert.deepEqual(
      gh.requests.map((r) => r.url),
      ['/api/users/2'],
    );
  });

  test('omitted non-null variables with defaults, over POST and over GET', async () => {
    gh.reset();
    const query = 'query Top($n: Int! = 1, $f: RepoFilter! = { visibility: "private" }) { repos(first: $n, filter: $f) { name } }';
    const post = await gw.query(query);
    assert.equal(post.status, 200, post.text);
    assert.deepEqual(post.body.data, { repos: [{ name: 'secret-plans' }] });
    const get = await gw.get(`/graphql?query=${encodeURIComponent(query)}`, { accept: 'application/json' });
    assert.equal(get.status, 200, get.text);
    assert.deepEqual((get.body as { data: unknown }).data, { repos: [{ name: 'secret-plans' }] });
    assert.deepEqual(
      gh.requests.map((r) => r.url),
      ['/api/repos?visibility=private&first=1', '/api/repos?visibility=private&first=1'],
    );
  });
});
