/**
 * The planned bound (docs/hardening.md "Cost before anything is sent"), against a real gateway and
 * a counting upstream: X-GQL-Cost and `extensions.gqlgw.cost` follow the arithmetic of the plan
 * (`@listSize(slicing:)` literal and variable, `@listSize(assumed:)`, `[limits] assumed_list_size`,
 * `ceil(keys / max)` per share key, list keys, mutations); over generated operations on generated
 * data (redirects and batches included) the upstream never receives more planned calls than the
 * bound; `max_planned_subrequests` refuses with 400 COST_LIMIT on every entrance and nothing is sent.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startUpstream, splitIds, type CountingUpstream } from '../support/upstream.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { ENTRANCES, sendThrough } from '../support/entrances.js';
import { runCli } from '../support/cli.js';
import { schemaProblems } from '../support/schema-problems.js';

const SCHEMA = /* GraphQL */ `
  type Query {
    posts(limit: Int = 5): [Post!]! @fetch(source: "api", path: "/posts?limit={args.limit}") @listSize(slicing: "limit")
    allPosts: [Post!]! @fetch(source: "api", path: "/posts?limit=6")
    post(id: ID!): Post @fetch(source: "api", path: "/posts/{args.id}")
    moved(id: ID!): Post @fetch(source: "api", path: "/old/posts/{args.id}")
    users(ids: [ID!]!): [User] @fetch(source: "api", path: "/users/{args.ids}") @batch(path: "/users?ids={keys}", match: "id", max: 3)
  }
  type Mutation {
    touch(id: ID!): Post @fetch(source: "api", path: "/posts/{args.id}/touch", method: "POST")
  }
  type Post {
    id: ID!
    title: String
    authorId: ID @from(key: "author_id")
    author: User @fetch(source: "api", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id", max: 2)
    editor: User @fetch(source: "api", path: "/users/{parent.authorId}")
    old: Post @fetch(source: "api", path: "/old/posts/{parent.id}")
    tagIds: [ID!]! @from(key: "tag_ids")
    tags: [Tag] @fetch(source: "api", path: "/tags/{parent.tagIds}") @batch(path: "/tags?ids={keys}", match: "id", max: 2) @listSize(assumed: 3)
    comments: [Comment!]! @fetch(source: "api", path: "/posts/{parent.id}/comments") @listSize(assumed: 4)
  }
  type Comment {
    id: ID!
    authorId: ID @from(key: "author_id")
    author: User @fetch(source: "api", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id", max: 2)
  }
  type User {
    id: ID!
    name: String
    bestId: ID @from(key: "best_id")
    best: Post @fetch(source: "api", path: "/posts/{parent.bestId}")
  }
  type Tag {
    id: ID!
  }
`;

/** Generated data: each post's comments (at most 4), tags (at most 3) and authors; changed between runs. */
interface World {
  posts: number;
  comments: number;
  tags: number;
  authors: number;
}

const world: World = { posts: 6, comments: 4, tags: 3, authors: 5 };

function post(id: number) {
  return {
    id: String(id),
    title: `post ${id}`,
    author_id: String((id % world.authors) + 1),
    tag_ids: Array.from({ length: Math.min(3, (id + world.tags) % 4) }, (_, i) => `t${(id + i) % 5}`),
  };
}

function startApi(): Promise<CountingUpstream> {
  return startUpstream({
    'GET /posts': (r) => ({ json: Array.from({ length: Math.min(Number(r.query.get('limit')), world.posts) }, (_, i) => post(i + 1)) }),
    'GET /posts/:id': (r) => ({ json: post(Number(r.params.id)) }),
    'POST /posts/:id/touch': (r) => ({ json: post(Number(r.params.id)) }),
    'GET /old/posts/:id': (r) => ({ status: 301, json: {}, headers: { location: `/posts/${r.params.id}` } }),
    'GET /posts/:id/comments': (r) => ({
      json: Array.from({ length: (Number(r.params.id) + world.comments) % 5 }, (_, i) => ({
        id: `${r.params.id}-${i}`,
        author_id: String(((Number(r.params.id) + i) % world.authors) + 1),
      })),
    }),
    'GET /users': (r) => ({ json: splitIds(r.query.get('ids')).map((id) => ({ id, name: `user ${id}`, best_id: id })) }),
    'GET /users/:id': (r) => ({ json: { id: r.params.id, name: `user ${r.params.id}`, best_id: r.params.id } }),
    'GET /tags': (r) => ({ json: splitIds(r.query.get('ids')).map((id) => ({ id })) }),
  });
}

function cost(res: { headers: Headers }): number {
  return Number(res.headers.get('x-gql-cost'));
}

describe('the planned bound', () => {
  let api: CountingUpstream;
  let gw: TestGateway;
  before(async () => {
    api = await startApi();
    gw = await startTestGateway({
      sources: { api: { url: api.url, extra: 'follow_redirects = 2' } },
      schemas: { 'schema.graphqls': SCHEMA },
      l2MaxEntries: 0,
      extraToml: '[limits]\nassumed_list_size = 6',
    });
  });
  after(async () => {
    await gw?.close();
    await api?.close();
  });

  const cases: ReadonlyArray<[string, string, Record<string, unknown> | undefined, number]> = [
    ['one fetch', '{ posts(limit: 7) { title } }', undefined, 1],
    ['slicing by a literal, @batch in ceil(keys / max)', '{ posts(limit: 7) { author { name } } }', undefined, 1 + 4],
    ['slicing by a variable', 'query ($n: Int) { posts(limit: $n) { author { name } } }', { n: 3 }, 1 + 2],
    ["slicing by the argument's default", '{ posts { author { name } } }', undefined, 1 + 3],
    ['a single fetch per parent', '{ posts(limit: 3) { editor { name } } }', undefined, 1 + 3],
    ['assumed_list_size when no @listSize says', '{ allPosts { editor { name } } }', undefined, 1 + 6],
    ['@listSize(assumed:) times parents, then a batch below', '{ posts(limit: 3) { comments { author { name } } } }', undefined, 1 + 3 + 6],
    ['fields sharing a batch share chunks', '{ posts(limit: 3) { a: author { name } b: author { id } } }', undefined, 1 + 3],
    ['a list key: each element a key', '{ posts(limit: 2) { tags { id } } }', undefined, 1 + 3],
    ['a list argument key', '{ users(ids: [1, 2, 3, 4]) { name } }', undefined, 2],
    ['@skip by a variable', 'query ($s: Boolean!) { posts(limit: 3) { editor @skip(if: $s) { name } } }', { s: true }, 1],
    ['a mutation step and its rounds', 'mutation { touch(id: 1) { editor { best { title } } } }', undefined, 3],
  ];
  for (const [name, query, variables, expected] of cases) {
    test(`${name}: X-GQL-Cost ${expected}, the same in extensions.gqlgw.cost, and never fewer than sent`, async () => {
      api.reset();
      const res = await gw.query(query, variables);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.errors, undefined, res.text);
      assert.equal(cost(res), expected);
      assert.equal((res.body.extensions?.gqlgw as { cost?: number } | undefined)?.cost, expected);
      assert.ok(api.count() <= expected, `${api.count()} sent, ${expected} planned`);
    });
  }

  test('gqlgw plan prints the bound per round and in total', async () => {
    const out = await runCli([
      'plan',
      '--config',
      gw.files.configPath,
      '--variables',
      '{"n": 3}',
      'query ($n: Int) { posts(limit: $n) { comments { author { name } } } }',
    ]);
    assert.equal(out.status, 0, out.stderr);
    assert.match(out.stdout, /planned bound: 10 subrequests/);
    assert.match(out.stdout, /\n {2}round 1: 1\n {2}round 2: 3\n {2}round 3: 6\n/);
  });

  test('over generated operations and data, the upstream never gets more planned calls than the bound', async () => {
    const leaf = fc.constantFrom('id', 'title');
    const user = fc.constantFrom('name', 'best { title }', 'best { author { name } }');
    const postField = fc.oneof(
      leaf,
      user.map((u) => `author { ${u} }`),
      user.map((u) => `editor { ${u} }`),
      fc.constant('tags { id }'),
      fc.constant('old { title }'),
      user.map((u) => `comments { author { ${u} } }`),
    );
    const postSelection = fc.uniqueArray(postField, { minLength: 1, maxLength: 4 }).map((fs) => fs.join(' '));
    const root = fc.oneof(
      fc.tuple(fc.integer({ min: 0, max: 8 }), postSelection).map(([n, s]) => `posts(limit: ${n}) { ${s} }`),
      postSelection.map((s) => `allPosts { ${s} }`),
      fc.tuple(fc.integer({ min: 1, max: 9 }), postSelection).map(([id, s]) => `moved(id: ${id}) { ${s} }`),
      fc
        .uniqueArray(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 7 })
        .map((ids) => `users(ids: [${ids.join(', ')}]) { name }`),
    );
    const operation = fc.uniqueArray(root, { minLength: 1, maxLength: 3 }).map((rs) => `{ ${rs.map((r, i) => `f${i}: ${r}`).join(' ')} }`);
    const data = fc.record({
      posts: fc.integer({ min: 0, max: 6 }),
      comments: fc.integer({ min: 0, max: 4 }),
      tags: fc.integer({ min: 0, max: 3 }),
      authors: fc.integer({ min: 1, max: 9 }),
    });
    let redirected = 0;
    await fc.assert(
      fc.asyncProperty(operation, data, async (query, shape) => {
        Object.assign(world, shape);
        api.reset();
        const res = await gw.query(query);
        assert.equal(res.status, 200, res.text);
        const hops = api.requests.filter((r) => r.path.startsWith('/old/')).length;
        redirected += hops;
        // A redirect's hop is what the answer caused: planned calls are what reached the source minus them.
        const planned = api.count() - hops;
        assert.equal(Number(res.headers.get('x-gql-subrequests')), api.count());
        assert.ok(planned <= cost(res), `${query}: ${planned} planned calls sent, bound ${cost(res)}`);
      }),
      { numRuns: 60, seed: 46 },
    );
    assert.ok(redirected > 0, 'some operations followed redirects');
  });
});

describe('max_planned_subrequests', () => {
  let api: CountingUpstream;
  let gw: TestGateway;
  before(async () => {
    api = await startApi();
    gw = await startTestGateway({
      sources: { api: { url: api.url } },
      schemas: { 'schema.graphqls': SCHEMA },
      debugMode: false,
      extraToml: '[limits]\nmax_planned_subrequests = 5\nmax_subrequests = 3',
    });
    Object.assign(world, { posts: 6, comments: 4, tags: 3, authors: 5 });
  });
  after(async () => {
    await gw?.close();
    await api?.close();
  });

  test('an operation over it is 400 COST_LIMIT with its cost and the limit, nothing sent, the same on every entrance', async () => {
    const request = { query: 'query ($n: Int) { posts(limit: $n) { editor { name } } }', variables: { n: 5 } };
    api.reset();
    const answers = await Promise.all(
      ENTRANCES.map(async (e) => {
        const res = await sendThrough(e, gw.url, request);
        return { status: res.status, body: await res.text() };
      }),
    );
    assert.equal(api.count(), 0);
    for (const a of answers) {
      assert.equal(a.status, 400);
      assert.equal(a.body, answers[0]!.body);
    }
    const error = (JSON.parse(answers[0]!.body) as { errors: Array<{ extensions: Record<string, unknown> }> }).errors[0]!;
    assert.deepEqual(error.extensions, { code: 'COST_LIMIT', cost: 6, limit: 5 });
  });

  test('an operation within it runs; max_subrequests still counts what is sent', async () => {
    api.reset();
    const within = await gw.query('{ posts(limit: 2) { editor { name } } }');
    assert.equal(within.status, 200, within.text);
    assert.equal(api.count(), 3);
    api.reset();
    const res = await gw.query('{ posts(limit: 4) { editor { name } } }');
    assert.equal(res.body.errors?.[0]?.extensions?.code, 'SUBREQUEST_LIMIT', res.text);
    assert.equal(api.count(), 1);
  });
});

describe('@listSize in gqlgw check', () => {
  test('a field that is no list, a slicing argument that is missing or no Int, and neither argument are errors at line:col', async () => {
    const sdl = [
      'type Query {',
      '  one(limit: Int): T @fetch(source: "api", path: "/t") @listSize(assumed: 3)',
      '  many(limit: Int, name: String): [T] @fetch(source: "api", path: "/t") @listSize(slicing: "limt")',
      '  named(name: String): [T] @fetch(source: "api", path: "/t") @listSize(slicing: "name")',
      '  bare: [T] @fetch(source: "api", path: "/t") @listSize',
      '  fine(first: Int): [T] @fetch(source: "api", path: "/t") @listSize(assumed: 2, slicing: "first")',
      '}',
      'type T { id: ID }',
    ].join('\n');
    assert.deepEqual(await schemaProblems(sdl, ['api']), [
      '2:56: @listSize on Query.one has no effect: Query.one is no list (its type is T)',
      '3:73: @listSize on Query.many: slicing names no argument of Query.many; did you mean "limit"? (arguments: limit, name)',
      '4:62: @listSize on Query.named: slicing argument name must be an Int, found String',
      '5:47: @listSize on Query.bare needs assumed: N or slicing: "ARGUMENT" (or both)',
    ]);
  });
});

const ENTITY_SCHEMA = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
  type Query {
    items(n: Int): [Item] @fetch(source: "api", path: "/list?n={args.n}") @listSize(slicing: "n")
  }
  type Item @key(fields: "id")
    @lookup(key: "id", source: "api", path: "/items/{key.id}")
    @lookupBatch(key: "id", path: "/items?ids={keys}", match: "id", max: 2) {
    id: ID!
    title: String
    owner: Owner
  }
  type Owner @key(fields: "id") @lookup(key: "id", source: "api", path: "/owners/{key.id}") {
    id: ID!
    name: String
  }
`;

describe('the planned bound of _entities and of completions', () => {
  let api: CountingUpstream;
  let gw: TestGateway;
  before(async () => {
    const item = (id: string) => ({ id, title: `item ${id}`, owner: { id: `o${Number(id) % 2}` } });
    api = await startUpstream({
      'GET /list': (r) => ({
        json: Array.from({ length: Number(r.query.get('n')) }, (_, i) => ({ id: String(i + 1), owner: { id: 'o1' } })),
      }),
      'GET /items': (r) => ({ json: splitIds(r.query.get('ids')).map(item) }),
      'GET /owners/:id': (r) => ({ json: { id: r.params.id, name: `owner ${r.params.id}` } }),
    });
    gw = await startTestGateway({ sources: { api: { url: api.url } }, schemas: { 'schema.graphqls': ENTITY_SCHEMA }, l2MaxEntries: 0 });
  });
  after(async () => {
    await gw?.close();
    await api?.close();
  });

  test('_entities: one lookup per representation in chunks of max, then a completion round per object', async () => {
    api.reset();
    const reps = ['1', '2', '1', '3', '4'].map((id) => ({ __typename: 'Item', id }));
    const res = await gw.query('query ($r: [_Any!]!) { _entities(representations: $r) { ... on Item { title owner { name } } } }', {
      r: reps,
    });
    assert.equal(res.body.errors, undefined, res.text);
    // ceil(5 / 2) lookups of items, then 5 owners completed one by one.
    assert.equal(cost(res), 3 + 5);
    assert.ok(api.count() <= cost(res), `${api.count()} sent`);
  });

  test('a partial object is completed one round later: one lookup per object', async () => {
    api.reset();
    const res = await gw.query('{ items(n: 3) { title owner { name } } }');
    assert.equal(res.body.errors, undefined, res.text);
    assert.equal(cost(res), 1 + 2 + 3);
    assert.ok(api.count() <= cost(res), `${api.count()} sent`);
    assert.ok(api.count() >= 3, 'completions were sent');
  });
});
