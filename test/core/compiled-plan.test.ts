/**
 * `[gateway] plan` (docs/performance.md "A plan compiled per operation"): the compiled plan and the
 * interpreter, its reference, give the same bytes, the same X-GQL-* counts and send the same
 * upstream requests in the same order, over a walk with every kind of step: fetched fields, plain
 * objects walked into, lists, a namespace field, @skip/@include on literals and on variables.
 * `npm run test:interpreter` runs every test of test/core and test/rest against the interpreter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, renderGatewayToml, startTestGateway, type GatewayFilesOptions, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { makeUsers, usersRoutes, postsRoutes } from './fixtures.js';
import { parse } from 'graphql';
import { buildBlueprint } from '../../gateway/blueprint/build.js';
import { loadConfig } from '../../gateway/config/load.js';
import { buildPlan } from '../../gateway/plan/build.js';
import { compiledWalker } from '../../gateway/execute/ask/compiled-walk.js';
import { INTERPRETED_WALKER } from '../../gateway/execute/ask/walk.js';
import { JIT_MAX_FIELDS } from '../../gateway/plan/compile-limit.js';

const SCHEMA = `
type Query {
  posts(limit: Int): [Post] @fetch(source: "posts", path: "/posts?limit={args.limit}")
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}")
  shelf: Shelf
}
type Shelf { first: Post @fetch(source: "posts", path: "/posts/1") }
type Post {
  id: ID!
  title: String
  authorId: ID @from(key: "author_id")
  author: User @fetch(source: "users", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id")
  meta: Meta
}
type Meta {
  editorId: ID @from(key: "editor_id")
  editor: User @fetch(source: "users", path: "/users/{parent.editorId}")
  tags: [[String]]
}
type User { id: ID! name: String }
`;

const QUERY = `query ($loud: Boolean!, $id: ID!, $quiet: Boolean = false) {
  posts(limit: 6) {
    id
    title @include(if: $loud)
    author { name }
    meta { tags editor @skip(if: $quiet) { name } }
    ... on Post @include(if: false) { authorId }
  }
  user(id: $id) { name }
  shelf { first { id author @include(if: true) { id name } } }
}`;

const posts = Array.from({ length: 8 }, (_, i) => ({
  id: i + 1,
  title: `Title ${i + 1}`,
  author_id: (i % 3) + 1,
  meta: i % 2 === 0 ? { editor_id: 9 - i, tags: [['a'], [String(i)]] } : null,
}));

describe('the compiled plan answers like the interpreter', () => {
  let upstream: CountingUpstream;
  const gateways: Record<'compiled' | 'interpreted', TestGateway | undefined> = { compiled: undefined, interpreted: undefined };

  const options = (url: string): GatewayFilesOptions => ({
    sources: { users: { url }, posts: { url } },
    schemas: { 'schema/s.graphqls': SCHEMA },
  });
  const withPlan = (o: GatewayFilesOptions, plan: string): GatewayFilesOptions => ({
    ...o,
    toml: renderGatewayToml(o).replace('[gateway]', `[gateway]\nplan = "${plan}"`),
  });

  before(async () => {
    upstream = await startUpstream({ ...usersRoutes(makeUsers(10)), ...postsRoutes(posts) });
    for (const plan of ['compiled', 'interpreted'] as const) gateways[plan] = await startTestGateway(withPlan(options(upstream.url), plan));
  });
  after(async () => {
    for (const gateway of Object.values(gateways)) await gateway?.close();
    await upstream.close();
  });

  for (const variables of [
    { loud: true, id: '2' },
    { loud: false, id: '404', quiet: true },
  ]) {
    test(`byte-equal answers, counts and upstream requests (${JSON.stringify(variables)})`, async () => {
      const seen = [];
      for (const plan of ['compiled', 'interpreted'] as const) {
        upstream.reset();
        const res = await gateways[plan]!.query(QUERY, variables);
        seen.push({ text: res.text, counts: debugCounts(res), sent: upstream.requests.map((r) => `${r.method} ${r.url}`) });
      }
      const [compiled, interpreted] = seen;
      assert.equal(compiled!.text, interpreted!.text);
      assert.deepEqual(compiled!.counts, interpreted!.counts);
      assert.deepEqual(compiled!.sent, interpreted!.sent);
      assert.ok(
        compiled!.sent.some((line) => line.startsWith('GET /users?ids=')),
        'the walk reached the authors',
      );
      assert.equal(compiled!.counts.rounds, 2, 'posts, the user and the shelf post; then authors and editors');
    });
  }

  test('a plan of more than JIT_MAX_FIELDS entries is walked by the interpreter (compiling costs time linear in it)', () => {
    const blueprint = buildBlueprint(loadConfig(gateways.compiled!.files.configPath));
    const planOf = (fields: number) => {
      const aliases = Array.from({ length: fields }, (_, i) => `a${i}: id`).join(' ');
      return buildPlan(blueprint, parse(`{ posts(limit: 1) { ${aliases} } }`))!;
    };
    assert.notEqual(compiledWalker(planOf(JIT_MAX_FIELDS - 1)), INTERPRETED_WALKER);
    assert.equal(compiledWalker(planOf(JIT_MAX_FIELDS)), INTERPRETED_WALKER);
  });

  test('any other value of plan is refused at start', async () => {
    await assert.rejects(startTestGateway(withPlan(options(upstream.url), 'fast')), /must be "compiled" or "interpreted", found "fast"/);
  });
});
