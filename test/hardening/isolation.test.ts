/**
 * One caller cannot change another's answer (SPEC, docs/hardening.md "Isolation"), against the real
 * gateway over HTTP and a counting users source that answers 400 to a batch holding a key that is
 * not a number (`1,2&admin=1`): a chunk shared across requests that fails for a reason a key may
 * have caused is sent again with each request's keys apart, each request charged for its own
 * resend; a sharer at its `max_subrequests` keeps its failure without holding the others back;
 * debug detail and warnings name only the caller's own keys; a batch answered with an object is an
 * error of its keys without a split, naming the `select` it needs.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { splitIds, startUpstream, type CountingUpstream } from '../support/upstream.js';
import { Gate } from '../support/gate.js';
import { until } from '../support/wait.js';
import { listenLocal } from '../support/listen.js';

const POISON = '1,2&admin=1';

const SCHEMA = `
type Query {
  post(id: ID!): Post @fetch(source: "posts", path: "/posts/{args.id}")
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}") @batch(path: "/users?ids={keys}", match: "id")
  wrapped(id: ID!): User @fetch(source: "users", path: "/wrapped/{args.id}") @batch(path: "/wrapped?ids={keys}", match: "id")
}
type Post {
  id: ID!
  author: User @fetch(source: "users", path: "/users/{parent.id}") @batch(path: "/users?ids={keys}", match: "id")
  ghost: User @fetch(source: "users", path: "/ghosts/{parent.id}") @batch(path: "/ghosts?ids={keys}", match: "id")
  profile: Profile @fetch(source: "raw", path: "/profiles/{parent.id}") @batch(path: "/profiles?ids={keys}", match: "id")
}
type Profile { id: ID! bio: String }
type User { id: ID! name: String }
`;

interface Scene {
  readonly users: CountingUpstream;
  readonly posts: CountingUpstream;
  readonly gate: Gate;
  /** A raw TCP source of profiles: key FAT's bio is FAT_BYTES long, every other one a few bytes. */
  readonly raw: { readonly url: string; readonly asked: string[]; close(): Promise<void> };
}

const FAT = '66';
const FAT_BYTES = 12_000;

/** Answers `GET /profiles?ids=…` on a raw socket, with an exact content-length and keep-alive. */
async function startRawProfiles(): Promise<Scene['raw']> {
  const asked: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let pending = '';
    socket.on('data', (data) => {
      pending += data.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const target = pending.slice(0, end).split(' ')[1] ?? '';
        pending = pending.slice(end + 4);
        const ids = splitIds(new URL(target, 'http://raw').searchParams.get('ids'));
        asked.push(ids.join(','));
        const body = JSON.stringify(ids.map((id) => ({ id, bio: id === FAT ? 'x'.repeat(FAT_BYTES) : `bio ${id}` })));
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      }
    });
  });
  const port = await listenLocal(server);
  return {
    url: `http://127.0.0.1:${port}`,
    asked,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function startScene(): Promise<Scene> {
  const gate = new Gate();
  const users = await startUpstream({
    'GET /users': ({ query }) => {
      const ids = splitIds(query.get('ids'));
      if (ids.some((id) => !/^\d+$/.test(id))) return { status: 400, json: { error: 'ids must be numbers' } };
      return { json: ids.map((id) => ({ id, name: `User ${id}` })) };
    },
    'GET /ghosts': ({ query }) => ({ json: splitIds(query.get('ids')).map((id) => ({ uid: id })) }),
    'GET /wrapped': ({ query }) => ({ json: { users: splitIds(query.get('ids')).map((id) => ({ id, name: `User ${id}` })) } }),
  });
  const posts = await startUpstream({
    'GET /posts/:id': async ({ params }) => {
      await gate.passed();
      return { json: { id: params.id } };
    },
  });
  return { users, posts, gate, raw: await startRawProfiles() };
}

/** Sends `queries` at once and lets the posts source answer them together: their next rounds share chunks. */
async function together(gw: TestGateway, scene: Scene, queries: ReadonlyArray<readonly [string, number]>) {
  scene.gate.close();
  const already = scene.posts.count();
  const sent = queries.map(([q]) => gw.query(q));
  const posts = queries.reduce((n, [, p]) => n + p, 0);
  await until(() => scene.posts.count() === already + posts, `${posts} post lookups reached the posts source`, 10_000);
  scene.gate.open();
  return Promise.all(sent);
}

const authorOf = (id: string) => `{ post(id: ${JSON.stringify(id)}) { author { id name } } }`;
/** The decoded `ids` of each batch call the users source received. */
const usersCalls = (users: CountingUpstream) => users.requestsFor('GET /users').map((r) => r.query.get('ids') ?? '');

/** Starts a scene and a gateway over it before the suite's tests (`extraToml` appended), closes both after. */
function useScene(extraToml?: string): { scene: Scene; gw: TestGateway } {
  const held = {} as { scene: Scene; gw: TestGateway };
  before(async () => {
    held.scene = await startScene();
    const { users, posts, raw } = held.scene;
    held.gw = await startTestGateway({
      sources: { users: { url: users.url }, posts: { url: posts.url }, raw: { url: raw.url } },
      schemas: { 's.graphqls': SCHEMA },
      extraToml,
    });
  });
  after(async () => {
    await held.gw?.close();
    await held.scene?.users.close();
    await held.scene?.posts.close();
    await held.scene?.raw.close();
  });
  return held;
}

describe('isolation of shared chunks (default config)', () => {
  const held = useScene();

  test('a poison key fails only the request that asked it; each request pays for its own resend', async () => {
    const { scene, gw } = held;
    scene.users.reset();
    const [attacker, victim] = await together(gw, scene, [
      [authorOf(POISON), 1],
      [authorOf('5'), 1],
    ]);
    assert.deepEqual([victim!.body.data, victim!.body.errors], [{ post: { author: { id: '5', name: 'User 5' } } }, undefined]);
    assert.deepEqual(
      attacker!.body.errors?.map((e) => e.extensions?.code),
      ['UPSTREAM_HTTP_ERROR'],
    );
    const calls = usersCalls(scene.users);
    assert.equal(calls.length, 3, calls.join(' | '));
    assert.deepEqual(calls.slice(1).sort(), [POISON, '5'].sort());
    assert.deepEqual(debugCounts(victim!), { rounds: 2, subrequests: 3, batches: 2 });
    assert.deepEqual(debugCounts(attacker!), { rounds: 2, subrequests: 3, batches: 2 });
    const detail = String(attacker!.body.errors?.[0]?.extensions?.detail ?? '');
    assert.doesNotMatch(detail, /\b5\b/, 'the attacker sees nothing of the victim key');
  });

  test('a flood of poison keys from 16 clients leaves a victim\u2019s 40 requests all answered right', async () => {
    const { scene, gw } = held;
    scene.users.reset();
    let flooding = true;
    const flooder = async (n: number) => {
      while (flooding)
        await gw.query(`{ a: user(id: ${JSON.stringify(POISON)}) { name } b: user(id: "3") { name } c: user(id: "${1000 + n}") { name } }`);
    };
    const flood = Array.from({ length: 16 }, (_, n) => flooder(n));
    const answers = [];
    try {
      for (let round = 0; round < 5; round++) {
        const batch = Array.from({ length: 8 }, (_, k) => {
          const id = 100 + round * 8 + k;
          return gw.query(`{ x: user(id: "${id}") { id name } y: user(id: "3") { name } }`).then((r) => [id, r] as const);
        });
        answers.push(...(await Promise.all(batch)));
      }
    } finally {
      flooding = false;
      await Promise.all(flood);
    }
    assert.equal(answers.length, 40);
    for (const [id, r] of answers) {
      assert.deepEqual([r.body.data, r.body.errors], [{ x: { id: String(id), name: `User ${id}` }, y: { name: 'User 3' } }, undefined]);
    }
    const victimKey = (k: string) => Number(k) >= 100 && Number(k) < 140;
    const mixed = usersCalls(scene.users).filter((ids) => ids.includes(POISON) && splitIds(ids).some(victimKey));
    assert.ok(mixed.length > 0, 'some chunk held a poison key and a victim key');
  });

  test('BATCH_MATCHED_NOTHING of a shared chunk names only each caller\u2019s own keys', async () => {
    const { scene, gw } = held;
    const ghost = (id: string) => `{ post(id: "${id}") { ghost { name } } }`;
    scene.users.reset();
    const [a, b] = await together(gw, scene, [
      [ghost('21'), 1],
      [ghost('22'), 1],
    ]);
    assert.deepEqual(
      scene.users.requestsFor('GET /ghosts').map((r) => r.url),
      ['/ghosts?ids=21,22'],
    );
    const asked = (r: typeof a) =>
      (r!.body.extensions?.warnings as Array<{ code: string; keysAsked: string[] }>).map((w) => [w.code, w.keysAsked]);
    assert.deepEqual(asked(a), [['BATCH_MATCHED_NOTHING', ['21']]]);
    assert.deepEqual(asked(b), [['BATCH_MATCHED_NOTHING', ['22']]]);
  });

  test('a batch answered with an object is an error of its keys, not split, naming the select it needs', async () => {
    const { scene, gw } = held;
    scene.users.reset();
    const r = await gw.query('{ a: wrapped(id: "1") { name } b: wrapped(id: "2") { name } }');
    assert.deepEqual(
      scene.users.requests.map((q) => q.url),
      ['/wrapped?ids=1,2'],
    );
    assert.deepEqual(debugCounts(r), { rounds: 1, subrequests: 1, batches: 1 });
    const messages = new Set(r.body.errors?.map((e) => e.message));
    assert.equal(messages.size, 1);
    assert.match([...messages][0]!, /one array is under "users"; add select: "users" to the @batch/);
  });
});

describe('isolation at max_subrequests and max_operation_upstream_bytes', () => {
  const held = useScene('[limits]\nmax_subrequests = 3\nmax_operation_upstream_bytes = 10000');

  test('a sharer at its limit keeps its failure alone; the other resends its own key; no detail names another caller\u2019s key', async () => {
    const { scene, gw } = held;
    scene.users.reset();
    const attack = `{ p: post(id: ${JSON.stringify(POISON)}) { author { name } } q: post(id: "6") { author { name } } }`;
    const [attacker, victim] = await together(gw, scene, [
      [attack, 2],
      [authorOf('7'), 1],
    ]);
    assert.deepEqual([victim!.body.data, victim!.body.errors], [{ post: { author: { id: '7', name: 'User 7' } } }, undefined]);
    assert.deepEqual(debugCounts(victim!), { rounds: 2, subrequests: 3, batches: 2 });
    assert.deepEqual(debugCounts(attacker!), { rounds: 2, subrequests: 3, batches: 1 });
    const errors = attacker!.body.errors ?? [];
    assert.ok(errors.length > 0);
    for (const e of errors) assert.doesNotMatch(String(e.extensions?.detail ?? ''), /\b7\b/);
    assert.deepEqual(usersCalls(scene.users), [`${POISON},6,7`, '7']);
  });

  test('a shared chunk\u2019s bytes: each sharer charged for its own keys; the one that cannot afford its share gets the limit error alone', async () => {
    const { scene, gw } = held;
    const profile = (id: string) => `{ post(id: "${id}") { profile { id bio } } }`;
    scene.raw.asked.length = 0;
    const [fat, lean] = await together(gw, scene, [
      [profile(FAT), 1],
      [profile('61'), 1],
    ]);
    assert.deepEqual(scene.raw.asked, [`${FAT},61`], 'one shared chunk');
    assert.deepEqual([lean!.body.data, lean!.body.errors], [{ post: { profile: { id: '61', bio: 'bio 61' } } }, undefined]);
    assert.deepEqual(
      fat!.body.errors?.map((e) => [e.path, e.extensions?.code]),
      [[['post', 'profile'], 'UPSTREAM_BYTES_LIMIT']],
    );
    assert.doesNotMatch(fat!.text, /bio 61/);
  });
});
