/**
 * GitHub-class wire forms (docs/reference.md, *new*): enum values with `@from(value:)` both ways
 * (read from JSON; written into paths, queries and bodies), unions and interfaces told by a
 * `types` map (`value=Type`, `*=Type`, a default), and `[check] accept_n_plus_one`. Real HTTP
 * upstreams on 127.0.0.1 record every request line; the gateway is the real one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, writeGatewayFiles, type GraphQLResult, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { errorAt } from '../support/assert.js';
import { schemaProblems } from '../support/schema-problems.js';
import { runCli } from '../support/cli.js';

const ENUM_SCHEMA = `
enum State {
  OPEN @from(value: "open")
  CLOSED @from(value: "closed")
  ALL
}
type Query {
  issues(state: State = OPEN): [Issue] @fetch(source: "gh", path: "/issues?state={args.state}")
  byState(state: State!): [Issue] @fetch(source: "gh", path: "/states/{args.state}/issues")
}
type Mutation {
  setState(number: Int!, state: State!): Issue
    @fetch(source: "gh", method: "PATCH", path: "/issues/{args.number}", body: """{"state": {args.state}, "note": "now {args.state}"}""")
}
type Issue {
  number: Int
  state: State
}
`;

describe('enum values with @from(value:): the wire form both ways', () => {
  let gh: CountingUpstream;
  let gateway: TestGateway;
  before(async () => {
    gh = await startUpstream({
      'GET /issues': (r) => ({
        json:
          r.query.get('state') === 'weird'
            ? [{ number: 9, state: 'weird' }]
            : [
                { number: 1, state: 'open' },
                { number: 2, state: 'closed' },
              ],
      }),
      'GET /states/:s/issues': (r) => ({ json: [{ number: 3, state: r.params.s === 'ALL' ? 'OPEN' : r.params.s }] }),
      'PATCH /issues/:n': (r) => ({ json: { number: Number(r.params.n), state: (JSON.parse(r.body) as { state: string }).state } }),
    });
    gateway = await startTestGateway({ sources: { gh: { url: gh.url } }, schemas: { 'schema/gh.graphqls': ENUM_SCHEMA } });
  });
  after(async () => {
    await gateway.close();
    await gh.close();
  });

  test('an argument is sent in its wire form in a query (default, literal and variable) and in a path', async () => {
    gh.reset();
    const res = await gateway.query(
      'query ($s: State) { a: issues { number state } b: issues(state: CLOSED) { number } c: issues(state: $s) { number } d: byState(state: CLOSED) { state } }',
      { s: 'ALL' },
    );
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.errors, undefined);
    assert.deepEqual(res.body.data?.a, [
      { number: 1, state: 'OPEN' },
      { number: 2, state: 'CLOSED' },
    ]);
    assert.deepEqual(res.body.data?.d, [{ state: 'CLOSED' }]);
    assert.deepEqual(gh.requests.map((r) => `${r.method} ${r.url}`).sort(), [
      'GET /issues?state=ALL',
      'GET /issues?state=closed',
      'GET /issues?state=open',
      'GET /states/closed/issues',
    ]);
  });

  test('a body gets the wire form as a JSON value and inside a string', async () => {
    gh.reset();
    const res = await gateway.query('mutation { setState(number: 7, state: CLOSED) { number state } }');
    assert.deepEqual(res.body.data, { setState: { number: 7, state: 'CLOSED' } });
    assert.equal(gh.requests.length, 1);
    assert.equal(`${gh.requests[0]!.method} ${gh.requests[0]!.url}`, 'PATCH /issues/7');
    assert.equal(gh.requests[0]!.body, '{"state": "closed", "note": "now closed"}');
  });

  test('an upstream value that is no wire form (the GraphQL name included) is an error at its path, on both entrances', async () => {
    for (const answer of [
      await gateway.query('{ issues(state: ALL) { number } byState(state: ALL) { state } }'),
      await gateway.get(`/graphql?query=${encodeURIComponent('{ byState(state: ALL) { state } }')}`, { accept: 'application/json' }),
    ]) {
      const body = answer.body as GraphQLResult & { data: { byState: unknown } };
      assert.deepEqual(body.data.byState, [{ state: null }]);
      assert.equal(errorAt(body, ['byState', 0, 'state']).extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    }
  });

  test('check refuses a missing value, a key on an enum value and two values with one wire form', async () => {
    const problems = await schemaProblems(
      `enum E { A @from B @from(key: "b", value: "b") C @from(value: "x") D @from(value: "x") }
type Query { e: E @fetch(source: "s", path: "/e") }`,
      ['s'],
    );
    assert.deepEqual(problems, [
      '1:12: @from on enum value E.A needs value: the form the source sends and expects, such as @from(value: "open")',
      '1:20: @from on enum value E.B takes only value (its wire form, such as @from(value: "open"))',
      '1:70: enum E: D and C have the same wire form "x"; give each its own @from(value:)',
    ]);
  });
});

const UNION_SCHEMA = `
union IssueOrPull @from(key: "pull_request", types: ["*=PullRequest", "Issue"]) = Issue | PullRequest
interface Repo @from(key: "visibility", types: ["public=PublicRepo", "private=PrivateRepo", "1=PublicRepo"]) { name: String }
type PublicRepo implements Repo { name: String stars: Int }
type PrivateRepo implements Repo { name: String owner: String }
type Issue { number: Int title: String }
type PullRequest { number: Int url: String @from(path: "pull_request.url") }
type Query {
  items: [IssueOrPull] @fetch(source: "gh", path: "/issues")
  repos: [Repo] @fetch(source: "gh", path: "/repos")
}
`;

describe('unions and interfaces told by @from(types:)', () => {
  let gh: CountingUpstream;
  let gateway: TestGateway;
  before(async () => {
    gh = await startUpstream({
      'GET /issues': () => ({
        json: [
          { number: 1, title: 'a bug' },
          { number: 2, title: 'a fix', pull_request: { url: '/pulls/2' } },
          { number: 3, title: 'null key', pull_request: null },
        ],
      }),
      'GET /repos': () => ({
        json: [
          { name: 'pub', visibility: 'public', stars: 5 },
          { name: 'priv', visibility: 'private', owner: 'me' },
          { name: 'num', visibility: 1, stars: 1 },
          { name: 'odd', visibility: 'internal' },
        ],
      }),
    });
    gateway = await startTestGateway({ sources: { gh: { url: gh.url } }, schemas: { 'schema/gh.graphqls': UNION_SCHEMA } });
  });
  after(async () => {
    await gateway.close();
    await gh.close();
  });

  const ITEMS = '{ items { __typename ... on Issue { number title } ... on PullRequest { number url } } }';
  const EXPECTED_ITEMS = [
    { __typename: 'Issue', number: 1, title: 'a bug' },
    { __typename: 'PullRequest', number: 2, url: '/pulls/2' },
    { __typename: 'Issue', number: 3, title: 'null key' },
  ];

  test('*=Type tells by presence, the bare Type is the default (POST and GET entrances agree)', async () => {
    gh.reset();
    const post = await gateway.query(ITEMS);
    const get = await gateway.get(`/graphql?query=${encodeURIComponent(ITEMS)}`, { accept: 'application/json' });
    assert.deepEqual(post.body.data, { items: EXPECTED_ITEMS });
    assert.deepEqual((get.body as GraphQLResult).data, { items: EXPECTED_ITEMS });
    assert.deepEqual(
      gh.requests.map((r) => `${r.method} ${r.url}`),
      ['GET /issues', 'GET /issues'],
    );
  });

  test('value=Type by the string form of the value; a value mapped nowhere, without a default, is an error at that item only', async () => {
    const res = await gateway.query('{ repos { __typename name ... on PublicRepo { stars } ... on PrivateRepo { owner } } }');
    assert.deepEqual(res.body.data?.repos, [
      { __typename: 'PublicRepo', name: 'pub', stars: 5 },
      { __typename: 'PrivateRepo', name: 'priv', owner: 'me' },
      { __typename: 'PublicRepo', name: 'num', stars: 1 },
      null,
    ]);
    const error = errorAt(res.body, ['repos', 3]);
    assert.equal(error.extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    assert.doesNotMatch(error.message, /internal/, 'the message never shows the value');
  });

  test('check: an entry naming no member (with did you mean), two defaults, a repeated value, types on a field', async () => {
    const problems = await schemaProblems(
      `union U @from(key: "k", types: ["a=Issu", "Issue", "Pull", "b=Pull", "b=Issue", "c=Nope"]) = Issue | Pull
type Issue { n: Int }
type Pull { n: Int m: Int @from(key: "m", types: ["x"]) }
type Query { u: [U] @fetch(source: "s", path: "/u") }`,
      ['s'],
    );
    assert.deepEqual(problems, [
      '1:33: @from on U: types entry "a=Issu": "Issu" is not one of its types (Issue, Pull); did you mean "Issue"?',
      '1:52: @from on U: types has two defaults ("Issue" and "Pull"); keep one',
      '1:70: @from on U: types names the value "b" twice; keep one',
      '1:81: @from on U: types entry "c=Nope": "Nope" is not one of its types (Issue, Pull)',
      '3:27: @from on Pull.m: types belongs on a union or interface and value on an enum value; a field takes key or path',
    ]);
  });
});

describe('[check] accept_n_plus_one', () => {
  const SCHEMA = `type Query { issues: [Issue] @fetch(source: "gh", path: "/issues") }
type Issue { number: Int userId: ID @from(key: "user_id") user: User @fetch(source: "gh", path: "/users/{parent.userId}") }
type User { login: String }
`;
  const toml = (check: string) =>
    `[gateway]\nport = 0\nschema = ["gh.graphqls"]\ndebug_headers = true\n\n[sources.gh]\nurl = "http://127.0.0.1:9"\n\n${check}`;

  test('an accepted coordinate lets --strict pass; without it --strict fails on the N+1', async () => {
    for (const [check, status] of [
      ['[check]\naccept_n_plus_one = ["Issue.user"]\n', 0],
      ['', 1],
    ] as const) {
      const files = await writeGatewayFiles({ schemas: { 'gh.graphqls': SCHEMA }, toml: toml(check) });
      try {
        const run = await runCli(['check', '--strict', '--config', 'gateway.toml'], files.dir);
        assert.equal(run.status, status, run.stderr);
        if (status === 1)
          assert.match(run.stderr, /gh\.graphqls:2:70: warning: @fetch on Issue\.user reads \{parent\.\*\} under the list Query\.issues/);
        else assert.equal(run.stdout, 'gateway.toml: ok\n');
      } finally {
        await files.cleanup();
      }
    }
  });

  test('an unknown coordinate is an error at its entry with did you mean', async () => {
    const files = await writeGatewayFiles({
      schemas: { 'gh.graphqls': SCHEMA },
      toml: toml('[check]\naccept_n_plus_one = [\n  "Issue.user",\n  "Issue.usr",\n  "nope"\n]\n'),
    });
    try {
      const run = await runCli(['check', '--config', 'gateway.toml'], files.dir);
      assert.equal(run.status, 1);
      assert.equal(
        run.stderr,
        'gateway.toml:12:3: check.accept_n_plus_one entry "Issue.usr" is no field of the schema; did you mean "Issue.user"?\n' +
          'gateway.toml:13:3: check.accept_n_plus_one entry "nope" is no field of the schema (write Type.field)\n' +
          '2 problems in gateway.toml\n',
      );
    } finally {
      await files.cleanup();
    }
  });

  test('an accepted N+1 is still served, one request per item', async () => {
    const gh = await startUpstream({
      'GET /issues': () => ({
        json: [
          { number: 1, user_id: 'a' },
          { number: 2, user_id: 'b' },
        ],
      }),
      'GET /users/:id': (r) => ({ json: { login: `user-${r.params.id}` } }),
    });
    const gateway = await startTestGateway({
      sources: { gh: { url: gh.url } },
      schemas: { 'gh.graphqls': SCHEMA },
      extraToml: '[check]\naccept_n_plus_one = ["Issue.user"]',
    });
    try {
      const res = await gateway.query('{ issues { number user { login } } }');
      assert.deepEqual(res.body.data, {
        issues: [
          { number: 1, user: { login: 'user-a' } },
          { number: 2, user: { login: 'user-b' } },
        ],
      });
      assert.deepEqual(gh.requests.map((r) => `${r.method} ${r.url}`).sort(), ['GET /issues', 'GET /users/a', 'GET /users/b']);
    } finally {
      await gateway.close();
      await gh.close();
    }
  });
});
