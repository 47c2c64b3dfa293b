/**
 * @cache beyond a ttl, over HTTP against counting upstreams and a real memcached shared by two
 * gateways (docs/caching.md): a stale entry is served at once while exactly one background fetch
 * renews it; misses (404, a key a batch did not answer) are remembered in L2 and memcached, errors
 * never; a one-to-many key with no items is [] cached as usual; and a value copied from memcached
 * into L2 keeps its age, so it expires everywhere ttl after it was fetched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { splitIds, startUpstream, type CountingUpstream } from '../support/upstream.js';
import { listItems, startMemcached, type RunningMemcached } from '../support/memcached.js';
import { parsePromText, sumOf } from '../support/prom-text.js';
import { pollUntil, until } from '../support/wait.js';

const SCHEMA = `
type Query {
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}") @cache(ttl: 60, missing: 60)
  strictUser(id: ID!): User! @fetch(source: "users", path: "/users/{args.id}") @cache(ttl: 60, missing: 60)
  plainUser(id: ID!): User @fetch(source: "users", path: "/plain/{args.id}") @cache(ttl: 60)
  news: News @fetch(source: "users", path: "/news") @cache(ttl: 1, stale: 30)
  brief(id: ID!): User @fetch(source: "users", path: "/brief/{args.id}") @cache(ttl: 2)
  posts(ids: String!): [Post] @fetch(source: "posts", path: "/posts?ids={args.ids}")
}
type Post {
  id: ID!
  authorId: ID @from(key: "author_id")
  author: User
    @fetch(source: "users", path: "/users/{parent.authorId}")
    @batch(path: "/users?ids={keys}", match: "id")
    @cache(ttl: 60, missing: 60)
  tags: [Tag]
    @fetch(source: "posts", path: "/posts/{parent.id}/tags")
    @batch(path: "/tags?post_ids={keys}", match: "post_id")
    @cache(ttl: 60)
}
type User { id: ID! name: String }
type News { edition: Int }
type Tag { name: String }
`;

describe('@cache stale, missing and one age across tiers', { timeout: 30_000 }, () => {
  let mc: RunningMemcached;
  let users: CountingUpstream;
  let posts: CountingUpstream;
  let a: TestGateway;
  let b: TestGateway;
  const keyPrefix = `age${process.pid}:`;
  let edition = 0;
  let briefVersion = 0;
  /** Ids whose GET /users/:id fails with this status instead of answering. */
  const failing = new Map<string, number>();

  before(async () => {
    mc = await startMemcached();
    users = await startUpstream({
      'GET /users/:id': ({ params }) => {
        const status = failing.get(params.id);
        if (status !== undefined) return { status, json: { error: 'down' } };
        return Number(params.id) >= 400
          ? { status: 404, json: { error: 'no such user' } }
          : { json: { id: params.id, name: `User ${params.id}` } };
      },
      'GET /plain/:id': () => ({ status: 404, json: { error: 'no such user' } }),
      'GET /users': ({ query }) => ({
        json: splitIds(query.get('ids'))
          .filter((id) => Number(id) < 400)
          .map((id) => ({ id, name: `User ${id}` })),
      }),
      'GET /news': () => ({ json: { edition: ++edition }, delayMs: 200 }),
      'GET /brief/:id': ({ params }) => ({ json: { id: params.id, name: `brief ${++briefVersion}` } }),
    });
    posts = await startUpstream({
      'GET /posts': ({ query }) => ({ json: splitIds(query.get('ids')).map((id) => ({ id, author_id: id })) }),
      'GET /tags': ({ query }) => ({
        json: splitIds(query.get('post_ids'))
          .filter((id) => id !== '500')
          .map((id) => ({ post_id: id, name: `tag of ${id}` })),
      }),
    });
    const options = {
      sources: { users: { url: users.url }, posts: { url: posts.url } },
      schemas: { 'schema.graphqls': SCHEMA },
      extraToml: `[cache.memcached]\nservers = ["${mc.address}"]\nkey_prefix = "${keyPrefix}"\ntimeout_ms = 1000`,
    };
    a = await startTestGateway(options);
    b = await startTestGateway(options);
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([users?.close(), posts?.close()]);
    await mc?.stop();
  });

  const metric = async (gw: TestGateway, name: string, labels: Record<string, string>): Promise<number> =>
    sumOf(parsePromText((await gw.get('/metrics')).text), name, labels);
  /** Waits until memcached holds an item whose key ends with `suffix` (writes are fire-and-forget). */
  const stored = async (suffix: string): Promise<void> => {
    const items = await pollUntil(
      () => listItems(mc.address),
      (all) => all.some((i) => i.key === keyPrefix + suffix),
    );
    assert.ok(
      items.some((i) => i.key === keyPrefix + suffix),
      `memcached holds ${suffix}`,
    );
  };

  it('remembers a 404 for `missing` seconds in L2 and memcached: null, NOT_FOUND for a non-null field', async () => {
    users.reset();
    const first = await a.query('{ user(id: 404) { name } }');
    assert.deepEqual([first.body.data, first.body.errors], [{ user: null }, undefined]);
    assert.equal(users.count('GET /users/:id'), 1);
    const again = await a.query('{ user(id: 404) { name } strictUser(id: 404) { name } }');
    assert.equal(users.count('GET /users/:id'), 1, 'remembered in L2, for every field with this key');
    assert.equal(debugCounts(again).subrequests, 0);
    assert.equal(again.body.data, null, 'strictUser is non-null');
    assert.deepEqual(
      again.body.errors?.map((e) => [e.path, e.extensions?.code]),
      [[['strictUser'], 'NOT_FOUND']],
    );
    await stored('users:/users/404');
    const other = await b.query('{ user(id: 404) { name } }');
    assert.deepEqual(other.body.data, { user: null });
    assert.equal(users.count('GET /users/:id'), 1, 'remembered in memcached for the other gateway');
    assert.equal(await metric(b, 'gqlgw_cache_missing_served_total', { coordinate: 'Query.user' }), 1);
  });

  it('asks again for a 404 without `missing`, and never remembers an error', async () => {
    users.reset();
    await a.query('{ plainUser(id: 1) { name } }');
    await a.query('{ plainUser(id: 1) { name } }');
    assert.equal(users.count('GET /plain/:id'), 2);
    failing.set('77', 500);
    for (let i = 0; i < 2; i++) {
      const failed = await a.query('{ user(id: 77) { name } }');
      assert.equal(failed.body.errors?.[0]?.extensions?.code, 'UPSTREAM_HTTP_ERROR');
    }
    assert.equal(users.count('GET /users/:id'), 2, 'each request asked again');
    failing.delete('77');
    const healed = await a.query('{ user(id: 77) { name } }');
    assert.deepEqual(healed.body.data, { user: { name: 'User 77' } });
  });

  it('remembers a key a batch did not answer; a one-to-many key with no items is [] cached as usual', async () => {
    users.reset();
    posts.reset();
    const query = '{ posts(ids: "5,450,500") { id author { name } tags { name } } }';
    const first = await a.query(query);
    assert.deepEqual(first.body.data?.posts, [
      { id: '5', author: { name: 'User 5' }, tags: [{ name: 'tag of 5' }] },
      { id: '450', author: null, tags: [{ name: 'tag of 450' }] },
      { id: '500', author: null, tags: [] },
    ]);
    assert.equal(users.count('GET /users') + posts.count('GET /tags'), 2);
    const again = await a.query(query);
    assert.deepEqual(again.body.data, first.body.data);
    assert.equal(users.count('GET /users') + posts.count('GET /tags'), 2, 'neither the missing author nor the empty tags asked again');
    assert.equal(debugCounts(again).subrequests, 1, 'only posts itself');
  });

  it('serves an expired entry within `stale` at once while exactly one background fetch renews it', async () => {
    users.reset();
    const fetched = await a.query('{ news { edition } }');
    assert.deepEqual(fetched.body.data, { news: { edition: 1 } });
    const freshUntil = Date.now() + 1000;
    const warm = await a.query('{ news { edition } }');
    assert.equal(debugCounts(warm).subrequests, 0);
    await until(() => Date.now() > freshUntil + 50, 'ttl over', 3000);
    const stale = await Promise.all(Array.from({ length: 5 }, () => a.query('{ news { edition } }')));
    for (const r of stale) {
      assert.deepEqual(r.body.data, { news: { edition: 1 } }, 'the stale value, without waiting for the source');
      assert.equal(debugCounts(r).subrequests, 0, 'the refresh is in no request');
    }
    await until(() => users.count('GET /news') >= 2, 'the refresh reached the source');
    const renewed = await pollUntil(
      () => a.query('{ news { edition } }'),
      (r) => (r.body.data?.news as { edition: number }).edition === 2,
    );
    assert.deepEqual(renewed.body.data, { news: { edition: 2 } }, 'the refresh filled the cache');
    assert.equal(users.count('GET /news'), 2, 'exactly one refresh for every stale answer');
    assert.equal(await metric(a, 'gqlgw_cache_refreshes_total', { coordinate: 'Query.news' }), 1);
    assert.ok((await metric(a, 'gqlgw_cache_stale_served_total', { coordinate: 'Query.news' })) >= 5);
  });

  it('a value copied from memcached into L2 keeps its age: it expires ttl after it was fetched', async () => {
    users.reset();
    const fetched = await a.query('{ brief(id: 1) { name } }');
    const fetchedBy = Date.now();
    const freshUntil = fetchedBy + 2000; // the entry's freshUntil is at most this
    assert.deepEqual(fetched.body.data, { brief: { name: 'brief 1' } });
    await stored('users:/brief/1');
    // b copies it half a second after it was fetched: a copy that got a fresh full ttl would live
    // on in b's L2 half a second after the original expired.
    await until(() => Date.now() >= fetchedBy + 500, 'the entry is half a second old', 3000);
    const copied = await b.query('{ brief(id: 1) { name } }');
    assert.deepEqual(copied.body.data, { brief: { name: 'brief 1' } });
    assert.equal(users.count('GET /brief/:id'), 1, 'b read memcached');
    await until(() => Date.now() > freshUntil + 20, 'ttl over', 3000);
    const later = await b.query('{ brief(id: 1) { name } }');
    assert.deepEqual(later.body.data, { brief: { name: 'brief 2' } }, "b's L2 copy expired with the original");
    assert.equal(users.count('GET /brief/:id'), 2);
  });
});
