/**
 * docs/hardening.md, lifecycle: responses still in flight when the drain (SIGTERM) begins
 * carry `Connection: close`, so no keep-alive client sends its next request into a closing socket;
 * a client must send its headers within headers_timeout_ms and its whole request within
 * request_timeout_ms (defaults 10 s and 30 s), cut to within 2 s. The timeouts are set short here
 * through the config so the test stays fast.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DEFAULTS } from '../../gateway/config/load.js';
import { startGateway, type RunningGateway } from '../../gateway/server/start.js';
import { writeGatewayFiles, type GatewayFiles } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { until } from '../support/wait.js';

const SCHEMA = 'type Query { slow(id: ID!): Item @fetch(source: "items", path: "/slow/{args.id}") } type Item { id: ID! }';
const HEADERS_TIMEOUT_MS = 500;
const REQUEST_TIMEOUT_MS = 1000;
/** docs/reference.md: cut "to within 2 s"; plus slack for a loaded 2-core machine. */
const WITHIN_MS = 2000 + 1000;

function toml(itemsUrl: string): string {
  return [
    '[gateway]',
    'host = "127.0.0.1"',
    'port = 0',
    'schema = ["s.graphqls"]',
    `headers_timeout_ms = ${HEADERS_TIMEOUT_MS}`,
    `request_timeout_ms = ${REQUEST_TIMEOUT_MS}`,
    '',
    '[sources.items]',
    `url = "${itemsUrl}"`,
  ].join('\n');
}

/** Opens a socket, sends `head`, then `drip` one byte every 100 ms; resolves with what came back and when the socket closed. */
function dripping(port: number, head: string, drip: string): Promise<{ answer: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let i = 0;
    const timer = setInterval(() => {
      if (!socket.destroyed) socket.write(drip[i++ % drip.length]!);
    }, 100);
    socket.on('connect', () => socket.write(head));
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, ms: performance.now() - started });
    });
    setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`still open after 10 s; received ${JSON.stringify(answer)}`));
    }, 10_000).unref();
  });
}

describe('connections: drain and slow clients', () => {
  let items: CountingUpstream;
  let files: GatewayFiles;
  let gateway: RunningGateway;

  before(async () => {
    items = await startUpstream({ 'GET /slow/:id': ({ params }) => ({ json: { id: params.id }, delayMs: 250 }) });
    files = await writeGatewayFiles({ schemas: { 's.graphqls': SCHEMA }, toml: toml(items.url) });
    gateway = await startGateway({ configPath: files.configPath, port: 0 });
  });
  after(async () => {
    await gateway.close();
    await items.close();
    await files.cleanup();
  });

  test('the defaults are 10 s for headers and 30 s for the whole request', () => {
    assert.equal(DEFAULTS.headersTimeoutMs, 10_000);
    assert.equal(DEFAULTS.requestTimeoutMs, 30_000);
  });

  test('a client dripping its headers, or its body, gets 408 and a closed socket after headers_timeout_ms / request_timeout_ms, to within 2 s', async () => {
    const body = JSON.stringify({ query: '{ __typename }' }).padEnd(200, ' ');
    const [headers, whole] = await Promise.all([
      dripping(gateway.port, 'GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nHost: x\r\n', 'X-Slow: y\r\n'),
      dripping(
        gateway.port,
        `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        body,
      ),
    ]);
    assert.match(headers.answer, /^HTTP\/1\.1 408 /);
    assert.ok(
      headers.ms >= HEADERS_TIMEOUT_MS - 50 && headers.ms < HEADERS_TIMEOUT_MS + WITHIN_MS,
      `headers cut after ${headers.ms.toFixed(0)} ms`,
    );
    assert.match(whole.answer, /^HTTP\/1\.1 408 /);
    assert.ok(
      whole.ms >= REQUEST_TIMEOUT_MS - 50 && whole.ms < REQUEST_TIMEOUT_MS + WITHIN_MS,
      `request cut after ${whole.ms.toFixed(0)} ms`,
    );
  });

  test('every response in flight when the drain begins carries Connection: close, and is delivered (POST and GET)', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    // POSTs take the fast path, GETs yoga's: both entrances must close during the drain.
    const send = (id: number) =>
      new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        const query = `{ slow(id: ${id}) { id } }`;
        const payload = JSON.stringify({ query });
        const get = id % 2 === 0;
        const req = http.request(
          {
            host: '127.0.0.1',
            port: gateway.port,
            path: get ? `/graphql?query=${encodeURIComponent(query)}` : '/graphql',
            method: get ? 'GET' : 'POST',
            agent,
            headers: get
              ? { accept: 'application/json' }
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
          },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
          },
        );
        req.on('error', reject);
        req.end(get ? undefined : payload);
      });
    // Warm the four keep-alive sockets, then send four slow requests on them.
    const warm = await Promise.all([1, 2, 3, 4].map(send));
    assert.deepEqual(
      warm.map((r) => r.connection),
      ['keep-alive', 'keep-alive', 'keep-alive', 'keep-alive'],
    );
    items.reset();
    const inFlight = [5, 6, 7, 8].map(send);
    await until(() => items.count() === 4, 'the four requests reached the source');
    const drained = gateway.shutdown(5000);
    const answers = await Promise.all(inFlight);
    assert.deepEqual(
      answers.map((r) => [r.status, r.connection]),
      Array.from({ length: 4 }, () => [200, 'close']),
    );
    assert.deepEqual(
      answers.map((r) => JSON.parse(r.body)),
      [5, 6, 7, 8].map((id) => ({ data: { slow: { id: String(id) } } })),
    );
    assert.equal(await drained, true);
    agent.destroy();
  });
});
