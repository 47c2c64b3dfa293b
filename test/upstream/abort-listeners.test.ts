/**
 * Issue 12, abort handling: the requests a round sends to one source share one deadline and one
 * listener on the client's abort signal, so a query with many subrequests in one round does not
 * add a listener per subrequest (Node's MaxListenersExceededWarning after 10). Real CLI process,
 * real upstream; the warning would show on the gateway's stderr. And a shared deadline keeps the
 * per-request meaning: every request still running when it passes is UPSTREAM_TIMEOUT, and a
 * caller's abort rejects every one with the caller's reason.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { writeGatewayFiles, type GatewayFiles, type GraphQLResult } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { serveCli, type ServeProcess } from '../support/cli.js';
import { loopTurns } from '../support/wait.js';
import { SourceClient } from '../../gateway/upstream/client.js';
import { Pool } from 'undici';

const AUTHORS = 30;

const SCHEMA = `
type Query {
  posts: [Post] @fetch(source: "posts", path: "/posts")
}
type Post { id: ID! authorId: ID @from(key: "author_id") author: User @fetch(source: "users", path: "/users/{parent.authorId}") }
type User { id: ID! name: String }
`;

describe('abort handling with many subrequests in one round', () => {
  let posts: CountingUpstream;
  let users: CountingUpstream;
  let files: GatewayFiles;
  let proc: ServeProcess;

  before(async () => {
    posts = await startUpstream({
      'GET /posts': () => ({ json: Array.from({ length: AUTHORS }, (_, i) => ({ id: i, author_id: String(i) })) }),
    });
    users = await startUpstream({ 'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: `u${params.id}` } }) });
    files = await writeGatewayFiles({
      schemas: { 's.graphqls': SCHEMA },
      sources: { posts: { url: posts.url }, users: { url: users.url, extra: 'coalesce = false' } },
    });
    proc = await serveCli(files.configPath);
  });
  after(async () => {
    if (proc?.child.exitCode === null) proc.child.kill('SIGKILL');
    await files?.cleanup();
    await posts?.close();
    await users?.close();
  });

  test(`${AUTHORS} subrequests in one round: answered, and no MaxListenersExceededWarning`, async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(proc.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ posts { author { name } } }' }),
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-gql-subrequests'), String(1 + AUTHORS));
      const body = (await res.json()) as GraphQLResult;
      assert.deepEqual(body.data, { posts: Array.from({ length: AUTHORS }, (_, n) => ({ author: { name: `u${n}` } })) });
    }
    assert.equal(users.count(), 3 * AUTHORS);
    await stderrCaughtUp(proc);
    assert.doesNotMatch(proc.stderr(), /MaxListenersExceededWarning/);
    assert.equal(proc.stderr(), '');
  });

  test('40 queries one after another on one keep-alive connection leave no listener behind', async () => {
    // The fast path's abort signal belongs to the connection (server/operation.ts): a listener left
    // on it per request would pass Node's limit of 10 within a dozen requests and warn.
    const one = new Pool(new URL(proc.url).origin, { connections: 1, pipelining: 1 });
    const sentBefore = users.count();
    try {
      for (let i = 0; i < 40; i++) {
        const res = await one.request({
          method: 'POST',
          path: new URL(proc.url).pathname,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ posts { author { name } } }' }),
        });
        assert.equal(res.statusCode, 200);
        await res.body.text();
      }
      assert.equal(one.stats.connected, 1, 'every query went over the same connection');
      assert.equal(users.count() - sentBefore, 40 * AUTHORS, 'every query fetched its authors');
    } finally {
      await one.close();
    }
    await stderrCaughtUp(proc);
    assert.doesNotMatch(proc.stderr(), /MaxListenersExceededWarning/);
    assert.equal(proc.stderr(), '');
  });
});

describe('one deadline shared by the requests sent together', () => {
  let slow: CountingUpstream;
  let client: SourceClient;
  const warnings: Error[] = [];
  const onWarning = (w: Error): number => warnings.push(w);

  before(async () => {
    slow = await startUpstream({
      'GET /slow/:id': ({ params }) => ({ json: { id: params.id }, delayMs: 2000 }),
      'GET /fast/:id': ({ params }) => ({ json: { id: params.id } }),
    });
    client = new SourceClient({
      name: 'svc',
      url: slow.url,
      timeoutMs: 300,
      forwardHeaders: [],
      perCaller: false,
      maxResponseBytes: 1 << 20,
      connections: 32,
      maxQueued: 100,
      coalesce: false,
      batchAcrossRequests: false,
      batchWindowMs: 0,
    });
    process.on('warning', onWarning);
  });
  after(async () => {
    process.off('warning', onWarning);
    await client.close(0);
    await slow.close();
  });

  test('past it, every request still running is UPSTREAM_TIMEOUT; those answered before keep their answer', async () => {
    const deadline = client.deadline(undefined);
    const sent = [
      ...Array.from({ length: 12 }, (_, i) => client.send({ method: 'GET', path: `/slow/${i}`, headers: {} }, deadline)),
      client.send({ method: 'GET', path: '/fast/1', headers: {} }, deadline),
    ];
    const outcomes = await Promise.all(sent);
    deadline.release();
    assert.deepEqual(outcomes.at(-1), { kind: 'ok', body: { id: '1' } });
    for (const o of outcomes.slice(0, 12)) {
      assert.equal(o.kind, 'error');
      if (o.kind === 'error')
        assert.deepEqual([o.error.code, o.error.message], ['UPSTREAM_TIMEOUT', 'source "svc" did not answer within 300 ms']);
    }
    assert.deepEqual(warnings, []);
  });

  test("the caller's abort rejects every request with the caller's reason", async () => {
    const caller = new AbortController();
    const deadline = client.deadline(caller.signal);
    const sent = Array.from({ length: 12 }, (_, i) =>
      client.send({ method: 'GET', path: `/slow/${i}`, headers: {} }, deadline).then(
        () => 'answered',
        (err: unknown) => err,
      ),
    );
    const reason = new Error('client went away');
    caller.abort(reason);
    for (const r of await Promise.all(sent)) assert.equal(r, reason);
    deadline.release();
    await assert.rejects(
      client.send({ method: 'GET', path: '/fast/2', headers: {} }, deadline),
      (err) => err === reason,
      'an aborted deadline sends nothing more',
    );
    assert.equal(slow.count('GET /fast/:id'), 1);
    assert.deepEqual(warnings, []);
  });
});

/**
 * Returns once everything the gateway wrote to stderr before answering one more request has been
 * read here: a warning is written on the next tick of the request that caused it, and a process's
 * stderr pipe is written synchronously on Linux, so it is in the pipe before that answer is sent;
 * the turns after the answer read it.
 */
async function stderrCaughtUp(proc: ServeProcess): Promise<void> {
  const res = await fetch(new URL('/healthz', proc.url));
  await res.text();
  await loopTurns();
}
