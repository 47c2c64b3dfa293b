/**
 * Sources that break HTTP itself, played by raw TCP servers (docs/hardening.md "Fault matrix"):
 * - a source that writes a second, unasked response 20 ms after each answer: no later request may
 *   read it (it would hand one caller's data, or a forgery, to the next). On a source with
 *   forward_headers three callers one right after the other each get their own data (such a
 *   source gets a connection per request); on any source an unasked response that arrives on an
 *   idle connection closes it (undici destroys the socket: "bad response");
 * - a source whose answer has 70 KB of headers: UPSTREAM_BAD_RESPONSE with a clear message, not
 *   UPSTREAM_UNREACHABLE;
 * - a source whose `headers` read `{auth.sub}` is per-caller like one with forward_headers
 *   (config SourceConfig.perCaller): a connection per request, so a stray answer reaches nobody.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { listenLocal } from '../support/listen.js';
import { errorAt } from '../support/assert.js';
import { until } from '../support/wait.js';
import { keySet, makeKey, mintToken } from '../support/identity.js';

const SCHEMA = `
type Query {
  me: Me @fetch(source: "raw", path: "/me")
  shared: Me @fetch(source: "rawShared", path: "/me")
  fat: Me @fetch(source: "fat", path: "/fat")
}
type Me { name: String }
`;

function response(body: string, extraHeaders = ''): string {
  return `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extraHeaders}\r\n${body}`;
}

interface RawSource {
  readonly url: string;
  /** Requests received, and the forged responses written after them. */
  readonly seen: string[];
  forged: number;
  connections: number;
  close(): Promise<void>;
}

/**
 * A source answering `GET /me` with the caller's own name (from its authorization header) that
 * also sends every answer a second time, unasked: `after20ms` 20 ms after it (on an idle
 * connection), `beforeNext` just before the next answer on the same connection (the worst case:
 * the stray bytes arrive after the next request was written, when nothing can tell them apart
 * from its answer).
 */
async function startDoubleAnswerer(when: 'after20ms' | 'beforeNext'): Promise<RawSource> {
  const sockets = new Set<net.Socket>();
  const state: RawSource = { url: '', seen: [], forged: 0, connections: 0, close: async () => undefined };
  const server = net.createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    let previous: string | undefined;
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      let end: number;
      while ((end = buffered.indexOf('\r\n\r\n')) !== -1) {
        const head = buffered.slice(0, end);
        buffered = buffered.slice(end + 4);
        const who = /^authorization: (.*)$/im.exec(head)?.[1] ?? 'nobody';
        state.seen.push(who);
        const answer = response(JSON.stringify({ name: `private data of ${who}` }));
        if (when === 'beforeNext' && previous !== undefined) {
          state.forged++;
          socket.write(previous);
        }
        socket.write(answer);
        previous = answer;
        if (when === 'after20ms') {
          setTimeout(() => {
            if (socket.destroyed) return;
            state.forged++;
            socket.write(answer);
          }, 20);
        }
      }
    });
  });
  const port = await listenLocal(server);
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  });
}

/** A source whose every answer carries 70 KB of headers. */
async function startFatHeaders(): Promise<{ url: string; close(): Promise<void> }> {
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      const headers = Array.from({ length: 70 }, (_, i) => `x-filler-${i}: ${'a'.repeat(1000)}\r\n`).join('');
      socket.end(response('{"name":"fat"}', headers));
    });
  });
  const port = await listenLocal(server);
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('sources that break HTTP', () => {
  let raw: RawSource;
  let rawShared: RawSource;
  let fat: { url: string; close(): Promise<void> };
  let gw: TestGateway;

  before(async () => {
    raw = await startDoubleAnswerer('beforeNext');
    rawShared = await startDoubleAnswerer('after20ms');
    fat = await startFatHeaders();
    gw = await startTestGateway({
      schemas: { 's.graphqls': SCHEMA },
      sources: { raw: { url: raw.url, forwardHeaders: ['authorization'] }, rawShared: { url: rawShared.url }, fat: { url: fat.url } },
    });
  });
  after(async () => {
    await gw.close();
    await raw.close();
    await rawShared.close();
    await fat.close();
  });

  test('forwarded headers: callers one right after the other each get their own data, never a connection another caller used', async () => {
    for (const caller of ['alice', 'bob', 'carol']) {
      const res = await gw.query('{ me { name } }', undefined, { authorization: caller });
      assert.deepEqual(res.body.data, { me: { name: `private data of ${caller}` } }, caller);
    }
    assert.deepEqual(raw.seen, ['alice', 'bob', 'carol']);
    assert.equal(raw.connections, 3, 'one connection per request on a source with forward_headers');
    assert.equal(raw.forged, 0, 'so no connection ever had an earlier answer to repeat');
  });

  test('an unasked response on an idle keep-alive connection closes it, and no later request reads it', async () => {
    for (const caller of ['alice', 'bob', 'carol']) {
      const forgedBefore = rawShared.forged;
      const res = await gw.query('{ shared { name } }', undefined, { authorization: caller });
      assert.deepEqual(res.body.data, { shared: { name: 'private data of nobody' } }, caller);
      await until(() => rawShared.forged > forgedBefore, `the unasked response after ${caller}'s request`);
    }
    assert.equal(rawShared.seen.length, 3);
    assert.equal(rawShared.connections, 3, 'each unasked response closed its connection');
  });

  test('70 KB of response headers: UPSTREAM_BAD_RESPONSE naming the headers', async () => {
    const res = await gw.query('{ fat { name } }');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { fat: null });
    const error = errorAt(res.body, ['fat']);
    assert.equal(error.extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    assert.match(error.message, /headers/);
  });
});

describe('a source whose headers read {auth.sub}', () => {
  test('callers one right after the other each get their own data: a connection per request, as with forward_headers', async () => {
    const raw = await startDoubleAnswerer('beforeNext');
    const key = await makeKey('ES256', 'k1');
    const dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-claims-raw-'));
    await writeFile(path.join(dir, 'jwks.json'), JSON.stringify(keySet([key])));
    const gw = await startTestGateway({
      schemas: { 's.graphqls': 'type Query { me: Me @fetch(source: "raw", path: "/me") }\ntype Me { name: String }\n' },
      sources: { raw: { url: raw.url, extra: 'headers = { "authorization" = "user-{auth.sub}" }' } },
      extraToml: `[auth]\njwks = ${JSON.stringify(path.join(dir, 'jwks.json'))}\nissuer = "i"\naudience = "a"\n`,
    });
    try {
      for (const caller of ['alice', 'bob', 'carol']) {
        const token = await mintToken(key, { sub: caller }, { issuer: 'i', audience: 'a' });
        const res = await gw.query('{ me { name } }', undefined, { authorization: `Bearer ${token}` });
        assert.deepEqual(res.body.data, { me: { name: `private data of user-${caller}` } }, caller);
      }
      assert.deepEqual(raw.seen, ['user-alice', 'user-bob', 'user-carol']);
      assert.equal(raw.connections, 3, 'one connection per request on a source with {auth.*} headers');
      assert.equal(raw.forged, 0, 'so no connection ever had an earlier answer to repeat');
    } finally {
      await gw.close();
      await raw.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
