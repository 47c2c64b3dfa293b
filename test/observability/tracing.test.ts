/**
 * OpenTelemetry traces (docs/observability.md) from the real gateway to a local OTLP/HTTP receiver
 * (protobuf and JSON): the span tree of a two-round batched query with its ids, names and
 * attributes; an incoming `traceparent` continued; every upstream request carrying the trace;
 * cache hits as round events; error statuses; coalesced calls linking the requests they served;
 * and a receiver that is down or hangs leaving answers and latency bounded, its spans counted as
 * dropped. Claims and tokens never reach a span.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { splitIds, startUpstream, type CountingUpstream } from '../support/upstream.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { parsePromText, sumOf } from '../support/prom-text.js';
import { pollUntil, until } from '../support/wait.js';
import { Gate } from '../support/gate.js';
import { keySet, makeKey, mintToken } from '../support/identity.js';

const SCHEMA = `
type Query {
  posts: [Post] @fetch(source: "posts", path: "/posts?limit=3")
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}") @cache(ttl: 60)
  broken: User @fetch(source: "users", path: "/broken")
  slow(id: ID!): User @fetch(source: "users", path: "/slow/{args.id}")
}
type Post {
  id: ID!
  authorId: ID @from(key: "author_id")
  author: User @fetch(source: "users", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id")
}
type User { id: ID! name: String }
`;
const FEED = 'query Feed { posts { id author { name } } }';
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

const newTraceId = () => randomBytes(16).toString('hex');
const newSpanId = () => randomBytes(8).toString('hex');
const ofTrace = (spans: readonly ReceivedSpan[], traceId: string) => spans.filter((s) => s.traceId === traceId);

function tracingToml(url: string, extra = ''): string {
  return `[tracing]\notlp_endpoint = "${url}"\nservice_name = "gqlgw-test"\nexport_delay_ms = 10\n${extra}`;
}

describe('[tracing] spans over OTLP/HTTP', () => {
  let posts: CountingUpstream;
  let users: CountingUpstream;
  let otlp: OtlpReceiver;
  let gw: TestGateway;
  let jsonGw: TestGateway;
  const gate = new Gate();

  before(async () => {
    posts = await startUpstream({
      'GET /posts': () => ({
        json: [
          { id: 'p1', author_id: 'u1' },
          { id: 'p2', author_id: 'u2' },
          { id: 'p3', author_id: 'u1' },
        ],
      }),
    });
    users = await startUpstream({
      'GET /users': ({ query }) => ({ json: splitIds(query.get('ids')).map((id) => ({ id, name: `name ${id}` })) }),
      'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: `name ${params.id}` } }),
      'GET /broken': () => ({ status: 500, body: 'down' }),
      'GET /slow/:id': async ({ params }) => {
        await gate.passed();
        return { json: { id: params.id, name: 'slow' } };
      },
    });
    otlp = await startOtlpReceiver();
    const sources = { posts: { url: posts.url }, users: { url: users.url } };
    gw = await startTestGateway({ sources, schemas: { 's.graphqls': SCHEMA }, extraToml: tracingToml(otlp.url) });
    jsonGw = await startTestGateway({
      sources,
      schemas: { 's.graphqls': SCHEMA },
      extraToml: tracingToml(otlp.url, 'protocol = "http/json"'),
    });
  });
  after(async () => {
    gate.open();
    await gw?.close();
    await jsonGw?.close();
    await Promise.all([posts?.close(), users?.close(), otlp?.close()]);
  });

  for (const protocol of ['http/protobuf', 'http/json'] as const) {
    it(`exports the span tree of a two-round batched query (${protocol}), continuing the caller's traceparent`, async () => {
      const target = protocol === 'http/json' ? jsonGw : gw;
      const traceId = newTraceId();
      const callerSpan = newSpanId();
      posts.reset();
      users.reset();
      const res = await target.query(FEED, undefined, { traceparent: `00-${traceId}-${callerSpan}-01` });
      assert.equal(res.status, 200);
      assert.equal(res.body.errors, undefined);
      const spans = ofTrace(await otlp.waitForSpans((s) => ofTrace(s, traceId).length >= 5, 'five spans of the trace'), traceId);
      assert.equal(spans.length, 5, JSON.stringify(spans.map((s) => s.name)));
      const want = protocol === 'http/json' ? 'application/json' : 'application/x-protobuf';
      assert.ok(
        otlp.requests.some((r) => r.contentType.startsWith(want)),
        `sent as ${want}`,
      );

      const server = spans.find((s) => s.kind === SERVER)!;
      assert.equal(server.name, 'query Feed');
      assert.equal(server.parentSpanId, callerSpan, 'continues the incoming trace');
      assert.equal(server.service, 'gqlgw-test');
      assert.deepEqual(server.attributes, {
        'graphql.operation.name': 'Feed',
        'graphql.operation.type': 'query',
        'gqlgw.document.hash': createHash('sha256').update(FEED).digest('hex'),
      });
      assert.equal(server.status.code, 0);

      const rounds = spans
        .filter((s) => s.name === 'gqlgw.round')
        .sort((a, b) => Number(a.attributes['gqlgw.round.index']) - Number(b.attributes['gqlgw.round.index']));
      assert.deepEqual(
        rounds.map((r) => [r.parentSpanId, r.attributes['gqlgw.round.index'], r.attributes['gqlgw.round.lookups']]),
        [
          [server.spanId, 1, 1],
          [server.spanId, 2, 3],
        ],
      );
      const clients = spans.filter((s) => s.kind === CLIENT);
      const postsCall = clients.find((c) => c.attributes['gqlgw.coordinate'] === 'Query.posts')!;
      const usersCall = clients.find((c) => c.attributes['gqlgw.coordinate'] === 'Post.author')!;
      assert.equal(postsCall.parentSpanId, rounds[0]!.spanId);
      assert.equal(usersCall.parentSpanId, rounds[1]!.spanId);
      assert.equal(postsCall.name, 'GET posts');
      assert.deepEqual(postsCall.attributes, {
        'http.request.method': 'GET',
        'url.path': '/posts',
        'gqlgw.coordinate': 'Query.posts',
        'gqlgw.source': 'posts',
        'http.response.status_code': 200,
      });
      assert.deepEqual(usersCall.attributes, {
        'http.request.method': 'GET',
        'url.path': '/users',
        'gqlgw.coordinate': 'Post.author',
        'gqlgw.source': 'users',
        'gqlgw.batch.size': 2,
        'http.response.status_code': 200,
      });

      // Every upstream request carried the trace, with its own client span as the parent.
      const sent = [...posts.requests, ...users.requests].map((r) => String(r.headers.traceparent));
      assert.deepEqual(sent.sort(), [`00-${traceId}-${postsCall.spanId}-01`, `00-${traceId}-${usersCall.spanId}-01`].sort());
    });
  }

  it('starts a new trace without a traceparent, and still sends one to every source', async () => {
    posts.reset();
    users.reset();
    const seen = otlp.spans.length;
    await gw.query('{ posts { author { id } } }');
    const [p, u] = [posts.requests[0]!, users.requests[0]!];
    const traceId = String(p.headers.traceparent).split('-')[1]!;
    assert.match(String(p.headers.traceparent), /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    assert.equal(String(u.headers.traceparent).split('-')[1], traceId, 'one trace for the whole request');
    const spans = ofTrace(await otlp.waitForSpans((s) => ofTrace(s.slice(seen), traceId).length >= 5, 'the new trace'), traceId);
    assert.equal(spans.find((s) => s.kind === SERVER)!.parentSpanId, '');
    assert.equal(spans.find((s) => s.kind === SERVER)!.name, 'query');
  });

  it('a cache hit is a gqlgw.cache.hit event on its round, not a span', async () => {
    await gw.query('{ user(id: 9) { name } }');
    const traceId = newTraceId();
    users.reset();
    await gw.query('{ user(id: 9) { name } }', undefined, { traceparent: `00-${traceId}-${newSpanId()}-01` });
    assert.equal(users.count(), 0);
    const spans = ofTrace(await otlp.waitForSpans((s) => ofTrace(s, traceId).length >= 2, 'server and round'), traceId);
    assert.deepEqual(spans.map((s) => s.name).sort(), ['gqlgw.round', 'query']);
    const round = spans.find((s) => s.name === 'gqlgw.round')!;
    assert.deepEqual(round.events, [
      { name: 'gqlgw.cache.hit', attributes: { 'gqlgw.cache.tier': 'l2', 'gqlgw.coordinate': 'Query.user', 'gqlgw.source': 'users' } },
    ]);
  });

  it('a failed subrequest sets its client span to error with the code; a request error sets the server span', async () => {
    const traceId = newTraceId();
    await gw.query('{ broken { id } }', undefined, { traceparent: `00-${traceId}-${newSpanId()}-01` });
    const spans = ofTrace(await otlp.waitForSpans((s) => ofTrace(s, traceId).length >= 3, 'the failed trace'), traceId);
    const client = spans.find((s) => s.kind === CLIENT)!;
    assert.deepEqual(client.status, { code: ERROR, message: 'UPSTREAM_HTTP_ERROR' });
    assert.equal(client.attributes['http.response.status_code'], 500);
    assert.equal(spans.find((s) => s.kind === SERVER)!.status.code, 0, 'a field error is no request error');

    const requestError = newTraceId();
    const res = await gw.query(
      'query Q($id: ID!) { user(id: $id) { id } }',
      { id: { not: 'an id' } },
      {
        traceparent: `00-${requestError}-${newSpanId()}-01`,
      },
    );
    assert.equal(res.body.data, undefined);
    const [server] = ofTrace(await otlp.waitForSpans((s) => ofTrace(s, requestError).length >= 1, 'the request error'), requestError);
    assert.equal(server!.status.code, ERROR);
  });

  it('a coalesced call links the round of every request it served', async () => {
    gate.close();
    const [leaderTrace, waiterTrace] = [newTraceId(), newTraceId()];
    users.reset();
    const leader = gw.query('{ slow(id: 1) { name } }', undefined, { traceparent: `00-${leaderTrace}-${newSpanId()}-01` });
    await until(() => users.count('GET /slow/:id') === 1, 'the leader reached the source');
    const waiter = gw.query('{ slow(id: 1) { name } }', undefined, { traceparent: `00-${waiterTrace}-${newSpanId()}-01` });
    await pollUntil(
      async () => sumOf(parsePromText((await gw.get('/metrics')).text), 'gqlgw_coalesced_total', { coordinate: 'Query.slow' }),
      (n) => n >= 1,
    );
    gate.open();
    await Promise.all([leader, waiter]);
    assert.equal(users.count('GET /slow/:id'), 1);
    const spans = await otlp.waitForSpans((s) => ofTrace(s, leaderTrace).length >= 3 && ofTrace(s, waiterTrace).length >= 2, 'both traces');
    const call = ofTrace(spans, leaderTrace).find((s) => s.kind === CLIENT)!;
    const waiterRound = ofTrace(spans, waiterTrace).find((s) => s.name === 'gqlgw.round')!;
    assert.deepEqual(call.links, [{ traceId: waiterTrace, spanId: waiterRound.spanId }]);
    assert.equal(ofTrace(spans, waiterTrace).filter((s) => s.kind === CLIENT).length, 0, 'the waiter sent nothing of its own');
  });
});

// The two cases at once: each has its own receiver and gateway, whose close waits out export_timeout_ms.
describe('[tracing] with a collector that is down or hangs', { concurrency: true }, () => {
  let users: CountingUpstream;
  let posts: CountingUpstream;

  before(async () => {
    users = await startUpstream({ 'GET /users': ({ query }) => ({ json: splitIds(query.get('ids')).map((id) => ({ id, name: id })) }) });
    posts = await startUpstream({ 'GET /posts': () => ({ json: [{ id: 'p1', author_id: 'u1' }] }) });
  });
  after(async () => {
    await Promise.all([users?.close(), posts?.close()]);
  });

  const dropped = async (gw: TestGateway) => sumOf(parsePromText((await gw.get('/metrics')).text), 'gqlgw_tracing_dropped_spans_total');

  for (const collector of ['down', 'hanging'] as const) {
    it(`answers every query within a bounded time and counts the spans it drops (${collector})`, async () => {
      const otlp = await startOtlpReceiver();
      if (collector === 'hanging') otlp.mode = 'hang';
      const url = otlp.url;
      if (collector === 'down') await otlp.close();
      const gw = await startTestGateway({
        sources: { users: { url: users.url }, posts: { url: posts.url } },
        schemas: { 's.graphqls': SCHEMA },
        extraToml: tracingToml(url, 'max_queue_spans = 8\nmax_batch_spans = 4\nexport_timeout_ms = 1500'),
      });
      try {
        assert.equal(await dropped(gw), 0);
        let slowest = 0;
        for (let i = 0; i < 30; i++) {
          const t0 = performance.now();
          const res = await gw.query(FEED);
          slowest = Math.max(slowest, performance.now() - t0);
          assert.equal(res.status, 200);
          assert.deepEqual(res.body.data, { posts: [{ id: 'p1', author: { name: 'u1' } }] });
        }
        assert.ok(slowest < 2000, `no query waited for the collector (slowest ${slowest.toFixed(0)} ms)`);
        // 30 queries of 5 spans: past the queue of 8 (and the batch in flight), spans are dropped and counted.
        const n = await pollUntil(
          () => dropped(gw),
          (v) => v >= 100,
        );
        assert.ok(n >= 100, `dropped spans counted: ${n}`);
      } finally {
        await gw.close();
        if (collector === 'hanging') await otlp.close();
      }
    });
  }
});

describe('[tracing] with [auth]', () => {
  it('never puts a token or a claim into a span: a path reading {auth.*} shows its template', async () => {
    const key = await makeKey('RS256', 'k');
    const dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-trace-auth-'));
    const jwks = path.join(dir, 'jwks.json');
    await writeFile(jwks, JSON.stringify(keySet([key])));
    const users = await startUpstream({ 'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: 'me' } }) });
    const otlp = await startOtlpReceiver();
    const gw = await startTestGateway({
      sources: { users: { url: users.url } },
      schemas: {
        's.graphqls': 'type Query { me: User @fetch(source: "users", path: "/users/{auth.sub}") }\ntype User { id: ID! name: String }',
      },
      extraToml: `${tracingToml(otlp.url)}\n[auth]\njwks = ${JSON.stringify(jwks)}\nissuer = "https://id.test.invalid"\naudience = "gqlgw"\n`,
    });
    try {
      const sub = 'subject-7f3a9c';
      const token = await mintToken(
        key,
        { sub, email: 'hidden@mail.test.invalid' },
        { issuer: 'https://id.test.invalid', audience: 'gqlgw' },
      );
      const traceId = newTraceId();
      const res = await gw.query('{ me { id } }', undefined, {
        authorization: `Bearer ${token}`,
        traceparent: `00-${traceId}-${newSpanId()}-01`,
      });
      assert.deepEqual(res.body.data, { me: { id: sub } });
      const bad = newTraceId();
      await gw.query('{ me { id } }', undefined, { authorization: `Bearer ${token}x`, traceparent: `00-${bad}-${newSpanId()}-01` });
      const spans = await otlp.waitForSpans((s) => ofTrace(s, traceId).length >= 3 && ofTrace(s, bad).length >= 1, 'both traces');
      assert.equal(ofTrace(spans, traceId).find((s) => s.kind === CLIENT)!.attributes['url.path'], '/users/{auth.sub}');
      assert.equal(ofTrace(spans, bad)[0]!.status.message, 'UNAUTHENTICATED');
      const exported = Buffer.concat([...otlp.bodies]).toString('latin1');
      for (const secret of [sub, token, 'hidden@mail.test.invalid', token.split('.')[1]!])
        assert.ok(!exported.includes(secret), `no ${secret.slice(0, 12)}…`);
    } finally {
      await gw.close();
      await Promise.all([users.close(), otlp.close()]);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
