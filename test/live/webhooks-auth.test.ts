import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { sseSubscribe, wsClient } from '../support/live-clients.js';
import { keySet, makeKey, mintToken, type TestKey } from '../support/identity.js';
import { parsePromText, valueOf } from '../support/prom-text.js';
import { loopTurns, until } from '../support/wait.js';

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'gqlgw';
const SECRET = 'webhook-secret-for-tests';

// `every: 60` for the webhook field: an event within the test's time can only come from a delivery.
const SCHEMA = `
type Query { ticket(id: ID!): Ticket @fetch(source: "tickets", path: "/tickets/{args.id}") @cache(ttl: 300) }
type Subscription {
  ticket(id: ID!): Ticket @fetch(source: "tickets", path: "/tickets/{args.id}") @cache(ttl: 300) @poll(every: 60)
    @webhook(name: "tickets", key: "ticket.id")
  mine(id: ID!): Ticket @fetch(source: "private", path: "/mine/{args.id}") @poll(every: 1)
}
type Ticket { id: ID! status: String }
`;

let up: CountingUpstream;
let gw: TestGateway;
let dir: string;
let key: TestKey;
const status = new Map<string, string>();

before(async () => {
  up = await startUpstream({
    'GET /tickets/:id': (r) => ({ json: { id: r.params.id, status: status.get(r.params.id) ?? 'new' } }),
    // Whose call it is, as the source sees it: the forwarded token.
    'GET /mine/:id': (r) => ({ json: { id: r.params.id, status: String(r.headers.authorization).slice(-6) } }),
  });
  dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-live-'));
  key = await makeKey('RS256', 'k1');
  await writeFile(path.join(dir, 'jwks.json'), JSON.stringify(keySet([key])));
  gw = await startTestGateway({
    schemas: { 'schema/live.graphqls': SCHEMA },
    sources: { tickets: { url: up.url }, private: { url: up.url, forwardHeaders: ['authorization'] } },
    extraToml: [
      `[auth]\njwks = ${JSON.stringify(path.join(dir, 'jwks.json'))}\nissuer = "${ISSUER}"\naudience = "${AUDIENCE}"`,
      `[webhooks.tickets]\npath = "/hooks/tickets"\nsecret = "${SECRET}"\nsignature_header = "x-signature"\nsignature_prefix = "sha256="`,
    ].join('\n\n'),
  });
});

after(async () => {
  await gw?.close();
  await up?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function deliver(body: string, signature: string): Promise<Response> {
  return fetch(`${gw.origin}/hooks/tickets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature': signature },
    body,
  });
}

const sign = (body: string, encoding: 'hex' | 'base64') => `sha256=${createHmac('sha256', SECRET).update(body).digest(encoding)}`;

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  return valueOf(parsePromText((await gw.get('/metrics')).text), name, labels) ?? 0;
}

test('a signed webhook delivery polls its key at once and drops its cache entries; a bad signature is 401 and changes nothing', async () => {
  status.set('7', 'open');
  const s = sseSubscribe(gw.url, { query: 'subscription { ticket(id: "7") { id status } }' });
  try {
    await s.events_(1);
    assert.deepEqual(s.events[0]!.data, { ticket: { id: '7', status: 'open' } });
    status.set('7', 'solved');
    const calls = up.count('GET /tickets/:id');
    const body = JSON.stringify({ ticket: { id: 7, subject: 'printer' } });
    const refused = await deliver(body, sign(body + ' ', 'hex'));
    assert.equal(refused.status, 401);
    assert.equal((await deliver(body, 'sha256=' + 'a'.repeat(64))).status, 401);
    await loopTurns(10);
    assert.equal(up.count('GET /tickets/:id'), calls, 'a refused delivery triggers nothing');
    assert.equal(s.events.length, 1);
    const sent = Date.now();
    const accepted = await deliver(body, sign(body, 'hex'));
    assert.equal(accepted.status, 204);
    await s.events_(2, 5000);
    assert.ok(Date.now() - sent < 5000, `the event comes with the delivery, not a tick (60 s) later: ${Date.now() - sent} ms`);
    assert.deepEqual(s.events[1]!.data, { ticket: { id: '7', status: 'solved' } });
    // base64 works as well; an unchanged value sends no event.
    assert.equal((await deliver(body, sign(body, 'base64'))).status, 204);
    await until(() => up.count('GET /tickets/:id') === calls + 2, 'the second delivery polled');
    await loopTurns(10);
    assert.equal(s.events.length, 2);
  } finally {
    s.dispose();
  }
  // A key nobody watches: its cache entry is dropped, so the next query asks the source.
  status.set('8', 'open');
  assert.deepEqual((await gw.query('{ ticket(id: "8") { status } }')).body.data, { ticket: { status: 'open' } });
  status.set('8', 'closed');
  assert.deepEqual((await gw.query('{ ticket(id: "8") { status } }')).body.data, { ticket: { status: 'open' } }, 'cached');
  const body8 = JSON.stringify({ ticket: { id: '8' } });
  assert.equal((await deliver(body8, sign(body8, 'hex'))).status, 204);
  assert.deepEqual((await gw.query('{ ticket(id: "8") { status } }')).body.data, { ticket: { status: 'closed' } }, 'dropped');
  const big = JSON.stringify({ ticket: { id: '8' }, pad: 'x'.repeat(1024 * 1024) });
  assert.equal((await deliver(big, sign(big, 'hex'))).status, 413);
  assert.equal(await metric('gqlgw_webhook_deliveries_total', { name: 'tickets', result: 'accepted' }), 3);
  assert.equal(await metric('gqlgw_webhook_deliveries_total', { name: 'tickets', result: 'refused' }), 3);
});

test('two forwarded tokens never share a poll, over SSE and WebSocket', async () => {
  const alice = await mintToken(key, { sub: 'alice' }, { issuer: ISSUER, audience: AUDIENCE });
  const bob = await mintToken(key, { sub: 'bob' }, { issuer: ISSUER, audience: AUDIENCE });
  const query = 'subscription { mine(id: "1") { status } }';
  const a = sseSubscribe(gw.url, { query }, { authorization: `Bearer ${alice}` });
  const client = wsClient(gw.url, { authorization: `Bearer ${bob}` });
  const b = client.subscriber({ query });
  try {
    await a.events_(1);
    await b.events_(1);
    assert.deepEqual(a.events[0]!.data, { mine: { status: alice.slice(-6) } });
    assert.deepEqual(b.events[0]!.data, { mine: { status: bob.slice(-6) } });
    up.reset();
    await until(() => up.count('GET /mine/:id') >= 4, 'two ticks', 4000);
    const tokens = up.requestsFor('GET /mine/:id').map((r) => r.headers.authorization);
    assert.equal(tokens.filter((t) => t === `Bearer ${alice}`).length, tokens.filter((t) => t === `Bearer ${bob}`).length);
    assert.ok(tokens.every((t) => t === `Bearer ${alice}` || t === `Bearer ${bob}`));
  } finally {
    a.dispose();
    await client.dispose();
  }
});

test('a token that expires ends its subscription with UNAUTHENTICATED; a bad token is refused when subscribing', async () => {
  // Valid for about two more seconds: `exp` 28 s ago, within the 30 s clock skew.
  const expiring = await mintToken(key, { sub: 'carol' }, { issuer: ISSUER, audience: AUDIENCE, expiresInS: -28 });
  const s = sseSubscribe(gw.url, { query: 'subscription { mine(id: "2") { status } }' }, { authorization: `Bearer ${expiring}` });
  const client = wsClient(gw.url, { authorization: 'Bearer not-a-token' });
  const refused = client.subscriber({ query: 'subscription { mine(id: "2") { status } }' });
  try {
    await s.events_(1);
    assert.equal(s.events[0]!.errors, undefined);
    await s.ended(5000);
    const last = s.events[s.events.length - 1]!;
    assert.equal(last.errors?.[0]?.extensions?.code, 'UNAUTHENTICATED');
    assert.equal(s.completed, true);
    await refused.ended();
    assert.equal((refused.error as Array<{ extensions?: Record<string, unknown> }>)[0]?.extensions?.code, 'UNAUTHENTICATED');
  } finally {
    s.dispose();
    await client.dispose();
  }
});
