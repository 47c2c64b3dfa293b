/**
 * docs/hardening.md: limits hold whatever the document's shape. Fragments that spread each
 * other are measured without expanding them (limits.max_fields, 400 FIELD_LIMIT), at most one
 * `__schema` per document (400 INTROSPECTION_LIMIT), `introspection = false` refuses `__schema` and
 * `__type` (400 INTROSPECTION_DISABLED). Plans are built in time linear in the document, and
 * graphql-jit compiles only operations small enough for its compile to stay cheap.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'graphql';
import { loadConfig } from '../../gateway/config/load.js';
import { buildBlueprint } from '../../gateway/blueprint/build.js';
import { buildPlan } from '../../gateway/plan/build.js';
import { expandedFieldCount } from '../../gateway/plan/measure.js';
import type { PlanSelection } from '../../gateway/plan/types.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { requestError } from '../support/assert.js';
import { metricValue } from '../support/prom-text.js';

const SCHEMA = `
type Query {
  posts(limit: Int): [Post] @fetch(source: "posts", path: "/posts?limit={args.limit}")
  node: Node @fetch(source: "posts", path: "/posts/1")
}
interface Node { id: ID! }
type Post implements Node {
  id: ID!
  title: String
  comments: [Post] @from(key: "children")
}
type Other implements Node { id: ID! name: String }
`;

/** `fragment F0 { id title }`, `F{i} { ...F{i-1} ...F{i-1} }`: F30 would expand to 2^31 fields. */
function fragmentBomb(levels: number): string {
  const parts = [`query Bomb { posts(limit: 2) { ...F${levels} } }`, 'fragment F0 on Post { id title }'];
  for (let i = 1; i <= levels; i++) parts.push(`fragment F${i} on Post { ...F${i - 1} ...F${i - 1} }`);
  return parts.join('\n');
}

/** The same through inline fragments and an interface. */
function inlineBomb(levels: number): string {
  const parts = ['{ node { ...G' + levels + ' } }', 'fragment G0 on Node { id ... on Post { title } }'];
  for (let i = 1; i <= levels; i++) parts.push(`fragment G${i} on Node { ... on Post { ...G${i - 1} } ... { ...G${i - 1} } }`);
  return parts.join('\n');
}

/** Spreads nested inside fields: each level doubles through a child field. */
function nestedBomb(levels: number): string {
  const parts = [`{ posts(limit: 1) { ...N${levels} } }`, 'fragment N0 on Post { id }'];
  for (let i = 1; i <= levels; i++) parts.push(`fragment N${i} on Post { ...N${i - 1} comments { ...N${i - 1} } }`);
  return parts.join('\n');
}

/** Distinct entry objects of a plan, through children (a fragment's entries are built once and shared). */
function planSize(selection: PlanSelection | undefined, seen = new Set<object>()): number {
  for (const entry of selection?.entries ?? []) {
    if (seen.has(entry)) continue;
    seen.add(entry);
    planSize(entry.children, seen);
  }
  return seen.size;
}

/** "Milliseconds" on a loaded 2-core machine: the measured runs take 2–20 ms. */
const QUICK_MS = 1500;

describe('document limits that hold whatever the shape', () => {
  let posts: CountingUpstream;
  let gw: TestGateway;
  let closed: TestGateway;

  before(async () => {
    posts = await startUpstream({
      'GET /posts': () => ({
        json: [
          { id: 1, title: 'a', children: [{ id: 3, title: 'c', children: [] }] },
          { id: 2, title: 'b', children: [] },
        ],
      }),
      'GET /posts/1': () => ({ json: { __typename: 'Post', id: 1, title: 'a', children: [] } }),
    });
    gw = await startTestGateway({ schemas: { 'schema.graphqls': SCHEMA }, sources: { posts: { url: posts.url } }, debugMode: false });
    closed = await startTestGateway({
      schemas: { 'schema.graphqls': SCHEMA },
      sources: { posts: { url: posts.url } },
      debugMode: false,
      extraToml: '[limits]\nmax_fields = 20\n',
    });
    // The introspection switch lives in [gateway]; rendered configs end with extra tables, so it
    // is tested with a written config below.
  });
  after(async () => {
    await gw.close();
    await closed.close();
    await posts.close();
  });

  test('the fragment bomb (F0..F30, 1.2 KB) gets 400 FIELD_LIMIT at once, over POST and GET, and the next query is answered', async () => {
    const bomb = fragmentBomb(30);
    assert.ok(bomb.length < 1300, `${bomb.length} bytes`);
    posts.reset();
    const t0 = performance.now();
    const res = await gw.query(bomb);
    const ms = performance.now() - t0;
    assert.equal(res.status, 400, res.text);
    const error = requestError(res.body);
    assert.equal(error.extensions?.code, 'FIELD_LIMIT');
    assert.equal(error.extensions?.limit, 10000);
    assert.match(error.message, /more than 10000 fields once its fragments are expanded \(limits\.max_fields\)/);
    assert.ok(ms < QUICK_MS, `answered in ${ms.toFixed(0)} ms`);
    const viaGet = await gw.get(`/graphql?query=${encodeURIComponent(bomb)}`, { accept: 'application/json' });
    assert.equal(viaGet.status, 400);
    assert.equal(requestError(viaGet.body).extensions?.code, 'FIELD_LIMIT');
    assert.equal(posts.count(), 0, 'nothing was fetched');

    const next = await gw.query('{ posts(limit: 2) { id title } }');
    assert.equal(next.status, 200, next.text);
    assert.deepEqual(next.body.data, {
      posts: [
        { id: '1', title: 'a' },
        { id: '2', title: 'b' },
      ],
    });
  });

  test('variants with inline fragments and spreads nested in fields get the same 400', async () => {
    for (const document of [inlineBomb(30), nestedBomb(30), fragmentBomb(200)]) {
      const t0 = performance.now();
      const res = await gw.query(document);
      const ms = performance.now() - t0;
      assert.equal(res.status, 400, res.text);
      assert.equal(requestError(res.body).extensions?.code, 'FIELD_LIMIT', document.slice(0, 60));
      assert.ok(ms < QUICK_MS, `answered in ${ms.toFixed(0)} ms`);
    }
    const next = await gw.query('{ node { id ... on Post { title } } }');
    assert.deepEqual(next.body.data, { node: { id: '1', title: 'a' } });
  });

  test('max_fields counts every selection after expansion: at the limit runs, one more is refused', async () => {
    // posts + 19 fields = 20.
    const at = `{ posts(limit: 1) { ...A ...A ...A id } } fragment A on Post { id title comments { id title id } }`;
    assert.equal(expandedFieldCount(parse(at), undefined), 20);
    const ok = await closed.query(at);
    assert.equal(ok.status, 200, ok.text);
    const over = await closed.query(`${at.replace(' id } }', ' id title } }')}`);
    assert.equal(over.status, 400, over.text);
    const error = requestError(over.body);
    assert.equal(error.extensions?.code, 'FIELD_LIMIT');
    assert.equal(error.extensions?.limit, 20);
  });

  test('one __schema per document: a second one, directly or through fragments, is 400 INTROSPECTION_LIMIT', async () => {
    const one = await gw.query('{ __schema { queryType { name } } }');
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body.data, { __schema: { queryType: { name: 'Query' } } });
    for (const document of [
      '{ a: __schema { queryType { name } } b: __schema { queryType { name } } }',
      '{ ...S ...S } fragment S on Query { __schema { queryType { name } } }',
      `{ ${Array.from({ length: 200 }, (_, i) => `s${i}: __schema { types { name } }`).join(' ')} }`,
    ]) {
      const res = await gw.query(document);
      assert.equal(res.status, 400, res.text);
      assert.equal(requestError(res.body).extensions?.code, 'INTROSPECTION_LIMIT');
    }
  });

  test('plans are linear in the document: each fragment is built once, a repeated spread taken once', async () => {
    const config = loadConfig(gw.files.configPath);
    const blueprint = buildBlueprint(config);
    const plan = buildPlan(blueprint, parse(fragmentBomb(30)), 'Bomb');
    assert.ok(plan);
    // posts, and under it id and title: 2^31 entries if every spread were expanded again.
    assert.equal(planSize(plan.root), 3);
    const nested = buildPlan(blueprint, parse(nestedBomb(20)));
    assert.ok(nested);
    // posts, id, and one comments entry per level, each built once: linear in the levels.
    assert.equal(planSize(nested.root), 1 + 1 + 20);
  });
});

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

describe('introspection = false', () => {
  let posts: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    posts = await startUpstream({ 'GET /posts': () => ({ json: [{ id: 1, title: 'a' }] }) });
    gw = await startTestGateway({
      schemas: { 'schema.graphqls': SCHEMA },
      toml: `[gateway]\nhost = "127.0.0.1"\nport = 0\nschema = ["schema.graphqls"]\nintrospection = false\n\n[sources.posts]\nurl = "${posts.url}"\n\n[metrics]\ntoken = "${METRICS_TOKEN}"\n`,
    });
  });
  after(async () => {
    await gw.close();
    await posts.close();
  });

  test('__schema and __type get 400 INTROSPECTION_DISABLED over POST and GET; __typename still works', async () => {
    for (const document of [
      '{ __schema { queryType { name } } }',
      '{ __type(name: "Post") { name } }',
      '{ posts { id ... on Post { __type(name: "Post") { name } } } }',
    ]) {
      const res = await gw.query(document);
      assert.equal(res.status, 400, res.text);
      const error = requestError(res.body);
      assert.equal(error.extensions?.code, 'INTROSPECTION_DISABLED');
      const viaGet = await gw.get(`/graphql?query=${encodeURIComponent(document)}`);
      assert.equal(viaGet.status, 400);
      assert.equal(requestError(viaGet.body).extensions?.code, 'INTROSPECTION_DISABLED');
    }
    const typename = await gw.query('{ __typename posts { __typename id } }');
    assert.equal(typename.status, 200, typename.text);
    assert.deepEqual(typename.body.data, { __typename: 'Query', posts: [{ __typename: 'Post', id: '1' }] });
    // With introspection off the metrics are served on this port only under their token.
    const metrics = (await gw.get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` })).text;
    assert.equal(metricValue(metrics, 'gqlgw_http_requests_total', { status: '400', code: 'INTROSPECTION_DISABLED' }), 6);
  });
});
