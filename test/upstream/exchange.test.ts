/**
 * How the upstream client reads answers (upstream/exchange.ts) against a real HTTP server that
 * counts its connections: a body read to its end keeps the keep-alive connection, one cut at its
 * cap drops it; a byte order mark is not part of the JSON; a client that goes away mid-body aborts
 * the request and leaves no listener on the deadline; a finished exchange's handler, which undici
 * may keep, reaches neither the answer nor the deadline.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Pool, type Dispatcher } from 'undici';
import { Canceller } from '../../gateway/util/canceller.js';
import { SourceClient } from '../../gateway/upstream/client.js';
import { exchange } from '../../gateway/upstream/exchange.js';
import { until, loopTurns } from '../support/wait.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collects garbage once the current job's WeakRef targets are no longer kept. */
async function collectGarbage(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    await new Promise((done) => setImmediate(done));
    gc();
  }
}

const BOM = '\uFEFF';

describe('upstream exchange: bodies read whole or cut, connections kept or dropped', () => {
  let server: Server;
  let client: SourceClient;
  let baseUrl = '';
  let connections = 0;
  let closedMidBody = 0;
  let midBodyWritten: () => void = () => undefined;

  before(async () => {
    server = createServer((req, res) => {
      switch (req.url) {
        case '/missing':
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such thing"}');
          return;
        case '/ok':
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
          return;
        case '/huge-error':
          // 100 KB, streamed without a declared length: past the 64 KB read of an error's excerpt.
          res.writeHead(500, { 'content-type': 'text/plain' });
          for (let i = 0; i < 100; i++) res.write('e'.repeat(1024));
          res.end();
          return;
        case '/bom-declared':
          res.writeHead(200, { 'content-type': 'application/json' }).end(`${BOM}{"a":1}`);
          return;
        case '/bom-chunked':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(BOM);
          res.end('{"a":2}');
          return;
        case '/slow-body':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.on('close', () => {
            if (!res.writableEnded) closedMidBody++;
          });
          // Told once the headers and the first bytes are in the kernel, on their way to the client.
          res.write('{"part":', () => midBodyWritten());
          return; // never ends: the client must give up
        default:
          res.writeHead(400).end();
      }
    });
    server.on('connection', () => connections++);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}`;
    client = new SourceClient({
      name: 'svc',
      url: `http://127.0.0.1:${port}`,
      timeoutMs: 5000,
      forwardHeaders: [],
      perCaller: false,
      maxResponseBytes: 1 << 20,
      connections: 1,
      maxQueued: 10,
      coalesce: false,
      batchAcrossRequests: false,
      batchWindowMs: 0,
    });
  });
  after(async () => {
    await client.close(100);
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  });

  test('a 404 with a body is not-found, and its connection serves the next request', async () => {
    const opened = connections;
    const missing = await client.send({ method: 'GET', path: '/missing', headers: {} });
    assert.equal(missing.kind, 'not-found');
    // The detail debug mode shows on a NOT_FOUND: method, path, status, as for UPSTREAM_HTTP_ERROR.
    assert.match(missing.kind === 'not-found' ? (missing.detail ?? '') : '', /^GET \/missing → 404: /);
    assert.deepEqual(await client.send({ method: 'GET', path: '/ok', headers: {} }), { kind: 'ok', body: { ok: true } });
    assert.equal((await client.send({ method: 'GET', path: '/missing', headers: {} })).kind, 'not-found');
    assert.ok(connections - opened <= 1, `${connections - opened} connections for three requests on a pool of one`);
  });

  test('an error body past the excerpt cap is cut: "(body over the read cap)", and the connection is dropped', async () => {
    await client.send({ method: 'GET', path: '/ok', headers: {} }); // a kept connection to drop
    const opened = connections;
    const outcome = await client.send({ method: 'GET', path: '/huge-error', headers: {} });
    assert.equal(outcome.kind, 'error');
    if (outcome.kind !== 'error') return;
    assert.equal(outcome.error.code, 'UPSTREAM_HTTP_ERROR');
    assert.equal(outcome.error.status, 500);
    assert.equal(outcome.error.detail, 'GET /huge-error → 500: (body over the read cap)');
    assert.deepEqual(await client.send({ method: 'GET', path: '/ok', headers: {} }), { kind: 'ok', body: { ok: true } });
    assert.equal(connections - opened, 1, 'the request after the cut opens a new connection');
  });

  test('finished requests, whole or cut, leave no listener on the deadline they shared', async () => {
    const deadline = client.deadline(undefined);
    try {
      await Promise.all([
        client.send({ method: 'GET', path: '/ok', headers: {} }, deadline),
        client.send({ method: 'GET', path: '/missing', headers: {} }, deadline),
        client.send({ method: 'GET', path: '/huge-error', headers: {} }, deadline),
      ]);
      assert.equal(deadline.listenerCount, 0);
    } finally {
      deadline.release();
    }
  });

  test('a leading byte order mark is not part of the JSON, declared or chunked', async () => {
    assert.deepEqual(await client.send({ method: 'GET', path: '/bom-declared', headers: {} }), { kind: 'ok', body: { a: 1 } });
    assert.deepEqual(await client.send({ method: 'GET', path: '/bom-chunked', headers: {} }), { kind: 'ok', body: { a: 2 } });
  });

  test('the client leaving mid-body aborts the request, closes its socket and leaves no listener', async () => {
    const caller = new Canceller();
    const deadline = client.deadline(caller);
    const written = new Promise<void>((done) => (midBodyWritten = done));
    const sent = client.send({ method: 'GET', path: '/slow-body', headers: {} }, deadline);
    await written;
    await loopTurns(); // the bytes are on the loopback socket: the client has read them
    assert.equal(deadline.listenerCount, 1, 'one listener while the request runs');
    const reason = new Error('the client went away');
    caller.abort(reason);
    await assert.rejects(sent, (err) => err === reason);
    assert.equal(deadline.listenerCount, 0);
    deadline.release();
    await until(() => closedMidBody > 0, 'the upstream saw the request dropped', 1000);
    assert.equal(closedMidBody, 1, 'the upstream saw the request dropped once');
    assert.deepEqual(await client.send({ method: 'GET', path: '/ok', headers: {} }), { kind: 'ok', body: { ok: true } });
  });

  test('a finished exchange: the handler undici was given reaches neither the answer nor the deadline', async () => {
    // undici can keep a finished request, and so its handler, in a queue array it has copied
    // (docs/performance.md "A finished exchange keeps nothing alive"); here a dispatcher keeps them all.
    const pool = new Pool(baseUrl, { connections: 1 });
    const kept: Dispatcher.DispatchHandler[] = [];
    const keeping = {
      dispatch: (options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) => {
        kept.push(handler);
        return pool.dispatch(options, handler);
      },
    } as unknown as Dispatcher;
    try {
      const refs = await (async () => {
        const deadline = new Canceller();
        const answer = await exchange(keeping, { path: '/ok', method: 'GET' }, deadline, { ok: 1 << 20, other: 1 << 16 });
        assert.equal(answer.body?.toString(), '{"ok":true}');
        return { body: new WeakRef(answer.body!), deadline: new WeakRef(deadline) };
      })();
      await collectGarbage();
      assert.equal(kept.length, 1, 'the handler is still held');
      assert.equal(refs.body.deref(), undefined, 'the answer was collected');
      assert.equal(refs.deadline.deref(), undefined, 'the deadline was collected');
    } finally {
      await pool.close();
    }
  });
});
