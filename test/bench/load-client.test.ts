/**
 * The open-loop driver's HTTP client (bench/driver/load-client.ts) against real node:http servers on
 * 127.0.0.1 that count connections: Content-Length answers (a chunked one refused), keep-alive reuse, the connection limit and
 * its queue, servers that close or break connections, and close().
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { LoadClient, parseAnswer, postRequest } from '../../bench/driver/load-client.js';
import { until } from '../support/wait.js';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;
interface Target {
  readonly client: LoadClient;
  readonly server: ReturnType<typeof createServer>;
  readonly seen: { connections: number; open: number; maxOpen: number; bodies: Set<string> };
}

const servers: Array<ReturnType<typeof createServer>> = [];

/** A counting server with `handle`, and a client of it with `connections`. */
async function target(handle: Handler, connections: number): Promise<Target> {
  let n = 0;
  const seen = { connections: 0, open: 0, maxOpen: 0, bodies: new Set<string>() };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.bodies.add(body);
      handle(req, res, n++);
    });
  });
  server.on('connection', (socket) => {
    seen.connections++;
    seen.maxOpen = Math.max(seen.maxOpen, ++seen.open);
    socket.on('close', () => seen.open--);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql?x=1`);
  const request = postRequest(url, { 'content-type': 'application/json' }, '{"query":"{ a }"}');
  return { client: new LoadClient({ host: '127.0.0.1', port: Number(url.port), connections, request }), server, seen };
}

/** Sends `count` requests at once; each ends as its body, or `error: …`, with its status. */
function sendMany(client: LoadClient, count: number): Promise<Array<{ status: number; text: string }>> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<{ status: number; text: string }>((resolve) =>
          client.send((error, status, body) => resolve({ status, text: error ? `error: ${error.message}` : String(body) })),
        ),
    ),
  );
}

describe('bench load client', () => {
  after(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve).closeAllConnections()))));

  it('sends the prepared POST and reads Content-Length answers, reusing at most `connections` connections', async () => {
    const { client, seen } = await target((req, res, n) => {
      setTimeout(() => Object.assign(res, { statusCode: n % 5 === 4 ? 500 : 200 }).end(`{"n":${n},"path":"${req.url}"}`), 2);
    }, 3);
    const all = [...(await sendMany(client, 10)), ...(await sendMany(client, 10))];
    client.close();
    const numbers = all.map((e) => (JSON.parse(e.text) as { n: number }).n).sort((a, b) => a - b);
    assert.deepEqual(numbers, [...Array(20).keys()]);
    assert.ok(all.every((e) => e.text.includes('"path":"/graphql?x=1"')));
    assert.equal(all.filter((e) => e.status === 500).length, 4, 'statuses are read per answer');
    assert.deepEqual([seen.connections, seen.maxOpen], [3, 3], 'three connections, kept alive across both bursts');
    assert.deepEqual([...seen.bodies], ['{"query":"{ a }"}']);
  });

  it('fails a chunked answer (no Content-Length) and goes on with a new connection', async () => {
    const { client, seen } = await target((_req, res, n) => {
      if (n === 0) return void res.writeHead(200).write('{"n":0}');
      res.end(`{"n":${n}}`);
    }, 1);
    const ended = await sendMany(client, 3);
    client.close();
    assert.deepEqual(ended.map((e) => e.text).sort(), ['error: answer has no Content-Length', '{"n":1}', '{"n":2}']);
    assert.equal(seen.connections, 2);
  });

  it('fails only the request whose connection breaks mid-answer, and goes on with a new connection', async () => {
    const { client, seen } = await target((_req, res, n) => {
      if (n !== 1) return void res.end(`answer ${n}`);
      res.writeHead(200, { 'content-length': '100' }).write('partial');
      setTimeout(() => res.socket?.destroy(), 5);
    }, 1);
    const ended = (await sendMany(client, 4)).map((e) => e.text).sort();
    client.close();
    assert.deepEqual(ended, ['answer 0', 'answer 2', 'answer 3', 'error: connection closed before the answer ended']);
    assert.equal(seen.connections, 2);
  });

  it('reconnects when the server closes an idle keep-alive connection', async () => {
    const { client, server, seen } = await target((_req, res) => res.end('fine'), 1);
    server.keepAliveTimeout = 20;
    assert.deepEqual(await sendMany(client, 1), [{ status: 200, text: 'fine' }]);
    await until(() => seen.open === 0, 'the server closed the idle connection');
    assert.equal((await sendMany(client, 2)).map((e) => e.text).join(' '), 'fine fine');
    client.close();
    assert.equal(seen.connections, 2);
  });

  it('close() ends requests in flight and queued with an error', async () => {
    const { client, seen } = await target(() => undefined, 1);
    const pending = sendMany(client, 3);
    await until(() => seen.bodies.size > 0, 'the first request reached the server');
    client.close();
    const [inFlight, later] = [(await pending).map((e) => e.text), (await sendMany(client, 1)).map((e) => e.text)];
    assert.deepEqual([inFlight, later], [Array(3).fill('error: client closed'), ['error: client closed']]);
  });

  it('parseAnswer: incomplete, complete, and malformed answers', () => {
    const parse = (text: string): ReturnType<typeof parseAnswer> => parseAnswer(Buffer.from(text));
    assert.equal(parse('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nab'), undefined);
    assert.equal(parse('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc')?.body.toString(), 'abc');
    assert.equal(parse('HTTP/1.1 204 No Content\r\nDate: x\r\n\r\n')?.body.length, 0, 'a 204 has no body');
    assert.equal(parse('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok')?.keepAlive, false);
    assert.equal(parse('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok')?.keepAlive, false);
    assert.throws(() => parse('HTTP/1.1 204 No Content\r\n\r\nextra'), /bytes after the answer/);
    assert.throws(() => parse('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n'), /no Content-Length/);
    assert.throws(() => parse('SSH-2.0\r\n\r\n'), /not an HTTP\/1\.x answer/);
    assert.throws(() => parse('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA'), /bytes after the answer/);
  });
});
