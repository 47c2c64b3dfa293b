/**
 * /metrics end to end: the real gateway over HTTP against counting upstreams (and a real memcached),
 * then the scraped Prometheus text is parsed and asserted to the exact counter values and histogram
 * counts/sums the queries must have produced, cross-checked with what the upstreams received.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startMemcached, type RunningMemcached } from '../support/memcached.js';
import { type CountingUpstream } from '../support/upstream.js';
import { makePosts, makeUsers, startPosts, startUsers } from '../core/fixtures.js';
import { parsePromText, samplesOf, valueOf, type PromText } from '../support/prom-text.js';
import { pollUntil } from '../support/wait.js';

/** Post i is written by author ((i * 37) mod 100) + 1: 100 posts by 100 distinct authors. */
const authorOf = (postId: number): number => ((postId * 37) % 100) + 1;
const AUTHOR = { coordinate: 'Post.author' };
const AUTHOR_USERS = { coordinate: 'Post.author', source: 'users' };

function blogSchema(authorDirectives: string, userDirectives = ''): string {
  return `
type Query {
  posts(limit: Int): [Post] @fetch(source: "posts", path: "/posts?limit={args.limit}")
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}") ${userDirectives}
}
type Post {
  id: ID!
  title: String
  authorId: ID! @from(key: "author_id")
  author: User @fetch(source: "users", path: "/users/{parent.authorId}") ${authorDirectives}
}
type User {
  id: ID!
  name: String
}
`;
}

const feed = (limit: number) => `query Feed { posts(limit: ${limit}) { id title author { name } } }`;

async function scrape(gateway: TestGateway): Promise<PromText> {
  const response = await gateway.get('/metrics');
  assert.equal(response.status, 200, response.text);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePromText(response.text);
}

async function runQuery(gateway: TestGateway, query: string): Promise<void> {
  const result = await gateway.query(query);
  assert.equal(result.status, 200, result.text);
  assert.equal(result.body.errors, undefined, result.text);
}

/** memcached's `curr_items`, read with the text protocol's `stats` command (one socket, 2 s deadline). */
function memcachedItems(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => socket.destroy(new Error('memcached stats timed out')), 2000);
    socket.on('connect', () => socket.write('stats\r\n'));
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if (!text.includes('END\r\n')) return;
      clearTimeout(timer);
      socket.destroy();
      resolve(Number(/STAT curr_items (\d+)/.exec(text)?.[1] ?? Number.NaN));
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

describe('/metrics over HTTP', () => {
  let users: CountingUpstream;
  let posts: CountingUpstream;
  const gateways: TestGateway[] = [];

  async function gatewayWith(authorDirectives: string, userDirectives = '', extraToml?: string): Promise<TestGateway> {
    const gateway = await startTestGateway({
      sources: { users: { url: users.url }, posts: { url: posts.url } },
      schemas: { 'schema/blog.graphqls': blogSchema(authorDirectives, userDirectives) },
      extraToml,
    });
    gateways.push(gateway);
    users.reset();
    posts.reset();
    return gateway;
  }

  before(async () => {
    users = await startUsers(makeUsers(100), {
      'GET /users/broken': () => ({ status: 503, body: 'down' }),
    });
    posts = await startPosts(makePosts(100, authorOf));
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
    await users.close();
    await posts.close();
  });

  it('100 keys with max 100: one batch of size 100', async () => {
    const gateway = await gatewayWith('@batch(path: "/users?ids={keys}", match: "id", max: 100)');
    await runQuery(gateway, feed(100));
    assert.equal(users.count('GET /users'), 1);
    assert.equal(users.count(), 1);

    const text = await scrape(gateway);
    assert.equal(text.types.get('gqlgw_batches_total'), 'counter');
    assert.equal(text.types.get('gqlgw_batch_size'), 'histogram');
    assert.equal(valueOf(text, 'gqlgw_batches_total', AUTHOR), 1);
    assert.equal(valueOf(text, 'gqlgw_batch_size_count', AUTHOR), 1);
    assert.equal(valueOf(text, 'gqlgw_batch_size_sum', AUTHOR), 100);
    assert.equal(valueOf(text, 'gqlgw_batch_size_bucket', { ...AUTHOR, le: '50' }), 0);
    assert.equal(valueOf(text, 'gqlgw_batch_size_bucket', { ...AUTHOR, le: '100' }), 1);
    assert.equal(valueOf(text, 'gqlgw_subrequests_total', { ...AUTHOR_USERS, kind: 'batch' }), 1);
    assert.equal(valueOf(text, 'gqlgw_subrequests_total', { ...AUTHOR_USERS, kind: 'single' }), undefined);
    assert.equal(valueOf(text, 'gqlgw_subrequests_total', { coordinate: 'Query.posts', source: 'posts', kind: 'single' }), 1);
    assert.deepEqual(
      samplesOf(text, 'gqlgw_batches_total').map((s) => s.labels),
      [AUTHOR],
    );
    assert.equal(valueOf(text, 'gqlgw_upstream_duration_seconds_count', AUTHOR_USERS), 1);
    assert.deepEqual(samplesOf(text, 'gqlgw_upstream_errors_total'), []);

    const op = { operation: 'Feed' };
    assert.equal(valueOf(text, 'gqlgw_operation_duration_seconds_count', op), 1);
    assert.equal(valueOf(text, 'gqlgw_operation_rounds_sum', op), 2);
    assert.equal(valueOf(text, 'gqlgw_operation_subrequests_sum', op), 2);
    assert.equal(valueOf(text, 'gqlgw_operation_batches_sum', op), 1);
    assert.equal(text.types.get('gqlgw_process_cpu_seconds_total'), 'counter');
  });

  it('95 keys with max 10: ten batches whose sizes sum to 95', async () => {
    const gateway = await gatewayWith('@batch(path: "/users?ids={keys}", match: "id", max: 10)');
    await runQuery(gateway, feed(95));
    assert.equal(users.count('GET /users'), 10);

    const text = await scrape(gateway);
    assert.equal(valueOf(text, 'gqlgw_batches_total', AUTHOR), 10);
    assert.equal(valueOf(text, 'gqlgw_batch_size_count', AUTHOR), 10);
    assert.equal(valueOf(text, 'gqlgw_batch_size_sum', AUTHOR), 95);
    assert.equal(valueOf(text, 'gqlgw_batch_size_bucket', { ...AUTHOR, le: '10' }), 10);
    assert.equal(valueOf(text, 'gqlgw_subrequests_total', { ...AUTHOR_USERS, kind: 'batch' }), 10);
    assert.equal(valueOf(text, 'gqlgw_upstream_duration_seconds_count', AUTHOR_USERS), 10);
    assert.equal(valueOf(text, 'gqlgw_operation_subrequests_sum', { operation: 'Feed' }), 11);
    assert.equal(valueOf(text, 'gqlgw_operation_batches_sum', { operation: 'Feed' }), 10);
  });

  it('without @batch: single fetches, dedupe savings, and upstream errors by code', async () => {
    const gateway = await gatewayWith('');
    await runQuery(gateway, feed(20));
    assert.equal(users.count('GET /users/:id'), 20);
    await runQuery(gateway, '{ a: user(id: 7) { name } b: user(id: 7) { id } c: user(id: 7) { name } }');
    assert.equal(users.count('GET /users/:id'), 21);
    const failed = await gateway.query('{ user(id: "broken") { name } }');
    assert.equal(failed.body.errors?.[0]?.extensions?.code, 'UPSTREAM_HTTP_ERROR', failed.text);

    const text = await scrape(gateway);
    assert.equal(valueOf(text, 'gqlgw_subrequests_total', { ...AUTHOR_USERS, kind: 'single' }), 20);
    assert.deepEqual(samplesOf(text, 'gqlgw_batches_total'), []);
    assert.deepEqual(samplesOf(text, 'gqlgw_batch_size_count'), []);
    const userAt = { coordinate: 'Query.user', source: 'users' };
    assert.equal(valueOf(text, 'gqlgw_upstream_errors_total', { ...userAt, code: 'UPSTREAM_HTTP_ERROR' }), 1);
    assert.equal(valueOf(text, 'gqlgw_subrequests_total', { ...userAt, kind: 'single' }), 2);
    assert.equal(valueOf(text, 'gqlgw_dedupe_saved_total', userAt), 2);
    assert.equal(valueOf(text, 'gqlgw_dedupe_saved_total', AUTHOR_USERS), undefined);
    assert.equal(valueOf(text, 'gqlgw_operation_rounds_count', { operation: 'anonymous' }), 2);
    assert.equal(valueOf(text, 'gqlgw_operation_subrequests_sum', { operation: 'anonymous' }), 2);
  });

  it('cache hits and misses per tier (L1, L2) with @cache', async () => {
    const gateway = await gatewayWith('@batch(path: "/users?ids={keys}", match: "id", max: 100) @cache(ttl: 300)');
    await runQuery(gateway, feed(100));
    let text = await scrape(gateway);
    const cache = (tier: string, result: string) => valueOf(text, 'gqlgw_cache_requests_total', { ...AUTHOR_USERS, tier, result }) ?? 0;
    // Cold: every one of the 100 distinct authors misses L1 and L2 and goes into one batch.
    assert.equal(users.count(), 1);
    assert.deepEqual(
      { l1hit: cache('l1', 'hit'), l1miss: cache('l1', 'miss'), l2hit: cache('l2', 'hit'), l2miss: cache('l2', 'miss') },
      { l1hit: 0, l1miss: 100, l2hit: 0, l2miss: 100 },
    );

    await runQuery(gateway, feed(100));
    text = await scrape(gateway);
    // Warm: a new request (empty L1), the process LRU answers all 100, nothing is sent to users.
    assert.equal(users.count(), 1);
    assert.deepEqual(
      { l1hit: cache('l1', 'hit'), l1miss: cache('l1', 'miss'), l2hit: cache('l2', 'hit'), l2miss: cache('l2', 'miss') },
      { l1hit: 0, l1miss: 200, l2hit: 100, l2miss: 100 },
    );
    assert.equal(valueOf(text, 'gqlgw_batches_total', AUTHOR), 1);
    assert.deepEqual(samplesOf(text, 'gqlgw_cache_requests_total', { tier: 'memcached' }), []);
    assert.deepEqual(samplesOf(text, 'gqlgw_cache_requests_total', { coordinate: 'Query.posts' }), []);
    assert.equal(valueOf(text, 'gqlgw_operation_subrequests_sum', { operation: 'Feed' }), 3);
  });

  describe('with memcached', () => {
    let memcached: RunningMemcached;
    before(async () => {
      memcached = await startMemcached();
    });
    after(async () => {
      await memcached.stop();
    });

    it('counts memcached misses, then memcached hits in a second gateway sharing the server', async () => {
      const directives = '@batch(path: "/users?ids={keys}", match: "id", max: 100) @cache(ttl: 300)';
      const extraToml = `[cache.memcached]\nservers = ["${memcached.address}"]\ntimeout_ms = 1000`;
      const first = await gatewayWith(directives, '', extraToml);
      await runQuery(first, feed(100));
      let text = await scrape(first);
      assert.equal(valueOf(text, 'gqlgw_cache_requests_total', { ...AUTHOR_USERS, tier: 'memcached', result: 'miss' }), 100);
      assert.equal(valueOf(text, 'gqlgw_cache_requests_total', { ...AUTHOR_USERS, tier: 'memcached', result: 'hit' }), undefined);

      // Writes are fire-and-forget: wait (bounded) until memcached holds the 100 authors.
      const items = await pollUntil(
        () => memcachedItems(memcached.port),
        (n) => n >= 100,
      );
      assert.ok(items >= 100, `memcached holds ${items} items`);

      const second = await gatewayWith(directives, '', extraToml);
      await runQuery(second, feed(100));
      assert.equal(users.count(), 0);
      text = await scrape(second);
      assert.equal(valueOf(text, 'gqlgw_cache_requests_total', { ...AUTHOR_USERS, tier: 'memcached', result: 'hit' }), 100);
      assert.equal(valueOf(text, 'gqlgw_cache_requests_total', { ...AUTHOR_USERS, tier: 'memcached', result: 'miss' }), undefined);
      assert.equal(valueOf(text, 'gqlgw_cache_requests_total', { ...AUTHOR_USERS, tier: 'l2', result: 'miss' }), 100);
      assert.deepEqual(samplesOf(text, 'gqlgw_batches_total'), []);
      assert.deepEqual(samplesOf(text, 'gqlgw_cache_tier_failures_total'), []);
    });
  });

  it('no label value is an id, a path or a URL', async () => {
    assert.ok(gateways.length >= 4);
    let checked = 0;
    for (const gateway of gateways) {
      await runQuery(gateway, '{ user(id: 42) { name } }');
      const text = await scrape(gateway);
      for (const sample of text.samples) {
        if (!sample.name.startsWith('gqlgw_') || /^gqlgw_(process|nodejs)_/.test(sample.name)) continue;
        for (const [label, value] of Object.entries(sample.labels)) {
          if (label === 'le') continue;
          checked += 1;
          // An HTTP status is a number by nature, and one of at most 500.
          if (sample.name === 'gqlgw_http_requests_total' && label === 'status') {
            assert.match(value, /^[1-5]\d\d$/, `${sample.name} ${label}="${value}"`);
            continue;
          }
          assert.doesNotMatch(value, /^\d+$|\/|http/, `${sample.name} ${label}="${value}"`);
        }
      }
    }
    assert.ok(checked > 50, `only ${checked} label values checked`);
  });
});
