import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startGateway, type RunningGateway } from '../../gateway/server/start.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { writeGatewayFiles, type GatewayFiles } from '../support/gateway.js';
import { sseSubscribe, wsClient, type Subscriber } from '../support/live-clients.js';
import { until } from '../support/wait.js';

const SCHEMA = `
type Query { ping: Int @fetch(source: "up", path: "/ping") }
type Subscription { item(id: ID!): Item @fetch(source: "up", path: "/items/{args.id}") @poll(every: 1) }
type Item { id: ID! value: Int }
`;
const QUERY = 'subscription($id: ID!) { item(id: $id) { value } }';

let up: CountingUpstream;
let files: GatewayFiles;
let gw: RunningGateway;

before(async () => {
  up = await startUpstream({ 'GET /items/:id': (r) => ({ json: { id: r.params.id, value: 1 } }), 'GET /ping': () => ({ json: 1 }) });
  files = await writeGatewayFiles({
    schemas: { 'schema/live.graphqls': SCHEMA },
    sources: { up: { url: up.url } },
    extraToml: '[subscriptions]\nmax_per_connection = 2\nmax_total = 4\nheartbeat_s = 1',
  });
  gw = await startGateway({ configPath: files.configPath, port: 0, host: '127.0.0.1' });
});

after(async () => {
  await gw?.close();
  await up?.close();
  await files?.cleanup();
});

const code = (errors: unknown): unknown => (errors as Array<{ extensions?: { code?: unknown } }> | undefined)?.[0]?.extensions?.code;

test('max_per_connection and max_total refuse with SUBSCRIPTION_LIMIT; SIGTERM completes every stream before the drain ends', async () => {
  const client = wsClient(gw.url);
  const open: Subscriber[] = [
    client.subscriber({ query: QUERY, variables: { id: 'a' } }),
    client.subscriber({ query: QUERY, variables: { id: 'b' } }),
  ];
  await until(() => open.every((s) => s.events.length === 1), 'two subscriptions on one socket');
  const third = client.subscriber({ query: QUERY, variables: { id: 'c' } });
  await third.ended();
  assert.equal(code(third.error), 'SUBSCRIPTION_LIMIT', 'a third on the same socket is over max_per_connection');
  // Each SSE stream is a connection of its own: two more fit max_total, the fifth does not.
  open.push(sseSubscribe(gw.url, { query: QUERY, variables: { id: 'c' } }), sseSubscribe(gw.url, { query: QUERY, variables: { id: 'd' } }));
  await until(() => open.every((s) => s.events.length === 1), 'four subscriptions');
  const fifth = sseSubscribe(gw.url, { query: QUERY, variables: { id: 'e' } });
  await fifth.ended();
  assert.equal(code(fifth.events[0]?.errors), 'SUBSCRIPTION_LIMIT', 'over max_total');
  assert.equal(fifth.events.length, 1);

  const started = Date.now();
  const inTime = await gw.shutdown(10_000);
  assert.equal(inTime, true, 'every stream ended within the grace period');
  assert.ok(Date.now() - started < 5000, 'the drain did not wait for the grace period');
  await until(() => open.every((s) => s.completed), 'every stream completed');
  assert.ok(open.every((s) => s.error === undefined));
  await client.dispose();
});

test('an SSE stream carries a heartbeat every heartbeat_s', async () => {
  const fresh = await startGateway({ configPath: files.configPath, port: 0, host: '127.0.0.1' });
  const controller = new AbortController();
  try {
    const res = await fetch(fresh.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: QUERY, variables: { id: 'h' } }),
      signal: controller.signal,
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const decoder = new TextDecoder();
    // The opening comment, the first event, then a heartbeat comment within about a second.
    while (!/event: next[\s\S]*\n:\n\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    assert.match(text, /event: next\ndata: \{"data":\{"item":\{"value":1\}\}\}\n\n[\s\S]*:\n\n/);
  } finally {
    controller.abort();
    await fresh.close();
  }
});
