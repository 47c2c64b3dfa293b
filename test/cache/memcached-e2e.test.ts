/**
 * The memcached tier inside the real gateway, over HTTP: two gateways ("processes") share entries
 * through a real memcached, tiers are read L1 → L2 → memcached → source and filled on the way
 * back, TTLs come from @cache(ttl), oversized values are not stored, and a memcached that is
 * down, slow, closing connections or answering garbage never fails a query (counted in /metrics).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import type { CountingUpstream } from '../support/upstream.js';
import {
  listItems,
  startBlackholeServer,
  startClosingServer,
  startGarbageServer,
  startLatencyProxy,
  startMemcached,
  type FakeServer,
  type RunningMemcached,
  type StoredItem,
} from '../support/memcached.js';
import { makePosts, makeUsers, startPosts, startUsers } from '../core/fixtures.js';
import { parsePromText, sumOf } from '../support/prom-text.js';
import { pollUntil } from '../support/wait.js';

const TEST_TIMEOUT_MS = 30_000;
const HEADLINE_QUERY = '{ posts(limit: 100) { id title author { name } } }';
/** Post i is written by author ((i * 37) mod 100) + 1: 100 posts by 100 distinct authors. */
const authorOf = (postId: number): number => ((postId * 37) % 100) + 1;

const SCHEMA = `
type Query {
  posts(limit: Int): [Post] @fetch(source: "posts", path: "/posts?limit={args.limit}")
  post(id: ID!): Post @fetch(source: "posts", path: "/posts/{args.id}") @cache(ttl: 300)
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}") @cache(ttl: 45)
}
type Post {
  id: ID!
  title: String
  authorId: ID! @from(key: "author_id")
  author: User
    @fetch(source: "users", path: "/users/{parent.authorId}")
    @batch(path: "/users?ids={keys}", match: "id", max: 100)
    @cache(ttl: 120)
}
type User {
  id: ID!
  name: String
}
`;

let prefixCounter = 0;
const freshPrefix = (): string => `e2e${process.pid}-${++prefixCounter}:`;

interface MemcachedOptions {
  readonly servers: readonly string[];
  readonly keyPrefix: string;
  readonly timeoutMs?: number;
  readonly failureThreshold?: number;
  readonly cooldownMs?: number;
  readonly maxValueBytes?: number;
}

function memcachedToml(o: MemcachedOptions): string {
  const lines = ['[cache.memcached]', `servers = ${JSON.stringify(o.servers)}`, `key_prefix = ${JSON.stringify(o.keyPrefix)}`];
  if (o.timeoutMs !== undefined) lines.push(`timeout_ms = ${o.timeoutMs}`);
  if (o.failureThreshold !== undefined) lines.push(`failure_threshold = ${o.failureThreshold}`);
  if (o.cooldownMs !== undefined) lines.push(`cooldown_ms = ${o.cooldownMs}`);
  if (o.maxValueBytes !== undefined) lines.push(`max_value_bytes = ${o.maxValueBytes}`);
  return lines.join('\n');
}

/** Items of one deployment (key prefix), polled until `done` holds or 3 s have passed. */
async function itemsUntil(address: string, keyPrefix: string, done: (items: StoredItem[]) => boolean): Promise<StoredItem[]> {
  return pollUntil(async () => (await listItems(address)).filter((item) => item.key.startsWith(keyPrefix)), done);
}

/** Sum of the samples of `name` whose labels include `labels`. */
async function metric(gw: TestGateway, name: string, labels: Record<string, string> = {}): Promise<number> {
  const res = await gw.get('/metrics');
  assert.equal(res.status, 200);
  return sumOf(parsePromText(res.text), name, labels);
}

function assertHeadline(posts: unknown): void {
  assert.ok(Array.isArray(posts));
  assert.equal(posts.length, 100);
  (posts as Array<{ id: string; author: { name: string } | null }>).forEach((post, i) => {
    assert.equal(post.id, String(i + 1));
    assert.deepEqual(post.author, { name: `User ${authorOf(i + 1)}` });
  });
}

describe('memcached tier in the gateway', { timeout: 120_000 }, () => {
  let mc: RunningMemcached;
  let users: CountingUpstream;
  let posts: CountingUpstream;
  const gateways: TestGateway[] = [];
  const gateway = async (memcached: MemcachedOptions): Promise<TestGateway> => {
    const gw = await startTestGateway({
      sources: { users: { url: users.url }, posts: { url: posts.url } },
      schemas: { 'schema/blog.graphqls': SCHEMA },
      extraToml: memcachedToml(memcached),
    });
    gateways.push(gw);
    return gw;
  };

  before(async () => {
    mc = await startMemcached();
    const bigUser = { id: 'big', name: 'n'.repeat(3000) };
    users = await startUsers([...makeUsers(100), bigUser]);
    posts = await startPosts(makePosts(100, authorOf));
  });
  after(async () => {
    await Promise.all(gateways.splice(0).map((gw) => gw.close()));
    await users?.close();
    await posts?.close();
    await mc?.stop();
  });

  test('a second gateway answers from memcached what the first fetched, then from its own L2', { timeout: TEST_TIMEOUT_MS }, async () => {
    const keyPrefix = freshPrefix();
    users.reset();
    posts.reset();
    const first = await gateway({ servers: [mc.address], keyPrefix });
    const cold = await first.query(HEADLINE_QUERY);
    assert.equal(cold.body.errors, undefined);
    assertHeadline(cold.body.data?.posts);
    assert.deepEqual(debugCounts(cold), { rounds: 2, subrequests: 2, batches: 1 });
    assert.equal(users.count(), 1);

    const stored = await itemsUntil(mc.address, keyPrefix, (items) => items.length >= 100);
    assert.equal(stored.length, 100, 'the 100 authors were written to memcached');

    const second = await gateway({ servers: [mc.address], keyPrefix });
    const warm = await second.query(HEADLINE_QUERY);
    assert.equal(warm.body.errors, undefined);
    assertHeadline(warm.body.data?.posts);
    assert.deepEqual(debugCounts(warm), { rounds: 2, subrequests: 1, batches: 0 }, 'authors came from memcached');
    assert.equal(users.count(), 1, 'the users service was not asked again');
    const fromMemcached = { coordinate: 'Post.author', tier: 'memcached' };
    assert.equal(await metric(second, 'gqlgw_cache_requests_total', { ...fromMemcached, result: 'hit' }), 100);

    const again = await second.query(HEADLINE_QUERY);
    assertHeadline(again.body.data?.posts);
    assert.deepEqual(debugCounts(again), { rounds: 2, subrequests: 1, batches: 0 });
    assert.equal(await metric(second, 'gqlgw_cache_requests_total', { ...fromMemcached, result: 'hit' }), 100, 'not asked again');
    assert.equal(
      await metric(second, 'gqlgw_cache_requests_total', { coordinate: 'Post.author', tier: 'l2', result: 'hit' }),
      100,
      'the memcached hits were put into L2 on the way back',
    );
    assert.equal(await metric(second, 'gqlgw_cache_tier_failures_total'), 0);
  });

  test('entries expire after the ttl of their @cache directive', { timeout: TEST_TIMEOUT_MS }, async () => {
    const keyPrefix = freshPrefix();
    const gw = await gateway({ servers: [mc.address], keyPrefix });
    const res = await gw.query('{ user(id: 7) { name } post(id: 3) { title } }');
    assert.deepEqual(res.body.data, { user: { name: 'User 7' }, post: { title: 'Title 3' } });
    const now = Date.now() / 1000;
    const items = await itemsUntil(mc.address, keyPrefix, (found) => found.length >= 2);
    const user = items.find((item) => item.key.includes('/users/7'));
    const post = items.find((item) => item.key.includes('/posts/3'));
    assert.ok(user && post, JSON.stringify(items));
    assert.ok(Math.abs(user.exp - (now + 45)) <= 3, `user expires in ${user.exp - now} s, @cache(ttl: 45)`);
    assert.ok(Math.abs(post.exp - (now + 300)) <= 3, `post expires in ${post.exp - now} s, @cache(ttl: 300)`);
  });

  test('values larger than max_value_bytes are served but not stored', { timeout: TEST_TIMEOUT_MS }, async () => {
    const keyPrefix = freshPrefix();
    const gw = await gateway({ servers: [mc.address], keyPrefix, maxValueBytes: 2000 });
    const res = await gw.query('{ big: user(id: "big") { name } small: user(id: 9) { name } }');
    assert.equal(res.body.errors, undefined);
    assert.equal((res.body.data?.big as { name: string }).name.length, 3000);
    const items = await itemsUntil(mc.address, keyPrefix, (found) => found.some((i) => i.key.includes('/users/9')));
    assert.ok(
      items.some((item) => item.key.includes('/users/9')),
      'the small value was stored',
    );
    // The writes share one connection and memcached answers them in order: once a later write is
    // stored, a write of big would have been stored too.
    await gw.query('{ user(id: 10) { name } }');
    const later = await itemsUntil(mc.address, keyPrefix, (found) => found.some((i) => i.key.includes('/users/10')));
    assert.ok(
      later.some((item) => item.key.includes('/users/10')),
      'the later value was stored',
    );
    assert.ok(!later.some((item) => item.key.includes('/users/big')), 'big was not');
  });

  test('comes back by itself after memcached was down', { timeout: TEST_TIMEOUT_MS }, async () => {
    const own = await startMemcached();
    try {
      const keyPrefix = freshPrefix();
      const gw = await gateway({ servers: [own.address], keyPrefix, failureThreshold: 1, cooldownMs: 400 });
      await own.stop();
      const down = await gw.query('{ user(id: 11) { name } }');
      assert.deepEqual(down.body.data, { user: { name: 'User 11' } });
      assert.ok((await metric(gw, 'gqlgw_cache_tier_failures_total', { kind: 'error', call: 'get' })) >= 1);
      await own.restart();
      // Until the breaker's 400 ms cooldown is over, writes are skipped; then the next one lands.
      // Each try asks a new key, answered by the source either way, and looks for it in memcached.
      let id = 12;
      const landed = await pollUntil(
        async () => {
          id++;
          const up = await gw.query(`{ user(id: ${id}) { name } }`);
          assert.deepEqual(up.body.data, { user: { name: `User ${id}` } });
          // The write follows the answer: look for it for a while (up to 300 ms) before the next try.
          const stored = (items: StoredItem[]) => items.some((item) => item.key.includes(`/users/${id}`));
          return stored(await pollUntil(() => listItems(own.address), stored, 300));
        },
        (found) => found,
        10_000,
        50,
      );
      assert.ok(landed, 'writes reach memcached again');
    } finally {
      await own.stop();
    }
  });

  const badBackends: ReadonlyArray<{
    readonly name: string;
    readonly kinds: readonly string[];
    /** Whether writes fail too, so that the breaker opens (a junk-value server acknowledges writes). */
    readonly opens: boolean;
    readonly start: () => Promise<{ address: string; stop(): Promise<void> }>;
  }> = [
    {
      name: 'stopped',
      kinds: ['error'],
      opens: true,
      start: async () => {
        const gone = await startBlackholeServer();
        await gone.stop();
        return { address: gone.address, stop: async () => undefined };
      },
    },
    { name: 'a black hole', kinds: ['timeout'], opens: true, start: startBlackholeServer },
    { name: 'closing every connection', kinds: ['timeout', 'error'], opens: true, start: startClosingServer },
    { name: 'answering junk values', kinds: ['garbage'], opens: false, start: () => startGarbageServer('frames') },
    { name: 'answering junk bytes', kinds: ['timeout', 'error'], opens: true, start: () => startGarbageServer('bytes') },
    { name: 'slow (300 ms each way)', kinds: ['timeout'], opens: true, start: () => startLatencyProxy(mc.address, 300) },
  ];

  for (const backend of badBackends) {
    test(
      `memcached ${backend.name}: every query is answered from the source within the deadline`,
      { timeout: TEST_TIMEOUT_MS },
      async () => {
        const bad: { address: string; stop(): Promise<void> } | FakeServer = await backend.start();
        try {
          const timeoutMs = 100;
          const gw = await gateway({
            servers: [bad.address],
            keyPrefix: freshPrefix(),
            timeoutMs,
            failureThreshold: 2,
            cooldownMs: 60_000,
          });
          users.reset();
          for (let i = 0; i < 4; i++) {
            const started = performance.now();
            const res = await gw.query(`{ user(id: ${20 + i}) { name } }`);
            const ms = performance.now() - started;
            assert.equal(res.status, 200);
            assert.equal(res.body.errors, undefined);
            assert.deepEqual(res.body.data, { user: { name: `User ${20 + i}` } });
            // Generous: the failure counters below say why it fell through; this only catches a hang.
            assert.ok(ms < timeoutMs + 3000, `query ${i} took ${ms} ms`);
          }
          assert.equal(users.count(), 4, 'each query fell through to the source');
          let failures = 0;
          for (const kind of backend.kinds) failures += await metric(gw, 'gqlgw_cache_tier_failures_total', { kind });
          const skips = await metric(gw, 'gqlgw_cache_tier_skips_total', { call: 'get' });
          assert.equal(await metric(gw, 'gqlgw_cache_tier_failures_total'), failures, 'only the expected kinds');
          if (backend.opens) {
            assert.ok(failures >= 2, `failures of kind ${backend.kinds.join('|')} counted: ${failures}`);
            assert.ok(skips >= 1, 'after failure_threshold failures the tier was skipped');
          } else {
            assert.equal(await metric(gw, 'gqlgw_cache_tier_failures_total', { call: 'get' }), 4, 'every read was junk');
          }
        } finally {
          await Promise.all(gateways.splice(0).map((gw) => gw.close()));
          await bad.stop();
        }
      },
    );
  }
});
