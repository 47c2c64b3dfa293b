/**
 * The open-loop driver's HTTP client (bench/driver/load-client.ts) against real node:http servers on
 * 127.0.0.1 that count connections: both body framings, keep-alive reuse, the connection limit and
 * its queue, servers that close or break connections, and close().
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { LoadClient, parseAnswer, postRequest, type Done } from '../../bench/driver/load-client.js';

interface Counted {
  readonly server: Server;
  readonly url: URL;
  connections: number;
  open: number;
  maxOpen: number;
  bodies: string[];
}

async function serve(handle: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<Counted> {
  let n = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      counted.bodies.push(body);
      handle(req, res, n++);
    });
  });
  const counted: Counted = { server, url: new URL('http://127.0.0.1'), connections: 0, open: 0, maxOpen: 0, bodies: [] };
  server.on('connection', (socket) => {
    counted.connections++;
    counted.open++;
    counted.maxOpen = Math.max(counted.maxOpen, counted.open);
    socket.on('close', () => counted.open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (counted as { url: URL }).url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql?x=1`);
  return counted;
}

interface Ended {
  readonly error: Error | undefined;
  readonly status: number;
  readonly body: string | undefined;
}

function clientFor(target: Counted, connections: number): LoadClient {
  return new LoadClient({
    host: '127.0.0.1',
    port: Number(target.url.port),
    connections,
    request: postRequest(target.url, { 'content-type': 'application/json' }, '{"query":"{ a }"}'),
  });
}

function sendMany(client: LoadClient, count: number): Promise<Ended[]> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Ended>((resolve) => {
          const done: Done = (error, status, body) => resolve({ error, status, body: body?.toString('utf8') });
          client.send(done);
        }),
    ),
  );
}

describe('bench load client', () => {
  const servers: Counted[] = [];
  after(async () => {
    for (const s of servers) {
      s.server.closeAllConnections();
      await new Promise((resolve) => s.server.close(resolve));
    }
  });
  const track = async (handle: Parameters<typeof serve>[0]): Promise<Counted> => {
    const s = await serve(handle);
    servers.push(s);
    return s;
  };

  it('sends the prepared POST and reads Content-Length answers, reusing at most `connections` connections', async () => {
    const target = await track((req, res, n) => {
      setTimeout(
        () => res.writeHead(n % 5 === 4 ? 500 : 200, { 'content-type': 'application/json' }).end(`{"n":${n},"path":"${req.url}"}`),
        2,
      );
    });
    const client = clientFor(target, 3);
    const first = await sendMany(client, 10);
    const second = await sendMany(client, 10);
    client.close();
    const all = [...first, ...second];
    assert.deepEqual(
      all.map((e) => e.error),
      all.map(() => undefined),
    );
    assert.deepEqual(
      all
        .map((e) => JSON.parse(e.body ?? '') as { n: number })
        .map((a) => a.n)
        .sort((a, b) => a - b),
      [...Array(20).keys()],
    );
    assert.ok(all.every((e) => e.body?.includes('"path":"/graphql?x=1"')));
    assert.equal(all.filter((e) => e.status === 500).length, 4, 'statuses are read per answer');
    assert.equal(target.connections, 3, 'three connections, kept alive across both bursts');
    assert.equal(target.maxOpen, 3);
    assert.deepEqual(new Set(target.bodies), new Set(['{"query":"{ a }"}']));
  });

  it('reads chunked answers written in pieces', async () => {
    const target = await track((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"n":');
      setTimeout(() => {
        res.write(String(n));
        setTimeout(() => res.end('}'), 1);
      }, 1);
    });
    const client = clientFor(target, 2);
    const ended = await sendMany(client, 6);
    client.close();
    assert.deepEqual(ended.map((e) => e.body).sort(), ['{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}', '{"n":5}']);
    assert.equal(target.connections, 2);
  });

  it('opens a new connection after an answer with Connection: close', async () => {
    const target = await track((_req, res) => res.writeHead(200, { connection: 'close' }).end('ok'));
    const client = clientFor(target, 2);
    const ended = await sendMany(client, 5);
    client.close();
    assert.deepEqual(
      ended.map((e) => [e.error, e.body]),
      ended.map(() => [undefined, 'ok']),
    );
    assert.equal(target.connections, 5, 'one connection per answer');
  });

  it('fails only the request whose connection breaks mid-answer, and goes on with a new connection', async () => {
    const target = await track((_req, res, n) => {
      if (n === 1) {
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial');
        setTimeout(() => res.socket?.destroy(), 5);
      } else res.end(`answer ${n}`);
    });
    const client = clientFor(target, 1);
    const ended = await sendMany(client, 4);
    client.close();
    assert.equal(ended.filter((e) => e.error !== undefined).length, 1);
    assert.match(String(ended.find((e) => e.error)?.error), /closed before the answer ended/);
    assert.deepEqual(
      ended
        .filter((e) => e.error === undefined)
        .map((e) => e.body)
        .sort(),
      ['answer 0', 'answer 2', 'answer 3'],
    );
    assert.equal(target.connections, 2);
  });

  it('reconnects when the server closes an idle keep-alive connection', async () => {
    const target = await track((_req, res) => res.end('fine'));
    target.server.keepAliveTimeout = 20;
    const client = clientFor(target, 1);
    assert.equal((await sendMany(client, 1))[0]?.body, 'fine');
    for (let waited = 0; target.open > 0 && waited < 3000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(target.open, 0, 'the server closed the idle connection');
    const again = await sendMany(client, 2);
    client.close();
    assert.deepEqual(
      again.map((e) => [e.error, e.body]),
      [
        [undefined, 'fine'],
        [undefined, 'fine'],
      ],
    );
    assert.equal(target.connections, 2);
  });

  it('close() ends requests in flight and queued with an error', async () => {
    const target = await track(() => undefined);
    const client = clientFor(target, 1);
    const pending = sendMany(client, 3);
    await new Promise((resolve) => setTimeout(resolve, 30));
    client.close();
    const ended = await pending;
    assert.deepEqual(
      ended.map((e) => String(e.error)),
      ['Error: client closed', 'Error: client closed', 'Error: client closed'],
    );
    const late = await sendMany(client, 1);
    assert.equal(String(late[0]?.error), 'Error: client closed');
  });

  it('parseAnswer: incomplete, trailers, and malformed answers', () => {
    const head = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
    assert.equal(parseAnswer(Buffer.from(head + '3\r\nabc\r\n')), undefined);
    assert.equal(parseAnswer(Buffer.from(head + '3\r\nabc\r\n0\r\n')), undefined);
    assert.equal(parseAnswer(Buffer.from(head + '3\r\nabc\r\n0\r\n\r\n'))?.body.toString(), 'abc');
    assert.equal(parseAnswer(Buffer.from(head + '3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-T: 1\r\n\r\n'))?.body.toString(), 'abcde');
    assert.equal(parseAnswer(Buffer.from('HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n'))?.status, 204);
    assert.equal(parseAnswer(Buffer.from('HTTP/1.1 204 No Content\r\nDate: x\r\n\r\n'))?.body.length, 0, 'a 204 has no body');
    assert.throws(() => parseAnswer(Buffer.from('HTTP/1.1 204 No Content\r\n\r\nextra')), /bytes after the answer/);
    const closing = parseAnswer(Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok'));
    assert.equal(closing?.keepAlive, false);
    assert.equal(parseAnswer(Buffer.from('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok'))?.keepAlive, false);
    assert.throws(() => parseAnswer(Buffer.from('HTTP/1.1 200 OK\r\n\r\nok')), /neither Content-Length nor chunked/);
    assert.throws(() => parseAnswer(Buffer.from('SSH-2.0\r\n\r\n')), /not an HTTP\/1\.x answer/);
    assert.throws(() => parseAnswer(Buffer.from(head + 'zz\r\n')), /malformed chunk size/);
    assert.throws(() => parseAnswer(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA')), /bytes after the answer/);
  });
});
