/**
 * @invalidate beyond one process's L2 (docs/mutations.md): through a real memcached shared by
 * two gateways with L2 off, including the per-caller entries of a source with forward_headers, and
 * a memcached that does not answer (the delete is counted, the mutation still succeeds).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import type { CountingUpstream } from '../support/upstream.js';
import { listItems, startBlackholeServer, startMemcached, type FakeServer, type RunningMemcached } from '../support/memcached.js';
import { parsePromText, sumOf } from '../support/prom-text.js';
import { pollUntil } from '../support/wait.js';
import { BLOG_SCHEMA, startBlog } from './blog-fixture.js';

/** Beside BLOG_SCHEMA: a source that forwards `authorization`, so its entries are kept per caller. */
const PRIVATE_SCHEMA = `
extend type Query {
  mine(id: ID!): Mine @fetch(source: "priv", path: "/posts/{args.id}") @cache(ttl: 300)
}
extend type Mutation {
  retitleMine(id: ID!, title: String!): Mine
    @fetch(source: "priv", path: "/posts/{args.id}", method: "PATCH", body: """{"title": {args.title}}""")
    @invalidate(source: "priv", path: "/posts/{args.id}")
}
type Mine { id: ID! title: String! }
`;

const memcachedToml = (address: string, prefix: string, timeoutMs = 500): string =>
  ['[cache.memcached]', `servers = ["${address}"]`, `key_prefix = "${prefix}"`, `timeout_ms = ${timeoutMs}`].join('\n');

describe('@invalidate through memcached shared by two gateways (L2 off)', () => {
  let mc: RunningMemcached;
  let blog: CountingUpstream;
  let writer: TestGateway;
  let reader: TestGateway;
  const prefix = `mut${process.pid}:`;

  before(async () => {
    mc = await startMemcached();
    ({ upstream: blog } = await startBlog());
    const options = {
      sources: { blog: { url: blog.url }, priv: { url: blog.url, forwardHeaders: ['authorization'] } },
      schemas: { 's.graphqls': BLOG_SCHEMA, 'p.graphqls': PRIVATE_SCHEMA },
      l2MaxEntries: 0,
      extraToml: memcachedToml(mc.address, prefix),
    };
    writer = await startTestGateway(options);
    reader = await startTestGateway(options);
  });
  after(async () => {
    await writer.close();
    await reader.close();
    await blog.close();
    await mc.stop();
  });

  const titleVia = async (gw: TestGateway): Promise<string> =>
    ((await gw.query('{ post(id: 1) { title } }')).body.data?.post as { title: string }).title;
  const stored = (): Promise<boolean> =>
    pollUntil(
      async () => (await listItems(mc.address)).some((i) => i.key === `${prefix}blog:/posts/1`),
      (found) => found,
    );

  test('without @invalidate the other gateway reads memcached; with it the other gateway reaches the upstream', async () => {
    assert.equal(await titleVia(writer), 'First');
    assert.ok(await stored(), 'the entry reached memcached');
    assert.equal(await titleVia(reader), 'First');
    assert.equal(blog.count('GET /posts/:id'), 1, 'the reader was answered by memcached (L2 is off)');

    await writer.query('mutation { renamePost(id: 1, title: "Renamed") { title } }');
    assert.equal(await titleVia(reader), 'First', 'no @invalidate: memcached still serves the old value');
    assert.equal(blog.count('GET /posts/:id'), 1);

    await writer.query('mutation { retitlePost(id: 1, title: "Retitled") { title } }');
    assert.ok(!(await listItems(mc.address)).some((i) => i.key === `${prefix}blog:/posts/1`), 'deleted before the response was sent');
    assert.equal(await titleVia(reader), 'Retitled');
    assert.equal(blog.count('GET /posts/:id'), 2, 'the reader reached the upstream');
  });
  test("per caller: deletes the caller's own entry and the entry without headers; another caller's stays until its ttl", async () => {
    const A = { authorization: 'Bearer a' };
    const B = { authorization: 'Bearer b' };
    const read = async (gw: TestGateway, headers?: Record<string, string>): Promise<string> =>
      ((await gw.query('{ mine(id: 2) { title } }', undefined, headers)).body.data?.mine as { title: string }).title;
    blog.reset();
    for (const who of [A, B, undefined]) await read(writer, who);
    assert.equal(blog.count('GET /posts/:id'), 3, 'one entry per caller');
    const perCaller = await pollUntil(
      async () => (await listItems(mc.address)).filter((i) => i.key.startsWith(`${prefix}priv:/posts/2#h=`)).length,
      (n) => n === 3,
    );
    assert.equal(perCaller, 3, 'three entries in memcached, keyed by a digest of the header values');
    for (const who of [A, B, undefined]) await read(reader, who);
    assert.equal(blog.count('GET /posts/:id'), 3, 'the other gateway reads all three from memcached');

    blog.reset();
    const res = await writer.query('mutation { retitleMine(id: 2, title: "Mine") { title } }', undefined, A);
    assert.equal((res.body.data?.retitleMine as { title: string }).title, 'Mine');
    assert.equal(blog.requests[0]?.headers.authorization, 'Bearer a', 'the write forwards the caller header');
    assert.equal(await read(reader, A), 'Mine');
    assert.equal(await read(reader, undefined), 'Mine');
    assert.equal(blog.count('GET /posts/:id'), 2, "A's entry and the anonymous entry were deleted");
    assert.equal(await read(reader, B), 'Second', "B's entry keeps the old value until its ttl");
    assert.equal(blog.count('GET /posts/:id'), 2);
  });
});

describe('@invalidate with a memcached that does not answer', () => {
  let hole: FakeServer;
  let blog: CountingUpstream;
  let gateway: TestGateway;
  before(async () => {
    hole = await startBlackholeServer();
    ({ upstream: blog } = await startBlog());
    gateway = await startTestGateway({
      sources: { blog: { url: blog.url } },
      schemas: { 's.graphqls': BLOG_SCHEMA },
      extraToml: memcachedToml(hole.address, 'x:', 100),
    });
  });
  after(async () => {
    await gateway.close();
    await blog.close();
    await hole.stop();
  });

  test('the mutation succeeds and the failed delete is counted', async () => {
    const res = await gateway.query('mutation { deletePost(id: 2) }');
    assert.deepEqual(res.body.errors, undefined);
    assert.deepEqual(res.body.data, { deletePost: true });
    const metrics = parsePromText((await gateway.get('/metrics')).text);
    assert.equal(sumOf(metrics, 'gqlgw_cache_tier_failures_total', { call: 'delete' }), 1);
  });
});
