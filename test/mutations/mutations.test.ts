/**
 * Mutations end to end (docs/mutations.md, "@invalidate"): a real gateway over HTTP against a
 * test upstream that records the order, method, body and headers of each request. Serial order
 * (proven with a slow first mutation), nested rounds before the next field, no dedupe, no retry on
 * reset, 204/empty answers, error masking, POST-for-search, 405 over GET, and invalidation proven
 * both ways through L2.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import type { CountingUpstream } from '../support/upstream.js';
import { startFaultyUpstream, type FaultyUpstream } from '../support/faulty-upstream.js';
import { BLOG_SCHEMA, startBlog, type PostRow } from './blog-fixture.js';

describe('mutations: order, requests and answers', () => {
  const events: string[] = [];
  let blog: CountingUpstream;
  let posts: Map<number, PostRow>;
  let gateway: TestGateway;

  before(async () => {
    ({ upstream: blog, posts } = await startBlog(events));
    gateway = await startTestGateway({ sources: { blog: { url: blog.url } }, schemas: { 's.graphqls': BLOG_SCHEMA } });
  });
  after(async () => {
    await gateway.close();
    await blog.close();
  });

  test('root fields run one after another in document order: the slow first one ends before the second starts', async () => {
    events.length = 0;
    blog.reset();
    const res = await gateway.query(`mutation {
      a: createPost(input: { title: "slow one", authorId: 3 }) { title author { name } }
      b: createPost(input: { title: "fast two", authorId: 4 }) { title author { name } }
    }`);
    assert.deepEqual(res.body.errors, undefined);
    assert.deepEqual(res.body.data, {
      a: { title: 'slow one', author: { name: 'user 3' } },
      b: { title: 'fast two', author: { name: 'user 4' } },
    });
    assert.deepEqual(events, ['start slow one', 'end slow one', 'start fast two', 'end fast two']);
    // The selections under a's result ran (GET /users/3) before b's request was sent.
    assert.deepEqual(
      blog.requests.map((r) => `${r.method} ${r.path}`),
      ['POST /posts', 'GET /users/3', 'POST /posts', 'GET /users/4'],
    );
    const first = blog.requests[0]!;
    assert.equal(first.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(first.body), { post: { title: 'slow one', authorId: '3' }, by: 'user 3' });
    assert.deepEqual(debugCounts(res), { rounds: 4, subrequests: 4, batches: 0 });
  });

  test('two identical mutation fields send twice (never deduped); nested reads are still deduped per field', async () => {
    blog.reset();
    posts.set(50, { id: 50, title: 'Fifty', author_id: 7 });
    const res = await gateway.query(
      'mutation { a: renamePost(id: 50, title: "same") { title } b: renamePost(id: 50, title: "same") { title } }',
    );
    assert.deepEqual(res.body.data, { a: { title: 'same' }, b: { title: 'same' } });
    assert.deepEqual(
      blog.requests.map((r) => `${r.method} ${r.path} ${r.body}`),
      ['PATCH /posts/50 {"title": "same"}', 'PATCH /posts/50 {"title": "same"}'],
    );
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 2, batches: 0 });
  });

  test('a 204 is true for a Boolean field and null for an object field; an empty 200 is true for Boolean', async () => {
    posts.set(60, { id: 60, title: 'Sixty', author_id: 7 });
    blog.reset();
    const res = await gateway.query('mutation { deletePost(id: 60) archivePost(id: 1) { title } touchPost(id: 1) }');
    assert.deepEqual(res.body.errors, undefined);
    assert.deepEqual(res.body.data, { deletePost: true, archivePost: null, touchPost: true });
    assert.deepEqual(
      blog.requests.map((r) => `${r.method} ${r.path}`),
      ['DELETE /posts/60', 'PUT /posts/1/archive', 'POST /posts/1/touch'],
    );
    assert.equal(blog.requests[0]!.headers['content-type'], undefined, 'no body, no content-type');
  });

  test('an upstream 4xx is UPSTREAM_HTTP_ERROR with status at the field path; its body only in the capped debug detail; the next field still runs', async () => {
    blog.reset();
    const res = await gateway.query('mutation { failing(id: 1) { title } after: deletePost(id: 999) ok: touchPost(id: 1) }');
    assert.deepEqual(res.body.data, { failing: null, after: null, ok: true });
    const [failing, missing] = res.body.errors ?? [];
    assert.equal(failing?.message, 'source "blog" answered HTTP 422');
    assert.deepEqual(failing?.path, ['failing']);
    assert.equal(failing?.extensions?.code, 'UPSTREAM_HTTP_ERROR');
    assert.equal(failing?.extensions?.status, 422);
    const detail = String(failing?.extensions?.detail);
    assert.match(detail, /^POST \/posts\/1\/fail → 422: \{"error":"secret-upstream-reason x+$/);
    assert.ok(detail.length <= 600, `detail capped, was ${detail.length}`);
    assert.equal(missing?.message, 'source "blog" answered HTTP 404');
    assert.deepEqual(missing?.path, ['after']);
    assert.equal(missing?.extensions?.status, 404);
    assert.equal(blog.count(), 3);
  });

  test('a failed non-null field nulls data and the fields after it are not sent', async () => {
    blog.reset();
    const res = await gateway.query('mutation { failingStrict(id: 1) { title } touchPost(id: 1) }');
    assert.equal(res.body.data, null);
    assert.deepEqual(
      res.body.errors?.map((e) => [e.path, e.extensions?.status]),
      [[['failingStrict'], 422]],
    );
    assert.deepEqual(
      blog.requests.map((r) => `${r.method} ${r.path}`),
      ['POST /posts/1/fail'],
    );
  });

  test('a read with POST (search) sends its body, is deduped only when identical, and is never cached', async () => {
    blog.reset();
    const query = '{ a: search(q: "First") { title } b: search(q: "First") { title } c: search(q: "Sec") { title } }';
    const res = await gateway.query(query);
    assert.deepEqual(res.body.data, { a: [{ title: 'First' }], b: [{ title: 'First' }], c: [{ title: 'Second' }] });
    assert.deepEqual(
      blog.requests.map((r) => `${r.method} ${r.path} ${r.body}`),
      ['POST /search {"q": "First", "note": "q=First"}', 'POST /search {"q": "Sec", "note": "q=Sec"}'],
    );
    await gateway.query(query);
    assert.equal(blog.count('POST /search'), 4, 'never cached');
  });

  test('a mutation over GET is refused with 405 and sends nothing', async () => {
    blog.reset();
    const res = await gateway.get(`/graphql?query=${encodeURIComponent('mutation { touchPost(id: 1) }')}`, { accept: 'application/json' });
    assert.equal(res.status, 405);
    assert.equal(blog.count(), 0);
  });

  test('a persisted mutation over GET (its hash alone, stored by an earlier POST) is refused with 405 and sends nothing', async () => {
    const mutation = 'mutation { touchPost(id: 1) }';
    const extensions = { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(mutation).digest('hex') } };
    const stored = await gateway.post(JSON.stringify({ query: mutation, extensions }));
    assert.equal(stored.status, 200, stored.text);
    blog.reset();
    const res = await gateway.get(`/graphql?extensions=${encodeURIComponent(JSON.stringify(extensions))}`, { accept: 'application/json' });
    assert.equal(res.status, 405, res.text);
    assert.equal(blog.count(), 0);
  });
});

describe('mutations: debug off', () => {
  let blog: CountingUpstream;
  let gateway: TestGateway;
  before(async () => {
    ({ upstream: blog } = await startBlog());
    gateway = await startTestGateway({ sources: { blog: { url: blog.url } }, schemas: { 's.graphqls': BLOG_SCHEMA }, debugMode: false });
  });
  after(async () => {
    await gateway.close();
    await blog.close();
  });

  test('the upstream body of an error appears nowhere in the response', async () => {
    const res = await gateway.query('mutation { failing(id: 1) { title } }');
    assert.equal(res.body.errors?.[0]?.message, 'source "blog" answered HTTP 422');
    assert.equal(res.body.errors?.[0]?.extensions?.detail, undefined);
    assert.ok(!res.text.includes('secret-upstream-reason'), res.text);
  });
});

describe('mutations: never retried, not even after a reset', () => {
  let faulty: FaultyUpstream;
  let gateway: TestGateway;
  before(async () => {
    faulty = await startFaultyUpstream({ 'POST /posts': () => ({ kind: 'reset' }), 'GET /posts/:id': () => ({ kind: 'reset' }) });
    gateway = await startTestGateway({ sources: { blog: { url: faulty.url } }, schemas: { 's.graphqls': BLOG_SCHEMA } });
  });
  after(async () => {
    await gateway.close();
    await faulty.close();
  });

  test('a reset POST is sent once and fails UPSTREAM_UNREACHABLE; a reset GET is sent twice', async () => {
    const res = await gateway.query('mutation { createPost(input: { title: "t" }) { title } }');
    assert.deepEqual(res.body.data, { createPost: null });
    assert.equal(res.body.errors?.[0]?.extensions?.code, 'UPSTREAM_UNREACHABLE');
    assert.equal(faulty.count('POST /posts'), 1);
    const read = await gateway.query('{ post(id: 1) { title } }');
    assert.equal(read.body.errors?.[0]?.extensions?.code, 'UPSTREAM_UNREACHABLE');
    assert.equal(faulty.count('GET /posts/:id'), 2, 'the policy still re-sends a GET once');
  });
});

describe('@invalidate through L2', () => {
  let blog: CountingUpstream;
  let gateway: TestGateway;
  before(async () => {
    ({ upstream: blog } = await startBlog());
    gateway = await startTestGateway({ sources: { blog: { url: blog.url } }, schemas: { 's.graphqls': BLOG_SCHEMA } });
  });
  after(async () => {
    await gateway.close();
    await blog.close();
  });

  test('without @invalidate the next read is a cache hit; with it the next read reaches the upstream', async () => {
    const read = () => gateway.query('{ post(id: 2) { title author { name } } }');
    assert.equal(((await read()).body.data?.post as { title: string }).title, 'Second');
    assert.equal(((await read()).body.data?.post as { title: string }).title, 'Second');
    assert.equal(blog.count('GET /posts/:id'), 1, 'second read served by L2');

    await gateway.query('mutation { renamePost(id: 2, title: "Renamed") { title } }');
    const stale = await read();
    assert.equal((stale.body.data?.post as { title: string }).title, 'Second', 'no @invalidate: the cached value is served');
    assert.equal(blog.count('GET /posts/:id'), 1);

    const usersBefore = blog.count('GET /users/:id');
    await gateway.query('mutation { retitlePost(id: 2, title: "Retitled") { postId } }');
    const fresh = await read();
    assert.equal((fresh.body.data?.post as { title: string }).title, 'Retitled');
    assert.equal(blog.count('GET /posts/:id'), 2, '@invalidate {result.postId}: the read reached the upstream');
    assert.equal(blog.count('GET /users/:id'), usersBefore + 1, 'the second @invalidate {result.authorId} deleted the author entry too');
  });

  test('a failed mutation invalidates nothing', async () => {
    await gateway.query('{ post(id: 1) { title } }');
    const sent = blog.count('GET /posts/:id');
    await gateway.query('mutation { failing(id: 1) { title } }');
    await gateway.query('{ post(id: 1) { title } }');
    assert.equal(blog.count('GET /posts/:id'), sent);
  });
});
