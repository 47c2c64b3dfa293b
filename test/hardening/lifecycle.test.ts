/**
 * Lifecycle: SIGTERM stops accepting and lets in-flight requests finish within the grace
 * period, then closes pools; a client that disconnects cancels its pending subrequests; /readyz;
 * per-source concurrency limits keep one slow source from taking everything.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startGateway } from '../../gateway/server/start.js';
import { startTestGateway, writeGatewayFiles, type GatewayFiles, type GraphQLResult, type TestGateway } from '../support/gateway.js';
import { startFaultyUpstream, type FaultyUpstream } from '../support/faulty-upstream.js';
import { errorAt } from '../support/assert.js';
import { canConnect } from '../support/listen.js';
import { eventually } from '../support/wait.js';
import { serveCli as serve, type ServeProcess } from '../support/cli.js';

const SCHEMA = `
type Query {
  posts: [Post] @fetch(source: "posts", path: "/posts")
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}")
  fast(id: ID!): User @fetch(source: "fast", path: "/users/{args.id}")
}
type Post {
  id: ID!
  authorId: ID @from(key: "author_id")
  author: User @fetch(source: "users", path: "/users/{parent.authorId}")
}
type User { id: ID! name: String }
`;

function toml(sources: Record<string, string>, gatewayExtra = ''): string {
  const lines = ['[gateway]', 'host = "127.0.0.1"', 'port = 0', 'schema = ["s.graphqls"]', gatewayExtra, ''];
  for (const [name, body] of Object.entries(sources)) lines.push(`[sources.${name}]`, body, '');
  return lines.join('\n');
}

/** Whether a new TCP connection to the port is refused. */
const refused = async (port: number): Promise<boolean> => !(await canConnect(port));

async function postQuery(
  url: string,
  query: string,
  signal?: AbortSignal,
): Promise<{ status: number; connection: string | null; body: GraphQLResult }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
    signal,
  });
  return { status: res.status, connection: res.headers.get('connection'), body: (await res.json()) as GraphQLResult };
}

describe('SIGTERM', () => {
  let users: FaultyUpstream;
  let files: GatewayFiles | undefined;
  let proc: ServeProcess | undefined;

  before(async () => {
    users = await startFaultyUpstream({
      'GET /users/:id': ({ params }) => ({ kind: 'json', body: { id: params.id, name: 'slow' }, delayMs: Number(params.id) }),
    });
  });
  after(async () => {
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await files?.cleanup();
    await users.close();
  });

  test('stops accepting, finishes the in-flight request, exits 0', async () => {
    files = await writeGatewayFiles({
      schemas: { 's.graphqls': SCHEMA },
      toml: toml(
        { users: `url = "${users.url}"`, posts: `url = "${users.url}"`, fast: `url = "${users.url}"` },
        'shutdown_grace_ms = 30000',
      ),
    });
    proc = await serve(files.configPath);
    users.reset();
    const inFlight = postQuery(proc.url, '{ user(id: 700) { name } }');
    assert.ok(await eventually(() => users.count() === 1, 2000), 'the subrequest reached the source');
    const signalledAt = performance.now();
    proc.child.kill('SIGTERM');
    assert.ok(await eventually(() => refused(proc!.port), 2000), 'new connections are refused while draining');
    const res = await inFlight;
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { user: { name: 'slow' } });
    assert.equal(res.connection, 'close', 'a response in flight when SIGTERM came closes its connection');
    const { code, atMs } = await proc.exited;
    assert.equal(code, 0);
    // The request takes 700 ms; waiting out the 30 s grace instead is the regression this catches.
    assert.ok(atMs - signalledAt < 10_000, `exited ${(atMs - signalledAt).toFixed(0)} ms after SIGTERM`);
    assert.match(proc.stderr(), /draining/);
    assert.match(proc.stderr(), /gqlgw: stopped\n/);
    assert.doesNotMatch(proc.stderr(), /\n\s+at /, 'no stack trace');
    await files.cleanup();
    files = undefined;
  });

  test('past shutdown_grace_ms the request is cut off and its subrequest cancelled; exit 0 promptly', async () => {
    files = await writeGatewayFiles({
      schemas: { 's.graphqls': SCHEMA },
      toml: toml(
        { users: `url = "${users.url}"\ntimeout_ms = 20000`, posts: `url = "${users.url}"`, fast: `url = "${users.url}"` },
        'shutdown_grace_ms = 300',
      ),
    });
    proc = await serve(files.configPath);
    users.reset();
    const inFlight = postQuery(proc.url, '{ user(id: 10000) { name } }').then(
      () => 'answered',
      () => 'cut off',
    );
    assert.ok(await eventually(() => users.count() === 1, 2000));
    const signalledAt = performance.now();
    proc.child.kill('SIGTERM');
    assert.equal(await inFlight, 'cut off');
    const { code, atMs } = await proc.exited;
    assert.equal(code, 0);
    // Grace is 300 ms; waiting for the subrequest's 20 s timeout instead is the regression this catches.
    assert.ok(atMs - signalledAt < 10_000, `exited ${(atMs - signalledAt).toFixed(0)} ms after SIGTERM`);
    assert.ok(await eventually(() => users.abandoned === 1, 2000), 'the source saw its request cancelled');
    assert.match(proc.stderr(), /cut off/);
  });
});

describe('shutdown() and readiness in process', () => {
  test('ready until shutdown; in-flight requests finish; pools are closed afterwards', async () => {
    const users = await startFaultyUpstream({
      'GET /users/:id': ({ params }) => ({ kind: 'json', body: { id: params.id, name: 'n' }, delayMs: Number(params.id) }),
    });
    const files = await writeGatewayFiles({
      schemas: { 's.graphqls': SCHEMA },
      toml: toml({ users: `url = "${users.url}"`, posts: `url = "${users.url}"`, fast: `url = "${users.url}"` }),
    });
    const running = await startGateway({ configPath: files.configPath, port: 0 });
    try {
      const origin = new URL(running.url).origin;
      const ready = await fetch(`${origin}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { status: 'ready' });
      assert.equal(running.ready, true);
      await postQuery(running.url, '{ user(id: 1) { name } }');
      const inFlight = postQuery(running.url, '{ user(id: 400) { name } }');
      assert.ok(await eventually(() => users.inFlight === 1, 2000));
      const stopping = running.shutdown(5000);
      assert.equal(running.ready, false);
      assert.equal(await refused(running.port), true);
      assert.deepEqual((await inFlight).body.data, { user: { name: 'n' } });
      assert.equal(await stopping, true, 'every request finished within the grace period');
      assert.ok(await eventually(() => users.connectionsOpen === 0, 2000), 'the source pool closed its keep-alive connections');
    } finally {
      await running.close();
      await files.cleanup();
      await users.close();
    }
  });
});

/**
 * A gateway whose `users` source answers after `delayMs` behind the given pool settings, whose
 * /posts lists `authors` posts by distinct authors, and a `fast` source of its own.
 */
interface SlowAuthors {
  readonly users: FaultyUpstream;
  readonly gw: TestGateway;
  close(): Promise<void>;
}

async function slowAuthors(authors: number, usersPool: string, delayMs: number): Promise<SlowAuthors> {
  const users = await startFaultyUpstream({
    'GET /users/:id': ({ params }) => ({ kind: 'json', body: { id: params.id, name: 'u' }, delayMs }),
  });
  const posts = await startFaultyUpstream({
    'GET /posts': () => ({ kind: 'json', body: Array.from({ length: authors }, (_, i) => ({ id: i + 1, author_id: String(i + 1) })) }),
  });
  const fast = await startFaultyUpstream({ 'GET /users/:id': ({ params }) => ({ kind: 'json', body: { id: params.id, name: 'fast' } }) });
  const gw = await startTestGateway({
    sources: {
      users: { url: users.url, timeoutMs: 5000, extra: usersPool },
      posts: { url: posts.url },
      fast: { url: fast.url },
    },
    schemas: { 's.graphqls': SCHEMA },
  });
  return {
    users,
    gw,
    async close() {
      await gw.close();
      await Promise.all([users.close(), posts.close(), fast.close()]);
    },
  };
}

/** Sends `{ posts { id author { name } } }` as a client that may leave: abort(), then `pending` is 'aborted'. */
function leavingPostsQuery(gw: TestGateway): { readonly pending: Promise<unknown>; abort(): void } {
  const controller = new AbortController();
  const pending = postQuery(gw.url, '{ posts { id author { name } } }', controller.signal).catch(() => 'aborted');
  return { pending, abort: () => controller.abort() };
}

describe('client disconnects and per-source concurrency', () => {
  let users: FaultyUpstream;
  let gw: TestGateway;
  let scene: SlowAuthors;

  before(async () => {
    scene = await slowAuthors(3, 'connections = 2\nmax_queued = 2', 400);
    ({ users, gw } = scene);
  });
  after(() => scene.close());

  test('a client that disconnects cancels its pending subrequests', async () => {
    users.reset();
    const client = leavingPostsQuery(gw);
    assert.ok(await eventually(() => users.count() === 2 && users.inFlight === 2, 2000), 'round 2 reached the source (2 connections)');
    client.abort();
    assert.equal(await client.pending, 'aborted');
    assert.ok(
      await eventually(() => users.abandoned === 2, 1000),
      `the in-flight subrequests were cancelled (abandoned ${users.abandoned})`,
    );
    // A lookup asked after the client left waits behind anything still queued (first come, first
    // served): once it is answered, a queued author fetch would have been sent.
    const probe = await gw.query('{ user(id: 99) { name } }');
    assert.deepEqual(probe.body.data, { user: { name: 'u' } });
    assert.deepEqual(
      users.requests
        .map((r) => r.path)
        .filter((path) => path !== '/users/99')
        .sort(),
      ['/users/1', '/users/2'],
      'the queued third author fetch was never sent',
    );
    const later = await gw.query('{ fast(id: 1) { name } }');
    assert.deepEqual(later.body.data, { fast: { name: 'fast' } });
  });

  test('a slow source holds at most `connections` sockets, queues at most max_queued, and other sources stay fast', async () => {
    users.reset();
    const slow = Array.from({ length: 8 }, (_, i) => gw.query(`{ user(id: ${100 + i}) { name } }`));
    assert.ok(await eventually(() => users.inFlight === 2, 2000));
    const other = await gw.query('{ fast(id: 2) { name } }');
    assert.deepEqual(other.body.data, { fast: { name: 'fast' } });
    assert.equal(users.inFlight, 2, 'another source answered while the slow one still held both its sockets: it did not wait for them');
    const results = await Promise.all(slow);
    const ok = results.filter((r) => (r.body.data?.user as { name?: string } | null)?.name === 'u');
    const overloaded = results.filter((r) => r.body.data?.user === null);
    assert.equal(ok.length, 4, '2 sent at once + 2 queued');
    assert.equal(overloaded.length, 4);
    for (const r of overloaded) {
      const error = errorAt(r.body, ['user']);
      assert.equal(error.extensions?.code, 'UPSTREAM_UNREACHABLE');
      assert.match(error.message, /overloaded/);
    }
    assert.equal(users.maxInFlight, 2);
    assert.equal(users.count(), 4, 'refused requests never reached the source');
  });
});

describe('a client that leaves with lookups queued', () => {
  const AUTHORS = 20;
  let scene: SlowAuthors;

  before(async () => {
    scene = await slowAuthors(AUTHORS, 'connections = 1\nmax_queued = 100\ncoalesce = false', 300);
  });
  after(() => scene.close());

  test('costs the source no new connections: queued lookups wait in the gateway and just leave', async () => {
    const { users, gw } = scene;
    const client = leavingPostsQuery(gw);
    assert.ok(await eventually(() => users.inFlight === 1, 2000), 'the first author fetch reached the source');
    client.abort();
    assert.equal(await client.pending, 'aborted');
    // A lookup asked after the client left waits behind anything still queued (first come, first
    // served): once it is answered, a queued fetch would have been sent.
    const later = await gw.query('{ user(id: 777) { name } }');
    assert.deepEqual(later.body.data, { user: { name: 'u' } });
    assert.equal(users.count(), 2, `none of the ${AUTHORS - 1} queued fetches was sent (the first and the later one were)`);
    // undici's own queue would hand each queued fetch a fresh connection only to destroy it unwritten
    // (upstream/admission.ts): ~20 connections. Destroying the in-flight one costs the later one a reconnect.
    assert.ok(users.connectionsAccepted <= 2, `the source accepted ${users.connectionsAccepted} connections`);
  });
});
