import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startUpstream, type CountingUpstream, type RecordedRequest } from '../support/upstream.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { sseSubscribe, wsClient, type Subscriber } from '../support/live-clients.js';
import { parsePromText, valueOf } from '../support/prom-text.js';
import { pollUntil, until } from '../support/wait.js';

// One gateway for the polling tests (docs/live-data.md): `every: 1`, ticks awaited by what the
// counting upstream received or by the poll counter, never by a sleep.
const SCHEMA = `
type Query { item(id: ID!): Item @fetch(source: "up", path: "/items/{args.id}") @cache(ttl: 60) }
type Subscription {
  item(id: ID!): Item @fetch(source: "up", path: "/items/{args.id}") @cache(ttl: 60) @poll(every: 1)
  thing(id: ID!): Item @fetch(source: "up", path: "/things/{args.id}") @batch(path: "/things?ids={keys}", match: "id", max: 50) @poll(every: 1)
}
type Item { id: ID! value: Int }
`;

let up: CountingUpstream;
let gw: TestGateway;
const values = new Map<string, number>();
const valueOfKey = (id: string): number => values.get(id) ?? 0;
/** When each @batch call arrived. */
const arrivals: number[] = [];

before(async () => {
  up = await startUpstream({
    // A single fetch with a validator: If-None-Match of the current ETag is answered 304.
    'GET /items/:id': (r) => {
      const etag = `"v${valueOfKey(r.params.id)}"`;
      if (r.headers['if-none-match'] === etag) return { status: 304, body: '', headers: { etag } };
      return { json: { id: r.params.id, value: valueOfKey(r.params.id) }, headers: { etag } };
    },
    'GET /things': (r) => (
      arrivals.push(Date.now()),
      { json: (r.query.get('ids') ?? '').split(',').map((id) => ({ id, value: valueOfKey(id) })) }
    ),
  });
  gw = await startTestGateway({
    schemas: { 'schema/live.graphqls': SCHEMA },
    sources: { up: { url: up.url } },
    extraToml: '[subscriptions]\nmax_per_connection = 1000',
  });
});

after(async () => {
  await gw?.close();
  await up?.close();
});

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  return valueOf(parsePromText((await gw.get('/metrics')).text), name, labels) ?? 0;
}

test('SSE: the first event comes at once, then one event per change, in order; a 304 sends none', async () => {
  values.set('a', 1);
  const s = sseSubscribe(gw.url, { query: 'subscription { item(id: "a") { id value } }' });
  try {
    await s.events_(1);
    assert.equal(up.count('GET /items/:id'), 1, 'the first event came from the poll made when it joined, not a tick');
    // Two more ticks with nothing changed: each one a conditional poll answered 304, no event.
    await until(() => up.requestsFor('GET /items/:id').length >= 3, 'two more polls', 4000);
    const polls = up.requestsFor('GET /items/:id');
    assert.equal(polls[0]!.headers['if-none-match'], undefined, 'the first poll has no validator yet');
    assert.equal(polls[1]!.headers['if-none-match'], '"v1"', 'a poll revalidates with the ETag it got');
    assert.equal(s.events.length, 1, 'a 304 sends no event');
    for (const next of [2, 3, 4]) {
      values.set('a', next);
      await s.events_(next);
    }
    assert.deepEqual(
      s.events.map((e) => e.errors),
      [undefined, undefined, undefined, undefined],
    );
    assert.deepEqual(
      s.events.map((e) => e.data),
      [1, 2, 3, 4].map((value) => ({ item: { id: 'a', value } })),
    );
    assert.ok((await metric('gqlgw_poll_calls_total', { coordinate: 'Subscription.item', result: 'not_modified' })) >= 2);
    assert.ok((await metric('gqlgw_poll_calls_total', { coordinate: 'Subscription.item', result: 'changed' })) >= 4);
    assert.equal(await metric('gqlgw_subscriptions_active', { coordinate: 'Subscription.item' }), 1);
    assert.ok((await metric('gqlgw_subscription_events_total', { coordinate: 'Subscription.item' })) >= 4);
  } finally {
    s.dispose();
  }
});

test('WebSocket: 450 subscribers of 450 keys of a @batch field cost ceil(450 / 50) calls per tick, the tick in slices of whole chunks; a disconnect ends their polls', async () => {
  const client = wsClient(gw.url);
  const keys = Array.from({ length: 450 }, (_, i) => `k${i}`);
  const subs: Subscriber[] = keys.map((id) =>
    client.subscriber({ query: 'subscription($id: ID!) { thing(id: $id) { value } }', variables: { id } }),
  );
  try {
    await until(() => subs.every((s) => s.events.length >= 1), 'every first event', 8000);
    up.reset();
    arrivals.length = 0;
    const polled = await metric('gqlgw_poll_calls_total', { coordinate: 'Subscription.thing', result: 'unchanged' });
    // A tick's calls arrive within 40 ms (three slices, 20 ms apart); ticks are a second apart. Some tick polls all 450 keys.
    await until(() => ticksOf(up).some((tick) => keysOf(tick).size === 450), 'a tick that polled every key', 10_000);
    const whole = ticksOf(up).find((tick) => keysOf(tick).size === 450)!;
    assert.equal(whole.length, 9, 'the whole tick: 450 keys in nine chunks of 50');
    assert.ok(whole.every((r) => r.query.get('ids')!.split(',').length === 50));
    assert.ok(
      ticksOf(up).every((tick) => tick.length <= 9),
      'no tick costs more than ceil(450 / 50) calls',
    );
    const tickPolls = await pollUntil(
      () => metric('gqlgw_poll_calls_total', { coordinate: 'Subscription.thing', result: 'unchanged' }),
      (v) => v >= polled + 450,
      4000,
    );
    assert.ok(tickPolls >= polled + 450, 'one poll per subscriber group per tick');
    // A changed key reaches its subscriber only.
    values.set('k7', 70);
    await subs[7]!.events_(2);
    assert.deepEqual(subs[7]!.events[1]!.data, { thing: { value: 70 } });
    assert.equal(subs[8]!.events.length, 1);
  } finally {
    await client.dispose();
  }
  const active = await pollUntil(
    () => metric('gqlgw_subscriptions_active', { coordinate: 'Subscription.thing' }),
    (v) => v === 0,
  );
  assert.equal(active, 0, 'a disconnect ends its subscriptions at once');
});

test('subscribers of one key (different selections, SSE and WebSocket) share one call per tick; keys nobody watches are polled no more', async () => {
  values.set('one', 5);
  const client = wsClient(gw.url);
  const subs = [
    ...Array.from({ length: 5 }, () => sseSubscribe(gw.url, { query: 'subscription { thing(id: "one") { value } }' })),
    client.subscriber({ query: 'subscription { thing(id: "one") { id value } }' }),
    client.subscriber({ query: 'subscription { t: thing(id: "one") { value } }' }),
  ];
  try {
    await until(() => subs.every((s) => s.events.length === 1), 'every first event', 5000);
    const polledBefore = await metric('gqlgw_poll_calls_total', { coordinate: 'Subscription.thing', result: 'unchanged' });
    up.reset();
    // Three groups (three documents): a tick is three polls and one call.
    const now = await pollUntil(
      () => metric('gqlgw_poll_calls_total', { coordinate: 'Subscription.thing', result: 'unchanged' }),
      (v) => v >= polledBefore + 3,
      4000,
    );
    assert.ok(now >= polledBefore + 3, 'a tick polled the three groups');
    assert.equal(up.count('GET /things'), Math.ceil((now - polledBefore) / 3), 'one call per tick');
    assert.deepEqual([...askedKeys(up)], ['one'], 'the 450 keys of the last test are polled no more');
    values.set('one', 6);
    await until(() => subs.every((s) => s.events.length === 2), 'the change reached every subscriber', 4000);
    assert.deepEqual(subs[6]!.events[1]!.data, { t: { value: 6 } });
  } finally {
    for (const s of subs) s.dispose();
    await client.dispose();
  }
});

test('a failed poll sends an event with the error at its path, and the subscription goes on', async () => {
  values.set('f', 1);
  const s = sseSubscribe(gw.url, { query: 'subscription { item(id: "f") { value } }' });
  try {
    await s.events_(1);
    up.setRoute('GET /items/:id', () => ({ status: 500, json: { error: 'down' } }));
    await s.events_(2);
    assert.equal(s.events[1]!.errors?.[0]?.extensions?.code, 'UPSTREAM_HTTP_ERROR');
    assert.deepEqual(s.events[1]!.errors?.[0]?.path, ['item']);
    up.setRoute('GET /items/:id', (r) => ({ json: { id: r.params.id, value: 9 } }));
    await s.events_(3);
    assert.deepEqual(s.events[2]!.data, { item: { value: 9 } });
    assert.equal(s.completed, false);
    assert.ok((await metric('gqlgw_poll_calls_total', { coordinate: 'Subscription.item', result: 'error' })) >= 1);
  } finally {
    s.dispose();
  }
});

/** The @batch calls since the last reset, in bursts: calls less than 300 ms apart are one tick's. */
function ticksOf(upstream: CountingUpstream): RecordedRequest[][] {
  const ticks: RecordedRequest[][] = [];
  let last = -Infinity;
  const calls = upstream.requestsFor('GET /things');
  for (const [i, r] of calls.entries()) {
    const at = arrivals[i] ?? Date.now();
    if (at - last > 300 || ticks.length === 0) ticks.push([]);
    ticks[ticks.length - 1]!.push(r);
    last = at;
  }
  return ticks;
}

function keysOf(calls: readonly RecordedRequest[]): Set<string> {
  return new Set(calls.flatMap((r) => r.query.get('ids')!.split(',')));
}

/** Every key the upstream was asked for in @batch calls since its last reset. */
function askedKeys(upstream: CountingUpstream): Set<string> {
  return new Set(upstream.requestsFor('GET /things').flatMap((r) => r.query.get('ids')!.split(',')));
}
