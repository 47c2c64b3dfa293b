/**
 * @batch shared beyond one field of one request (docs/caching.md,
 * the *new* parts): a root field's aliases and list argument (`@batch` beside an `{args.A}` fetch),
 * several fields with the same batch in one round, and the keys of concurrent requests in the same
 * chunks (`batch_across_requests`, `batch_window_ms`), per forwarded-header partition, with callers
 * that leave. Every upstream counts what it receives; every answer is checked against its key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { splitIds, startUpstream, type CountingUpstream, type RecordedRequest } from '../support/upstream.js';
import { parsePromText, sumOf } from '../support/prom-text.js';
import { Gate } from '../support/gate.js';
import { pollUntil, until } from '../support/wait.js';

interface SchemaOptions {
  readonly authorMax?: number;
  readonly editorMax?: number;
  readonly userMax?: number;
  /** Directives after Post.author's @batch, e.g. `@cache(ttl: 300)`. */
  readonly authorExtra?: string;
}

const schema = (o: SchemaOptions = {}): string => `
type Query {
  user(id: ID!): User
    @fetch(source: "users", path: "/users/{args.id}")
    @batch(path: "/users?ids={keys}", match: "id", max: ${o.userMax ?? 100}) @cache(ttl: 300)
  users(ids: [ID!]!): [User]
    @fetch(source: "users", path: "/users/{args.ids}")
    @batch(path: "/users?ids={keys}", match: "id")
  usersOf(id: ID!): [User]
    @fetch(source: "users", path: "/users/{args.id}/all")
    @batch(path: "/users?ids={keys}", match: "id")
  post(id: ID!): Post @fetch(source: "posts", path: "/posts/{args.id}")
  posts: [Post] @fetch(source: "posts", path: "/posts")
}
type Post {
  id: ID!
  authorId: ID @from(key: "author_id")
  editorId: ID @from(key: "editor_id")
  author: User
    @fetch(source: "users", path: "/users/{parent.authorId}")
    @batch(path: "/users?ids={keys}", match: "id", max: ${o.authorMax ?? 100}) ${o.authorExtra ?? ''}
  editor: User
    @fetch(source: "users", path: "/users/{parent.editorId}")
    @batch(path: "/users?ids={keys}", match: "id", max: ${o.editorMax ?? 100})
}
type User { id: ID! name: String }
`;

/** Post i is written by user 100 + i and edited by user 200 + (i mod 4). */
const authorOf = (i: number): number => 100 + i;
const editorOf = (i: number): number => 200 + (i % 4);
const POSTS = Array.from({ length: 40 }, (_, k) => ({ id: k + 1, author_id: authorOf(k + 1), editor_id: editorOf(k + 1) }));

/** The counting upstreams of every scene: users answer `?ids=` batches naming the caller's token. */
interface Upstreams {
  readonly users: CountingUpstream;
  readonly posts: CountingUpstream;
  readonly postsGate: Gate;
  readonly usersGate: Gate;
  /** How users answers batches: as asked, 500 to a batch of several keys, or 503 to every one. */
  mode: 'ok' | 'several-500' | 'all-503';
}

async function startUpstreams(): Promise<Upstreams> {
  const postsGate = new Gate();
  const usersGate = new Gate();
  const up = { mode: 'ok' } as { mode: Upstreams['mode'] };
  const users = await startUpstream({
    'GET /users': async ({ query, headers }) => {
      await usersGate.passed();
      const asked = splitIds(query.get('ids'));
      if (up.mode === 'all-503' || (up.mode === 'several-500' && asked.length > 1))
        return { status: up.mode === 'all-503' ? 503 : 500, json: {} };
      const who = headers.authorization ? ` for ${headers.authorization}` : '';
      return { json: splitIds(query.get('ids')).flatMap((id) => (id === '404' ? [] : [{ id, name: `User ${id}${who}` }])) };
    },
  });
  const posts = await startUpstream({
    'GET /posts': () => ({ json: POSTS.slice(0, 10) }),
    'GET /posts/:id': async ({ params }) => {
      await postsGate.passed();
      return { json: POSTS[Number(params.id) - 1] ?? null };
    },
  });
  return Object.assign(up, { users, posts, postsGate, usersGate });
}

function startScene(up: Upstreams, options: { schema?: SchemaOptions; users?: string; forward?: boolean } = {}): Promise<TestGateway> {
  return startTestGateway({
    sources: {
      users: { url: up.users.url, extra: options.users, forwardHeaders: options.forward ? ['authorization'] : undefined },
      posts: { url: up.posts.url },
    },
    schemas: { 's.graphqls': schema(options.schema) },
  });
}

const batchCalls = (users: CountingUpstream): RecordedRequest[] => users.requestsFor('GET /users');
const POST_QUERY = 'query P($id: ID!) { post(id: $id) { id author { name } } }';

/**
 * Sends `n` post queries at once and lets the posts source answer all of them together, so that
 * their second rounds (Post.author) are ready in the same event-loop turn.
 */
async function concurrentPosts(gw: TestGateway, up: Upstreams, n: number, headersOf: (i: number) => Record<string, string> = () => ({})) {
  up.postsGate.close();
  const asked = Array.from({ length: n }, (_, k) => gw.query(POST_QUERY, { id: String(k + 1) }, headersOf(k + 1)));
  await until(() => up.posts.count('GET /posts/:id') === n, `${n} post lookups reached the posts source`, 10_000);
  up.postsGate.open();
  return Promise.all(asked);
}

describe('@batch beside an {args.A} fetch, and several fields in one batch', () => {
  let up: Upstreams;
  let gw: TestGateway;

  before(async () => {
    up = await startUpstreams();
    gw = await startScene(up, { schema: { editorMax: 3 } });
  });
  after(async () => {
    await gw?.close();
    await up?.users.close();
    await up?.posts.close();
  });

  const oneCall = [
    {
      name: 'aliases of a root field: one call over their distinct keys',
      query: '{ u1: user(id: 1) { name } u2: user(id: 2) { name } again: user(id: 1) { id name } }',
      data: { u1: { name: 'User 1' }, u2: { name: 'User 2' }, again: { id: '1', name: 'User 1' } },
      url: '/users?ids=1,2',
    },
    {
      name: 'a list argument follows the list-parent rule, and shares the call with another field of the same batch',
      query: '{ users(ids: [13, 11, 13, 404]) { name } u: user(id: 12) { name } }',
      data: { users: [{ name: 'User 13' }, { name: 'User 11' }, { name: 'User 13' }, null], u: { name: 'User 12' } },
      url: '/users?ids=13,11,404,12',
    },
    {
      name: 'a one-to-many field and a single field asking one key: one call, each its own value of the items',
      query: '{ all: usersOf(id: 7) { name } one: user(id: 7) { name } none: usersOf(id: 404) { name } }',
      data: { all: [{ name: 'User 7' }], one: { name: 'User 7' }, none: [] },
      url: '/users?ids=7,404',
    },
  ];
  for (const row of oneCall) {
    test(row.name, async () => {
      up.users.reset();
      const r = await gw.query(row.query);
      assert.deepEqual([r.body.data, r.body.errors], [row.data, undefined]);
      assert.deepEqual(
        up.users.requests.map((q) => q.url),
        [row.url],
      );
      assert.deepEqual(debugCounts(r), { rounds: 1, subrequests: 1, batches: 1 });
    });
  }

  test('author + editor: one call per chunk of their distinct keys, under the smaller max; counted under the first coordinate', async () => {
    up.users.reset();
    const metricsBefore = parsePromText((await gw.get('/metrics')).text);
    const r = await gw.query('{ posts { id author { name } editor { name } } }');
    assert.equal(r.body.errors, undefined);
    const list = r.body.data?.posts as Array<{ id: string; author: { name: string }; editor: { name: string } }>;
    assert.equal(list.length, 10);
    for (const p of list) {
      assert.deepEqual(p.author, { name: `User ${authorOf(Number(p.id))}` });
      assert.deepEqual(p.editor, { name: `User ${editorOf(Number(p.id))}` });
    }
    const calls = batchCalls(up.users).map((q) => splitIds(q.query.get('ids')));
    const distinct = new Set([
      ...POSTS.slice(0, 10).map((p) => String(p.author_id)),
      ...POSTS.slice(0, 10).map((p) => String(p.editor_id)),
    ]);
    assert.equal(distinct.size, 14);
    assert.equal(calls.length, Math.ceil(distinct.size / 3), 'one call per chunk of the shared keys');
    for (const keys of calls) assert.ok(keys.length <= 3, `a chunk of ${keys.length} keys under editor's max 3`);
    assert.deepEqual(calls.flat().sort(), [...distinct].sort(), 'every key once, over both fields');
    assert.deepEqual(debugCounts(r), { rounds: 2, subrequests: 1 + calls.length, batches: calls.length });
    const metricsAfter = parsePromText((await gw.get('/metrics')).text);
    const batches = (coordinate: string) =>
      sumOf(metricsAfter, 'gqlgw_batches_total', { coordinate }) - sumOf(metricsBefore, 'gqlgw_batches_total', { coordinate });
    assert.equal(batches('Post.author'), calls.length, 'each call counted once, under the coordinate first in the document');
    assert.equal(batches('Post.editor'), 0);
  });
});

describe('batching across requests', { timeout: 60_000 }, () => {
  let up: Upstreams;
  const gateways: TestGateway[] = [];
  const scene = async (options: Parameters<typeof startScene>[1]): Promise<TestGateway> => {
    const gw = await startScene(up, options);
    gateways.push(gw);
    up.users.reset();
    up.posts.reset();
    return gw;
  };

  before(async () => {
    up = await startUpstreams();
  });
  after(async () => {
    for (const gw of gateways) await gw.close();
    await up?.users.close();
    await up?.posts.close();
  });

  test('20 concurrent requests with different keys: far fewer calls than requests, every answer right', async () => {
    const gw = await scene({});
    const results = await concurrentPosts(gw, up, 20);
    results.forEach((r, k) => {
      assert.equal(r.body.errors, undefined);
      assert.deepEqual(r.body.data, { post: { id: String(k + 1), author: { name: `User ${authorOf(k + 1)}` } } });
      assert.deepEqual(debugCounts(r), { rounds: 2, subrequests: 2, batches: 1 }, 'each request counts the one call that carried its key');
    });
    const calls = batchCalls(up.users);
    assert.ok(calls.length <= 10, `${calls.length} calls for 20 requests`);
    assert.deepEqual(
      calls.flatMap((q) => splitIds(q.query.get('ids'))).sort(),
      Array.from({ length: 20 }, (_, k) => String(authorOf(k + 1))).sort(),
    );
    const metrics = parsePromText((await gw.get('/metrics')).text);
    const at = { coordinate: 'Post.author' };
    assert.equal(sumOf(metrics, 'gqlgw_batches_total', at), calls.length, 'each call counted once');
    assert.equal(sumOf(metrics, 'gqlgw_batch_requests_count', at), calls.length);
    assert.equal(sumOf(metrics, 'gqlgw_batch_requests_sum', at), 20, 'the calls carried the keys of 20 requests');
  });

  test('max holds across requests', async () => {
    const gw = await scene({ schema: { authorMax: 3 } });
    const results = await concurrentPosts(gw, up, 20);
    results.forEach((r, k) => assert.deepEqual(r.body.data, { post: { id: String(k + 1), author: { name: `User ${authorOf(k + 1)}` } } }));
    const calls = batchCalls(up.users).map((q) => splitIds(q.query.get('ids')));
    for (const keys of calls) assert.ok(keys.length <= 3, `a call of ${keys.length} keys`);
    assert.ok(calls.length >= 7 && calls.length < 20, `${calls.length} calls`);
    assert.equal(calls.flat().length, 20, 'every key asked once');
  });

  test('two forwarded tokens never share a chunk: the source sees each token with only its own keys', async () => {
    const gw = await scene({ forward: true });
    const token = (i: number): string => (i % 2 === 0 ? 'Bearer even' : 'Bearer odd');
    const results = await concurrentPosts(gw, up, 20, (i) => ({ authorization: token(i) }));
    results.forEach((r, k) =>
      assert.deepEqual(r.body.data, { post: { id: String(k + 1), author: { name: `User ${authorOf(k + 1)} for ${token(k + 1)}` } } }),
    );
    const calls = batchCalls(up.users);
    assert.ok(calls.length >= 2 && calls.length < 20, `${calls.length} calls`);
    for (const call of calls) {
      const keys = splitIds(call.query.get('ids')).map((id) => Number(id) - 100);
      for (const i of keys) assert.equal(call.headers.authorization, token(i), `key of post ${i} sent with its own token only`);
    }
  });

  test('a caller leaving fails none of the others, and the chunk still fills the cache', async () => {
    const gw = await scene({ schema: { authorExtra: '@cache(ttl: 300)' } });
    up.postsGate.close();
    up.usersGate.close();
    const leaving = new AbortController();
    const left = fetch(gw.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: POST_QUERY, variables: { id: '1' } }),
      signal: leaving.signal,
    }).then(
      () => 'answered',
      () => 'aborted',
    );
    const staying = [2, 3].map((i) => gw.query(POST_QUERY, { id: String(i) }));
    await until(() => up.posts.count('GET /posts/:id') === 3, 'three post lookups reached the posts source');
    up.postsGate.open();
    const carries = (id: number) => batchCalls(up.users).some((q) => splitIds(q.query.get('ids')).includes(String(id)));
    await until(() => carries(authorOf(1)), "the leaving caller's key reached users");
    leaving.abort();
    assert.equal(await left, 'aborted');
    up.usersGate.open();
    for (const [k, r] of (await Promise.all(staying)).entries()) {
      assert.deepEqual(
        [r.body.data, r.body.errors],
        [{ post: { id: String(k + 2), author: { name: `User ${authorOf(k + 2)}` } } }, undefined],
      );
    }
    const calls = batchCalls(up.users);
    const sent = calls.flatMap((q) => splitIds(q.query.get('ids')));
    assert.ok(sent.includes(String(authorOf(1))), 'the leaving caller joined a chunk');
    // The leaving caller's key was still settled into the cache: asking it again costs no users call.
    const again = await gw.query(POST_QUERY, { id: '1' });
    assert.deepEqual(again.body.data, { post: { id: '1', author: { name: `User ${authorOf(1)}` } } });
    assert.equal(batchCalls(up.users).length, calls.length, 'answered from the cache the shared chunk filled');
  });

  test("a failed shared chunk is split for every sharer, and fails every sharer's keys with the usual code", async () => {
    const gw = await scene({});
    up.mode = 'several-500';
    try {
      const healed = await concurrentPosts(gw, up, 2);
      healed.forEach((r, k) => {
        assert.deepEqual(
          [r.body.data, r.body.errors],
          [{ post: { id: String(k + 1), author: { name: `User ${authorOf(k + 1)}` } } }, undefined],
        );
        assert.deepEqual(debugCounts(r), { rounds: 2, subrequests: 3, batches: 2 }, 'the shared chunk and the half with its key');
      });
      assert.deepEqual(
        batchCalls(up.users).map((q) => splitIds(q.query.get('ids')).length),
        [2, 1, 1],
      );
      up.users.reset();
      up.posts.reset();
      up.mode = 'all-503';
      const failed = await concurrentPosts(gw, up, 2);
      for (const r of failed) {
        assert.equal((r.body.data?.post as { author: unknown }).author, null);
        assert.deepEqual(
          r.body.errors?.map((e) => [e.extensions?.code, e.extensions?.status, e.path]),
          [['UPSTREAM_HTTP_ERROR', 503, ['post', 'author']]],
        );
      }
      assert.equal(batchCalls(up.users).length, 3, 'one shared chunk, split once');
    } finally {
      up.mode = 'ok';
    }
  });

  test('batch_across_requests = false: one call per request', async () => {
    const gw = await scene({ users: 'batch_across_requests = false' });
    const results = await concurrentPosts(gw, up, 20);
    results.forEach((r, k) => assert.deepEqual(r.body.data, { post: { id: String(k + 1), author: { name: `User ${authorOf(k + 1)}` } } }));
    assert.equal(batchCalls(up.users).length, 20);
  });

  test('batch_window_ms widens sharing to requests of later turns', async () => {
    /** Sends five `user(id:)` queries one after another, each once the one before has placed its key. */
    const oneAfterAnother = async (gw: TestGateway, first: number) => {
      const misses = async () =>
        sumOf(parsePromText((await gw.get('/metrics')).text), 'gqlgw_cache_requests_total', { tier: 'l1', result: 'miss' });
      const asked = [];
      for (let k = 0; k < 5; k++) {
        asked.push(gw.query('query U($id: ID!) { user(id: $id) { name } }', { id: String(first + k) }));
        const seen = await pollUntil(misses, (n) => n >= k + 1, 5000, 5);
        assert.equal(seen, k + 1, `query ${k + 1} placed its key`);
      }
      const results = await Promise.all(asked);
      results.forEach((r, k) => assert.deepEqual(r.body.data, { user: { name: `User ${first + k}` } }));
    };
    const plain = await scene({ schema: { userMax: 5 } });
    await oneAfterAnother(plain, 300);
    assert.equal(batchCalls(up.users).length, 5, 'without a window each turn sends its own chunk');
    const windowed = await scene({ schema: { userMax: 5 }, users: 'batch_window_ms = 10000' });
    await oneAfterAnother(windowed, 500);
    assert.deepEqual(
      batchCalls(up.users).map((q) => q.url),
      ['/users?ids=500,501,502,503,504'],
      'one chunk, sent as soon as it was full',
    );
  });
});
