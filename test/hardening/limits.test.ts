/**
 * Limits: depth, aliases, tokens and body size are enforced before any subrequest, with
 * safe defaults; hostile documents get a 400-class answer quickly; the subrequest limit stops an
 * operation as its plan runs, before the round that would go over it sends anything.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type GraphQLResult, type TestGateway } from '../support/gateway.js';
import { startUpstream, splitIds, type CountingUpstream } from '../support/upstream.js';
import { requestError } from '../support/assert.js';

const SCHEMA = `
type Query {
  posts: [Post] @fetch(source: "posts", path: "/posts")
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}")
}
type Post {
  id: ID!
  title: String
  authorId: ID @from(key: "author_id")
  author: User @fetch(source: "users", path: "/users/{parent.authorId}")
}
type User { id: ID! name: String next: User }
`;

/** A query whose deepest path has exactly `depth` fields: user → next … → id. */
function queryOfDepth(depth: number): string {
  let inner = 'id';
  for (let i = 0; i < depth - 2; i++) inner = `next { ${inner} }`;
  return `{ user(id: 1) { ${inner} } }`;
}

/** The same depth reached through a chain of fragments, with brackets never nested more than 3 deep. */
function fragmentChainOfDepth(depth: number): string {
  const n = depth - 2;
  const parts = [`{ user(id: 1) { ...F0 } }`];
  for (let i = 0; i < n; i++) parts.push(`fragment F${i} on User { next { ...F${i + 1} } }`);
  parts.push(`fragment F${n} on User { id }`);
  return parts.join('\n');
}

function aliases(count: number): string {
  return `{ ${Array.from({ length: count }, (_, i) => `a${i}: user(id: 1) { id }`).join(' ')} }`;
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await work;
  return { value, ms: performance.now() - t0 };
}

/**
 * A refused hostile document is answered in 5–100 ms; parsing and validating it instead (the
 * regression these tests guard against) takes minutes: graphql-js checks overlapping fields pairwise.
 * The bound only tells those apart, with room for a loaded 2-core machine.
 */
const REFUSED_WITHIN_MS = 10_000;

describe('limits with their defaults', () => {
  let users: CountingUpstream;
  let posts: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    users = await startUpstream({ 'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: `User ${params.id}`, next: null } }) });
    posts = await startUpstream({ 'GET /posts': () => ({ json: [] }) });
    gw = await startTestGateway({ sources: { users: { url: users.url }, posts: { url: posts.url } }, schemas: { 's.graphqls': SCHEMA } });
  });
  after(async () => {
    await gw.close();
    await users.close();
    await posts.close();
  });

  test('a 3,000-level-deep query is a 400 DEPTH_LIMIT, fast, with no subrequest', async () => {
    const deep = `{ user(id: 1) ${'{ next '.repeat(3000)}${'}'.repeat(3000)} }`;
    const { value: res, ms } = await timed(gw.query(deep));
    assert.equal(res.status, 400);
    const error = requestError(res.body);
    assert.equal(error.extensions?.code, 'DEPTH_LIMIT');
    assert.match(error.message, /limits\.max_depth/);
    assert.ok(ms < REFUSED_WITHIN_MS, `answered in ${ms.toFixed(0)} ms`);
    assert.equal(users.count(), 0);
  });

  test('max_depth 32 by default: 32 fields deep runs, 33 is refused, also through fragments', async () => {
    const ok = await gw.query(queryOfDepth(32));
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body.data, { user: { next: null } });
    assert.equal(users.count(), 1);

    const tooDeep = await gw.query(queryOfDepth(33));
    assert.equal(tooDeep.status, 400);
    const error = requestError(tooDeep.body);
    assert.equal(error.extensions?.code, 'DEPTH_LIMIT');
    assert.equal(error.extensions?.limit, 32);
    assert.match(error.message, /33 levels deep; at most 32/);

    const viaFragments = await gw.query(fragmentChainOfDepth(33));
    assert.equal(viaFragments.status, 400);
    assert.equal(requestError(viaFragments.body).extensions?.code, 'DEPTH_LIMIT');
    const fragmentsOk = await gw.query(fragmentChainOfDepth(32));
    assert.equal(fragmentsOk.status, 200, fragmentsOk.text);
    assert.equal(users.count(), 2, 'only the two allowed queries reached the source');
  });

  test('a 20,000-alias query is refused fast (it is also over max_tokens by default)', async () => {
    users.reset();
    const { value: res, ms } = await timed(gw.query(aliases(20_000)));
    assert.equal(res.status, 400);
    assert.equal(requestError(res.body).extensions?.code, 'TOKEN_LIMIT');
    assert.ok(ms < REFUSED_WITHIN_MS, `answered in ${ms.toFixed(0)} ms`);
    assert.equal(users.count(), 0);
  });

  test('max_aliases 200 by default', async () => {
    users.reset();
    const ok = await gw.query(aliases(200));
    assert.equal(ok.status, 200);
    assert.equal(Object.keys(ok.body.data ?? {}).length, 200);
    assert.equal(users.count(), 1, 'identical aliased lookups are one subrequest');
    const over = await gw.query(aliases(201));
    assert.equal(over.status, 400);
    const error = requestError(over.body);
    assert.equal(error.extensions?.code, 'ALIAS_LIMIT');
    assert.match(error.message, /201 aliases; at most 200/);
    assert.equal(users.count(), 1);
  });

  test('a 1 MB query of tokens is a 400 TOKEN_LIMIT, fast', async () => {
    users.reset();
    const big = `{ user(id: 1) { ${'id '.repeat(333_000)}} }`;
    assert.ok(big.length > 990_000 && big.length < 1024 * 1024 - 100, 'about 1 MB, under max_body_bytes');
    const { value: res, ms } = await timed(gw.query(big));
    assert.equal(res.status, 400);
    const error = requestError(res.body);
    assert.equal(error.extensions?.code, 'TOKEN_LIMIT');
    assert.match(error.message, /more than 20000 tokens/);
    assert.ok(ms < REFUSED_WITHIN_MS, `answered in ${ms.toFixed(0)} ms`);
    assert.equal(users.count(), 0);
  });

  test('a body over max_body_bytes (1 MiB) is a 413, with or without Content-Length', async () => {
    const body = JSON.stringify({ query: `{ user(id: 1) { id } }`, pad: 'x'.repeat(1024 * 1024) });
    const declared = await gw.post(body);
    assert.equal(declared.status, 413);
    assert.equal(requestError(declared.body).extensions?.code, 'REQUEST_ENTITY_TOO_LARGE');
    assert.equal(declared.headers.get('connection'), 'close');

    const bytes = new TextEncoder().encode(body);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(sent, sent + 64 * 1024));
        sent += 64 * 1024;
      },
    });
    const chunked = await fetch(gw.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit & { duplex: 'half' }).catch((err: unknown) => err as Error);
    if (chunked instanceof Error) {
      // The gateway may close the connection before the client finished sending: also a refusal.
      assert.ok(sent < bytes.length, `the whole body was sent and then the request failed: ${chunked.message}`);
    } else {
      assert.equal(chunked.status, 413);
      await chunked.text();
    }
    assert.equal(users.count(), 0);
  });
});

describe('limits from gateway.toml', () => {
  let users: CountingUpstream;
  let posts: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    users = await startUpstream({
      'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: `User ${params.id}`, next: null } }),
      'GET /users': ({ query }) => ({ json: splitIds(query.get('ids')).map((id) => ({ id, name: `User ${id}` })) }),
    });
    posts = await startUpstream({
      'GET /posts': () => ({ json: Array.from({ length: 10 }, (_, i) => ({ id: i + 1, title: `T${i + 1}`, author_id: String(i + 1) })) }),
    });
    gw = await startTestGateway({
      sources: { users: { url: users.url }, posts: { url: posts.url } },
      schemas: { 's.graphqls': SCHEMA },
      extraToml: '[limits]\nmax_depth = 3\nmax_tokens = 300000\nmax_subrequests = 5',
    });
  });
  after(async () => {
    await gw.close();
    await users.close();
    await posts.close();
  });

  test('max_depth = 3', async () => {
    assert.equal((await gw.query(queryOfDepth(3))).status, 200);
    const res = await gw.query(queryOfDepth(4));
    assert.equal(res.status, 400);
    assert.equal(requestError(res.body).extensions?.limit, 3);
  });

  test('20,000 aliases within max_tokens are an ALIAS_LIMIT, refused before validation, fast', async () => {
    users.reset();
    const { value: res, ms } = await timed(gw.query(aliases(20_000)));
    assert.equal(res.status, 400);
    const error = requestError(res.body);
    assert.equal(error.extensions?.code, 'ALIAS_LIMIT');
    assert.match(error.message, /20000 aliases; at most 200/);
    assert.ok(ms < REFUSED_WITHIN_MS, `answered in ${ms.toFixed(0)} ms`);
    assert.equal(users.count(), 0);
  });

  test('max_subrequests = 5: the round that would go over it is not sent; 400 SUBREQUEST_LIMIT', async () => {
    users.reset();
    posts.reset();
    const res = await gw.query('{ posts { id author { name } } }');
    assert.equal(res.status, 400);
    const error = requestError(res.body as GraphQLResult);
    assert.equal(error.extensions?.code, 'SUBREQUEST_LIMIT');
    assert.equal(error.extensions?.limit, 5);
    assert.match(error.message, /limits\.max_subrequests/);
    assert.equal(posts.count(), 1, 'round 1 ran');
    assert.equal(users.count(), 0, 'round 2 (10 author fetches) was never sent');

    const within = await gw.query(
      '{ posts { id } a: user(id: 1) { id } b: user(id: 2) { id } c: user(id: 3) { id } d: user(id: 4) { id } }',
    );
    assert.equal(within.status, 200, within.text);
    assert.equal(users.count(), 4);
  });
});
