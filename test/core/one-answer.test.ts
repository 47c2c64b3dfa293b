/**
 * One answer whatever the optimisations (SPEC "Exact data in both directions"), where two features
 * meet, against real counting upstreams and the real gateway over HTTP:
 * - a `response: true` field beside a plain field (or another `select`) on one subrequest shares the
 *   call, never the memo entry (in either field order), nor the call's shaped value when coalesced
 *   across requests;
 * - a field `@from(key: "constructor")` (or another name of an inherited member) reads own keys only,
 *   through every reader (shaper, data writer, placeholders, select, batch match, discriminators);
 * - @skip / @include on copies of one field answer exactly what graphql-js answers, keys in
 *   graphql-js's order;
 * - a non-null error on a field selected twice names it once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildSchema, graphql } from 'graphql';
import { debugCounts, startTestGateway, type GraphQLResult, type TestGateway } from '../support/gateway.js';
import { splitIds, startUpstream, type CountingUpstream } from '../support/upstream.js';
import { parsePromText, sumOf } from '../support/prom-text.js';
import { pollUntil, until } from '../support/wait.js';
import { Gate } from '../support/gate.js';

const SCHEMA = `
type Query {
  rateLimit: RateLimit @fetch(source: "zd", path: "/me.json", response: true)
  me: User @fetch(source: "zd", path: "/me.json", select: "user")
  userResp(id: ID!): RateLimit @fetch(source: "zd", path: "/users/{args.id}", response: true)
  user(id: ID!): User @fetch(source: "zd", path: "/users/{args.id}")
  odd(id: ID!): Odd @fetch(source: "zd", path: "/odd/{args.id}")
  odds: [Odd] @fetch(source: "zd", path: "/odds")
  things: [Thing] @fetch(source: "zd", path: "/things")
}
type RateLimit {
  status: Int
  remaining: String @from(path: "headers.x-rate-limit-remaining")
}
type User {
  id: ID!
  name: String
  strict: String!
  orgId: ID @from(key: "org_id")
  self: User @fetch(source: "zd", path: "/users/{parent.id}")
  org: Org @fetch(source: "zd", path: "/orgs/{parent.orgId}")
}
type Org { name: String }
type Odd {
  id: ID
  constructor: String
  toString: String @from(key: "toString")
  proto: String @from(key: "__proto__")
  has: String @from(key: "hasOwnProperty")
  ctorName: String @from(path: "meta.constructor")
  byCtor: User @fetch(source: "zd", path: "/users/{parent.constructor}")
  batched: User
    @fetch(source: "zd", path: "/users/{parent.constructor}")
    @batch(path: "/users?ids={keys}", match: "valueOf")
}
type Mutation {
  touch: RateLimit @fetch(source: "zd", method: "POST", path: "/touch", response: true)
}
union Thing @from(key: "constructor", types: ["*=Film", "Book"]) = Book | Film
type Book { title: String }
type Film { title: String }
`;

const USERS: Record<string, { id: string; name: string; org_id: string }> = {
  '1': { id: '1', name: 'Ann', org_id: '10' },
  '2': { id: '2', name: 'Bob', org_id: '10' },
};

describe('one answer where features meet', { timeout: 30_000 }, () => {
  let zd: CountingUpstream;
  let gw: TestGateway;
  const gate = new Gate();

  before(async () => {
    zd = await startUpstream({
      'GET /me.json': () => ({ json: { user: { id: '1', name: 'Ann' } }, headers: { 'x-rate-limit-remaining': '699' } }),
      'GET /users/:id': async ({ params }) => {
        await gate.passed();
        const user = USERS[params.id];
        return user ? { json: user, headers: { 'x-rate-limit-remaining': '42' } } : { status: 404, json: {} };
      },
      'GET /users': ({ query }) => ({ json: splitIds(query.get('ids')).map((id) => ({ ...USERS[id], valueOf: id })) }),
      'GET /orgs/:id': () => ({ json: { name: 'Org 10' } }),
      'POST /touch': () => ({ status: 201, json: { status: 'body status' }, headers: { 'x-rate-limit-remaining': '7' } }),
      'GET /odd/:id': ({ params }) => ({ json: params.id === 'own' ? ownKeys() : { id: '9', meta: {} } }),
      'GET /odds': () => ({ json: [{ id: '1', constructor: '1' }, { id: '2' }] }),
      'GET /things': () => ({ json: [{ title: 'Dune' }, { title: 'Heat', constructor: 'film' }] }),
    });
    gw = await startTestGateway({ schemas: { 's.graphqls': SCHEMA }, sources: { zd: { url: zd.url } } });
  });
  after(async () => {
    await gw?.close();
    await zd?.close();
  });

  test('row 1: a response: true field beside a select field of one path: one call, each its own value, either order', async () => {
    for (const query of ['{ rateLimit { status remaining } me { name } }', '{ me { name } rateLimit { status remaining } }']) {
      zd.reset();
      const res = await gw.query(query);
      assert.deepEqual(answer(res.body), { data: { rateLimit: { status: 200, remaining: '699' }, me: { name: 'Ann' } } }, query);
      assert.deepEqual(
        zd.requests.map((r) => r.url),
        ['/me.json'],
        'they share the call',
      );
      assert.equal(debugCounts(res).subrequests, 1);
    }
  });

  test('a response: true mutation field reads the whole answer too', async () => {
    const res = await gw.query('mutation { touch { status remaining } }');
    assert.deepEqual(answer(res.body), { data: { touch: { status: 201, remaining: '7' } } });
  });

  test('row 10: a response: true field and a plain field of one path coalesced across callers share the call, not the value', async () => {
    zd.reset();
    gate.close();
    const resp = gw.query('{ userResp(id: 1) { status remaining } }');
    await until(() => zd.count('GET /users/:id') === 1, 'the first call reached the source');
    const plain = gw.query('{ user(id: 1) { id name } }');
    const joined = await pollUntil(
      async () => sumOf(parsePromText((await gw.get('/metrics')).text), 'gqlgw_coalesced_total', { coordinate: 'Query.user' }),
      (n) => n >= 1,
    );
    gate.open();
    assert.equal(joined, 1, 'the plain field waited for the whole-answer call');
    const [a, b] = await Promise.all([resp, plain]);
    assert.deepEqual(answer(a.body), { data: { userResp: { status: 200, remaining: '42' } } });
    assert.deepEqual(answer(b.body), { data: { user: { id: '1', name: 'Ann' } } });
    assert.equal(zd.count('GET /users/:id'), 1, 'one HTTP call for both callers');
  });

  test('row 10: a response: true field never takes a plain call in flight: it asks for the whole answer itself', async () => {
    zd.reset();
    gate.close();
    const plain = gw.query('{ user(id: 2) { id name } }');
    await until(() => zd.count('GET /users/:id') === 1, 'the plain call reached the source');
    const resp = gw.query('{ userResp(id: 2) { status remaining } }');
    await until(() => zd.count('GET /users/:id') === 2, 'the whole-answer call reached the source');
    gate.open();
    const [a, b] = await Promise.all([plain, resp]);
    assert.deepEqual(answer(a.body), { data: { user: { id: '2', name: 'Bob' } } });
    assert.deepEqual(answer(b.body), { data: { userResp: { status: 200, remaining: '42' } } });
  });

  test('row 8: a key named like an inherited member is absent when the object lacks it, in every reader', async () => {
    zd.reset();
    const query = '{ odd(id: "lacking") { id constructor toString proto has ctorName byCtor { name } } }';
    const res = await gw.query(query);
    assert.deepEqual(answer(res.body), {
      data: { odd: { id: '9', constructor: null, toString: null, proto: null, has: null, ctorName: null, byCtor: null } },
    });
    assert.deepEqual(
      zd.requests.map((r) => r.url),
      ['/odd/lacking'],
      'a placeholder reading an absent key sends nothing',
    );
    // Through graphql-js and graphql-jit too (an entrance that shapes rather than writes): the same.
    const shaped = await gw.get(`/graphql?query=${encodeURIComponent(query)}`, { accept: 'application/graphql-response+json' });
    assert.deepEqual(answer(shaped.body as GraphQLResult), answer(res.body));
  });

  test('row 8: own keys named like inherited members are ordinary keys', async () => {
    zd.reset();
    const res = await gw.query('{ odd(id: "own") { constructor toString proto has ctorName byCtor { name } } }');
    assert.deepEqual(answer(res.body), {
      data: { odd: { constructor: '1', toString: 'ts', proto: 'p', has: 'h', ctorName: 'c', byCtor: { name: 'Ann' } } },
    });
  });

  test('row 8: a batch key, match key and discriminator named like inherited members read own keys', async () => {
    zd.reset();
    const res = await gw.query('{ odds { id batched { name } } things { __typename ... on Book { title } ... on Film { title } } }');
    assert.deepEqual(res.body.data, {
      odds: [
        { id: '1', batched: { name: 'Ann' } },
        { id: '2', batched: null },
      ],
      things: [
        { __typename: 'Book', title: 'Dune' },
        { __typename: 'Film', title: 'Heat' },
      ],
    });
    assert.deepEqual(
      zd.requestsFor('GET /users').map((r) => r.url),
      ['/users?ids=1'],
      'only the parent with its own key asks',
    );
  });

  test('a non-null error on a field selected twice names the field once', async () => {
    const res = await gw.query('{ user(id: 1) { strict strict } }');
    assert.equal(res.body.data?.user, null);
    const messages = (res.body.errors ?? []).map((e) => e.message);
    assert.ok(messages.length > 0 && messages.every((m) => m.includes('User.strict') && !m.includes('(')), messages.join(' | '));
  });
});

/** The answer without its debug extensions. */
function answer(body: GraphQLResult): GraphQLResult {
  const { extensions: _debug, ...rest } = body;
  return rest;
}

/** An object whose own keys carry the names of Object.prototype's members. */
function ownKeys(): unknown {
  return JSON.parse('{"constructor":"1","toString":"ts","__proto__":"p","hasOwnProperty":"h","meta":{"constructor":"c"}}');
}

/** The same User data as graphql-js resolvers: what graphql-js answers is the reference for @skip / @include. */
const REFERENCE_SCHEMA = buildSchema(`
type Query { user(id: ID!): User }
type User { id: ID! name: String orgId: ID self: User org: Org }
type Org { name: String }
`);
const referenceRoot = {
  user: ({ id }: { id: string }) => referenceUser(id),
};
function referenceUser(id: string): unknown {
  const u = USERS[id];
  return u && { id: u.id, name: u.name, orgId: u.org_id, self: () => referenceUser(u.id), org: () => ({ name: 'Org 10' }) };
}

describe('row 11: @skip and @include answer what graphql-js answers', { timeout: 30_000 }, () => {
  let zd: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    zd = await startUpstream({
      'GET /users/:id': ({ params }) => (USERS[params.id] ? { json: USERS[params.id] } : { status: 404, json: {} }),
      'GET /orgs/:id': () => ({ json: { name: 'Org 10' } }),
    });
    gw = await startTestGateway({ schemas: { 's.graphqls': SCHEMA }, sources: { zd: { url: zd.url } }, debugMode: false });
  });
  after(async () => {
    await gw?.close();
    await zd?.close();
  });

  const cases: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['query($s: Boolean!) { user(id: 1) { self @skip(if: $s) { ... { org { name } } } self { name } } }', { s: true }],
    ['query($s: Boolean!) { user(id: 1) { self @skip(if: $s) { ... { org { name } } } self { name } } }', { s: false }],
    ['query($s: Boolean!) { user(id: 1) { self { name } self @skip(if: $s) { org { name } } } }', { s: true }],
    ['{ user(id: 1) { self @skip(if: true) { org { name } } self { name } } }', {}],
    ['query($s: Boolean!) { user(id: 1) { ... @skip(if: $s) { org { name } name } id } }', { s: true }],
    ['query($s: Boolean!) { user(id: 1) { ... on User @include(if: $s) { org { name } } self { id } } }', { s: false }],
    ['query($v: Boolean!) { user(id: 1) { id @include(if: false) name id n: name @include(if: $v) } }', { v: true }],
    ['query($v: Boolean!) { user(id: 1) { id @include(if: $v) name id n: name @include(if: $v) } }', { v: false }],
    ['query($v: Boolean!) { user(id: 1) { org @include(if: $v) { name } name org { name } } }', { v: false }],
    ['query($s: Boolean!) { user(id: 1) { ...F @skip(if: $s) self { name } } } fragment F on User { self { org { name } } }', { s: true }],
    ['query($s: Boolean!) { user(id: 1) { self { name } ... on User @skip(if: $s) { self { org { name } id } } } }', { s: true }],
    ['query($s: Boolean!) { user(id: 1) { self { self @skip(if: $s) { ... { org { name } } } } self { self { name } } } }', { s: true }],
  ];
  for (const [query, variables] of cases) {
    test(`${query} ${JSON.stringify(variables)}`, async () => {
      const expected = await graphql({ schema: REFERENCE_SCHEMA, source: query, variableValues: variables, rootValue: referenceRoot });
      assert.equal(expected.errors, undefined);
      const want = JSON.stringify({ data: expected.data });
      const posted = await gw.query(query, variables);
      assert.equal(posted.text, want, 'POST (the data writer)');
      const shaped = await gw.get(
        `/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify(variables))}`,
        {
          accept: 'application/graphql-response+json',
        },
      );
      assert.equal(JSON.stringify(shaped.body), want, 'GET (the shaper)');
    });
  }
});
