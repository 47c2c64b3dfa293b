/**
 * `[rate_limit]` and subscriptions (docs/live-data.md): every tick of a polled subscription is an
 * operation the executor admits, so it is charged its planned bound to its client's bucket; a tick
 * the bucket refuses sends nothing upstream and one `RATE_LIMITED` event, and the subscription goes
 * on. Two clients (by `client_header`) never share a poll or a bucket.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { sseSubscribe } from '../support/live-clients.js';
import { parsePromText, valueOf } from '../support/prom-text.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { pollUntil } from '../support/wait.js';

const SCHEMA = `
type Query { item(id: ID!): Item @fetch(source: "up", path: "/items/{args.id}") }
type Subscription { item(id: ID!): Item @fetch(source: "up", path: "/items/{args.id}") @poll(every: 1) }
type Item { id: ID! value: Int }
`;
const OP = { query: 'subscription { item(id: "a") { id value } }' };

let up: CountingUpstream;
let gw: TestGateway;
let served = 0;

before(async () => {
  // Every answer differs, so every admitted tick sends an event.
  up = await startUpstream({ 'GET /items/:id': (r) => ({ json: { id: r.params.id, value: ++served } }) });
  gw = await startTestGateway({
    schemas: { 's.graphqls': SCHEMA },
    sources: { up: { url: up.url } },
    extraToml: '[rate_limit]\ncost = 2\nper_s = 3600\nclient_header = "x-api-key"\n',
  });
});
after(async () => {
  await gw?.close();
  await up?.close();
});

const refusals = async (): Promise<number> =>
  valueOf(parsePromText((await gw.get('/metrics')).text), 'gqlgw_rate_limited_total', { reason: 'budget' }) ?? 0;

test('each tick is charged to its client: past the bucket a tick sends nothing and one RATE_LIMITED event, and the stream goes on', async () => {
  const a = sseSubscribe(gw.url, OP, { 'x-api-key': 'client-a' });
  try {
    await a.events_(3, 8000);
    assert.deepEqual(
      a.events.slice(0, 2).map((e) => e.data),
      [{ item: { id: 'a', value: 1 } }, { item: { id: 'a', value: 2 } }],
    );
    assert.equal(a.events[2]!.data ?? null, null);
    assert.equal(a.events[2]!.errors?.[0]?.extensions?.code, 'RATE_LIMITED', JSON.stringify(a.events[2]));
    assert.equal(up.count(), 2, 'the refused tick sent nothing');
    // Another tick is refused too (counted, nothing sent), and the stream is still open.
    const refusedBefore = await refusals();
    await pollUntil(refusals, (n) => n > refusedBefore, 4000);
    assert.equal(up.count(), 2);
    assert.equal(a.completed || a.error !== undefined, false, 'the subscription goes on');
    for (const e of a.events.slice(2)) assert.equal(e.errors?.[0]?.extensions?.code, 'RATE_LIMITED', JSON.stringify(e));

    // Another client has its own bucket and its own poll.
    const b = sseSubscribe(gw.url, OP, { 'x-api-key': 'client-b' });
    try {
      await b.events_(1);
      assert.equal(b.events[0]!.errors, undefined, JSON.stringify(b.events[0]));
      assert.ok(up.count() >= 3, 'its poll was sent');
    } finally {
      b.dispose();
    }
  } finally {
    a.dispose();
  }
});
