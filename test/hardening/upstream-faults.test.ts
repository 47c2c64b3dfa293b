/**
 * Upstream faults: whatever a source answers, only the fields that needed the failed
 * lookup are null, with the docs/reference.md code at their path; the rest of the data is there; every
 * request sent (retries included) is counted in X-GQL-Subrequests and in the metrics, and the
 * failures in gqlgw_upstream_errors_total. Retry policy: gateway/upstream/retry-policy.ts.
 *
 * The batch cases ask for 4 posts by authors 1–4 with `@batch(max: 2)`: two chunks, [1,2] and [3,4].
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type GraphQLResult, type HttpResult, type TestGateway } from '../support/gateway.js';
import { idsOf, startFaultyUpstream, type FaultHandler, type FaultyUpstream } from '../support/faulty-upstream.js';
import { errorAt } from '../support/assert.js';
import { metricValue } from '../support/prom-text.js';

const TIMEOUT_MS = 400;
const MAX_RESPONSE_BYTES = 20_000;

const SCHEMA = `
type Query {
  posts: [Post] @fetch(source: "posts", path: "/posts")
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}")
}
type Post {
  id: ID!
  title: String
  authorId: ID @from(key: "author_id")
  author: User @fetch(source: "users", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id", max: 2)
}
type User { id: ID! name: String }
`;

const POSTS_QUERY = '{ posts { id title author { id name } } }';
const user = (id: string | number, name = `User ${id}`) => ({ id, name });
const expected = (authors: Record<number, unknown>) =>
  [1, 2, 3, 4].map((i) => ({ id: String(i), title: `T${i}`, author: i in authors ? authors[i] : { id: String(i), name: `User ${i}` } }));

/** Answers a batch request with one item per asked id. */
const allFound: FaultHandler = ({ query }) => ({ kind: 'json', body: idsOf(query).map((id) => user(id)) });

interface Run {
  readonly res: HttpResult<GraphQLResult>;
  readonly ms: number;
  /** Requests the users source received. */
  readonly sent: number;
  /** Increase of gqlgw_upstream_errors_total{source="users", code} during the run. */
  errors(code: string): number;
  /** Increase of gqlgw_subrequests_total{source="users"} during the run. */
  readonly counted: number;
}

describe('upstream faults', () => {
  let users: FaultyUpstream;
  let posts: FaultyUpstream;
  let gw: TestGateway;

  before(async () => {
    users = await startFaultyUpstream({ 'GET /users': allFound });
    posts = await startFaultyUpstream({
      'GET /posts': () => ({ kind: 'json', body: [1, 2, 3, 4].map((i) => ({ id: i, title: `T${i}`, author_id: String(i) })) }),
    });
    gw = await startTestGateway({
      sources: {
        users: { url: users.url, timeoutMs: TIMEOUT_MS, extra: `max_response_bytes = ${MAX_RESPONSE_BYTES}` },
        posts: { url: posts.url },
      },
      schemas: { 's.graphqls': SCHEMA },
    });
  });
  after(async () => {
    await gw.close();
    await users.close();
    await posts.close();
  });

  async function run(query: string, batch?: FaultHandler, single?: FaultHandler): Promise<Run> {
    users.setRoute('GET /users', batch ?? allFound);
    users.setRoute('GET /users/:id', single ?? (({ params }) => ({ kind: 'json', body: user(params.id!) })));
    users.reset();
    const beforeText = (await gw.get('/metrics')).text;
    const t0 = performance.now();
    const res = await gw.query(query);
    const ms = performance.now() - t0;
    const afterText = (await gw.get('/metrics')).text;
    const delta = (name: string, labels: Record<string, string>) =>
      metricValue(afterText, name, labels) - metricValue(beforeText, name, labels);
    const sent = users.count();
    assert.equal(
      debugCounts(res).subrequests - (query.includes('posts') ? 1 : 0),
      sent,
      'X-GQL-Subrequests counts every request sent, retries included',
    );
    return {
      res,
      ms,
      sent,
      errors: (code) => delta('gqlgw_upstream_errors_total', { source: 'users', code }),
      counted: delta('gqlgw_subrequests_total', { source: 'users' }),
    };
  }

  /** Asserts 200, the posts with the given authors replaced, exactly these error paths, and that metrics counted every request. */
  function check(r: Run, authors: Record<number, unknown>, errorPaths: Array<Array<string | number>>): void {
    assert.equal(r.res.status, 200, r.res.text);
    assert.deepEqual(r.res.body.data, { posts: expected(authors) });
    assert.deepEqual(
      (r.res.body.errors ?? []).map((e) => e.path),
      errorPaths,
      JSON.stringify(r.res.body.errors),
    );
    assert.equal(r.counted, r.sent, 'gqlgw_subrequests_total counts every request sent');
  }

  test('fewer items than keys: the missing keys are null, without an error (docs/reference.md)', async () => {
    const r = await run(POSTS_QUERY, ({ query }) => ({ kind: 'json', body: [user(idsOf(query)[0]!)] }));
    check(r, { 2: null, 4: null }, []);
    assert.equal(r.sent, 2);
  });

  test('duplicate items: the first item of a key wins on a single field', async () => {
    const r = await run(POSTS_QUERY, ({ query }) => ({
      kind: 'json',
      body: idsOf(query).flatMap((id) => [user(id), user(id, 'impostor')]),
    }));
    check(r, {}, []);
    assert.equal(r.sent, 2);
  });

  test('extra items for keys not asked are dropped', async () => {
    const r = await run(POSTS_QUERY, ({ query }) => ({ kind: 'json', body: [user(99), ...idsOf(query).map((id) => user(id)), user(98)] }));
    check(r, {}, []);
  });

  test('reordered items and numeric ids for string keys still match', async () => {
    const r = await run(POSTS_QUERY, ({ query }) => ({
      kind: 'json',
      body: idsOf(query)
        .reverse()
        .map((id) => user(Number(id))),
    }));
    check(r, {}, []);
    assert.equal(r.sent, 2);
  });

  test("a body that is not an array: the considered answer, an error of its chunk's keys without a split (UPSTREAM_BAD_RESPONSE)", async () => {
    const r = await run(POSTS_QUERY, ({ query }) =>
      idsOf(query).includes('3') ? { kind: 'json', body: { users: [] } } : { kind: 'json', body: idsOf(query).map((id) => user(id)) },
    );
    check(r, { 3: null, 4: null }, [
      ['posts', 2, 'author'],
      ['posts', 3, 'author'],
    ]);
    const error = errorAt(r.res.body, ['posts', 2, 'author']);
    assert.equal(error.extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    assert.equal(error.extensions?.source, 'users');
    assert.match(error.message, /add select: "users" to the @batch/);
    assert.equal(r.sent, 2, 'the 2 chunks, the failed one not split');
    assert.equal(r.errors('UPSTREAM_BAD_RESPONSE'), 1);
  });

  test('HTML labelled JSON is UPSTREAM_BAD_RESPONSE', async () => {
    const r = await run(POSTS_QUERY, ({ query }) =>
      idsOf(query).includes('1')
        ? { kind: 'raw', contentType: 'application/json', body: '<html><body>502 Bad Gateway</body></html>' }
        : allFound({ query } as never),
    );
    check(r, { 1: null }, [['posts', 0, 'author']]);
    assert.equal(errorAt(r.res.body, ['posts', 0, 'author']).extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    assert.equal(r.sent, 4);
  });

  test('a 5xx: UPSTREAM_HTTP_ERROR with the status, on the failing key only after the split', async () => {
    const r = await run(POSTS_QUERY, ({ query }) =>
      idsOf(query).includes('4') ? { kind: 'json', status: 503, body: { error: 'x' } } : allFound({ query } as never),
    );
    check(r, { 4: null }, [['posts', 3, 'author']]);
    assert.deepEqual(errorAt(r.res.body, ['posts', 3, 'author']).extensions, {
      code: 'UPSTREAM_HTTP_ERROR',
      source: 'users',
      status: 503,
      detail: 'GET /users?ids=4 → 503: {"error":"x"}',
    });
    assert.equal(r.sent, 4);
    assert.equal(r.errors('UPSTREAM_HTTP_ERROR'), 2);
  });

  test('one failing chunk among several, retried as halves that succeed: all data, the retry counted', async () => {
    const r = await run(POSTS_QUERY, ({ query }) => {
      const ids = idsOf(query);
      return ids.length > 1 && ids.includes('3') ? { kind: 'json', status: 500, body: {} } : allFound({ query } as never);
    });
    check(r, {}, []);
    assert.equal(r.sent, 4);
    assert.equal(r.errors('UPSTREAM_HTTP_ERROR'), 1);
  });

  test('slow headers: UPSTREAM_TIMEOUT after timeout_ms for that chunk only, not retried', async () => {
    const r = await run(POSTS_QUERY, ({ query }) =>
      idsOf(query).includes('3') ? { kind: 'json', body: [], delayMs: 3000 } : allFound({ query } as never),
    );
    check(r, { 3: null, 4: null }, [
      ['posts', 2, 'author'],
      ['posts', 3, 'author'],
    ]);
    assert.equal(errorAt(r.res.body, ['posts', 2, 'author']).extensions?.code, 'UPSTREAM_TIMEOUT');
    assert.equal(r.sent, 2);
    // The source holds its answer 3000 ms: answering well before that is the deadline's doing.
    assert.ok(r.ms < TIMEOUT_MS + 2200, `answered in ${r.ms.toFixed(0)} ms`);
    assert.equal(r.errors('UPSTREAM_TIMEOUT'), 1);
  });

  test('a body dripped slowly: the total deadline cuts it (UPSTREAM_TIMEOUT) and the connection is dropped', async () => {
    const drip: FaultHandler = ({ query }) =>
      idsOf(query).includes('3')
        ? { kind: 'drip', chunks: ['[', '{"id":"3",', '"name":"x"}', ',{"id":"4"}', ']'], intervalMs: 150 }
        : allFound({ query } as never);
    const r = await run(POSTS_QUERY, drip);
    check(r, { 3: null, 4: null }, [
      ['posts', 2, 'author'],
      ['posts', 3, 'author'],
    ]);
    assert.equal(errorAt(r.res.body, ['posts', 3, 'author']).extensions?.code, 'UPSTREAM_TIMEOUT');
    assert.equal(users.abandoned, 1, 'the gateway closed the dripping connection');
  });

  test('an oversized body, declared or streamed: UPSTREAM_BAD_RESPONSE', async () => {
    const r = await run(POSTS_QUERY, ({ query }) =>
      idsOf(query).includes('2') ? { kind: 'oversized', bytes: 5 * MAX_RESPONSE_BYTES, declareLength: true } : allFound({ query } as never),
    );
    check(r, { 2: null }, [['posts', 1, 'author']]);
    assert.equal(errorAt(r.res.body, ['posts', 1, 'author']).extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    assert.equal(r.sent, 4, 'split once; only the half with key 2 is still too large');
    assert.equal(r.errors('UPSTREAM_BAD_RESPONSE'), 2);

    const streamed = await run('{ a: user(id: 1) { name } big: user(id: "big") { name } }', undefined, ({ params }) =>
      params.id === 'big'
        ? { kind: 'oversized', bytes: 5 * MAX_RESPONSE_BYTES, declareLength: false }
        : { kind: 'json', body: user(params.id!) },
    );
    assert.deepEqual(streamed.res.body.data, { a: { name: 'User 1' }, big: null });
    assert.equal(errorAt(streamed.res.body, ['big']).extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    assert.equal(streamed.sent, 2);
  });

  test('a reset connection: re-sent once; a second reset is UPSTREAM_UNREACHABLE', async () => {
    const r = await run(POSTS_QUERY, ({ query }) => (idsOf(query).includes('3') ? { kind: 'reset' } : allFound({ query } as never)));
    check(r, { 3: null, 4: null }, [
      ['posts', 2, 'author'],
      ['posts', 3, 'author'],
    ]);
    assert.equal(errorAt(r.res.body, ['posts', 2, 'author']).extensions?.code, 'UPSTREAM_UNREACHABLE');
    assert.equal(r.sent, 3, '2 chunks + 1 re-send');
    assert.equal(r.errors('UPSTREAM_UNREACHABLE'), 2);
  });

  test('a reset once: the idempotent GET is re-sent and succeeds; the reset is counted', async () => {
    let resets = 0;
    const r = await run('{ user(id: 5) { name } }', undefined, ({ params }) =>
      resets++ === 0 ? { kind: 'reset' } : { kind: 'json', body: user(params.id!) },
    );
    assert.equal(r.res.status, 200);
    assert.deepEqual(r.res.body, { data: { user: { name: 'User 5' } }, extensions: r.res.body.extensions });
    assert.equal(r.sent, 2);
    assert.equal(r.counted, 2);
    assert.equal(r.errors('UPSTREAM_UNREACHABLE'), 1);
  });

  test('an answer that is not HTTP: UPSTREAM_BAD_RESPONSE', async () => {
    const r = await run('{ a: user(id: 1) { name } b: user(id: "x") { name } }', undefined, ({ params }) =>
      params.id === 'x' ? { kind: 'garbage' } : { kind: 'json', body: user(params.id!) },
    );
    assert.deepEqual(r.res.body.data, { a: { name: 'User 1' }, b: null });
    assert.equal(errorAt(r.res.body, ['b']).extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    assert.equal(r.sent, 2);
  });

  test('a single fetch answering 5xx is not retried', async () => {
    const r = await run('{ user(id: 9) { name } }', undefined, () => ({ kind: 'json', status: 502, body: {} }));
    assert.deepEqual(r.res.body.data, { user: null });
    assert.equal(errorAt(r.res.body, ['user']).extensions?.status, 502);
    assert.equal(r.sent, 1);
  });
});
