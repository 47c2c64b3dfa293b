/**
 * The benchmark's own parts against real servers (no timing assertions): the backends, the peers
 * (Hive Gateway's OpenAPI source included) and their subrequest counts, the tiny workload's rows, the checker, the verification pass, the open-loop driver and wrk's
 * per-key check, the config check; and, with gqlgw started from its bench config (the ports moved to
 * this test's servers), the tracing row's exports to the OTLP sink (and the allocation meter every
 * measured server has) and the revalidation rows' 304s.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { startBackend } from '../../../bench/backend.js';
import { runClosedLoad } from '../../../bench/driver/closed-loop.js';
import { checkWrk, runWrk } from '../../../bench/driver/wrk.js';
import { NoiseCheck } from '../../../bench/driver/noise.js';
import { runOpenLoop } from '../../../bench/driver/open-loop.js';
import type { StartedProcess } from '../../../bench/driver/processes.js';
import { backendRequestCount, checkAnswer, queryOnce, serviceStats, verifyServer } from '../../../bench/driver/verify.js';
import { startOtlpSink } from '../../../bench/otlp-sink.js';
import { runLive } from '../../../bench/live.js';
import { EVENT_STREAM_HEAD } from '../../../gateway/server/live-sse-streams.js';
import { startRole } from '../../../bench/peers/roles.js';
import { configProblem, ROWS, startRow } from '../../../bench/rows.js';
import {
  EXPECTED_ANSWER,
  EXPECTED_BODY,
  LOOKUP_WORKLOADS,
  REQUEST_BODY,
  TINY_ANSWER,
  TINY_BODY,
  TINY_REQUEST,
  lookupRequest,
} from '../../../bench/shared/data.js';
import { listen, readBody, type Listening } from '../../../bench/shared/http.js';
import { BENCH_SRC_DIR } from '../../../bench/shared/paths.js';
import { pollUntil } from '../../support/wait.js';

const getJson = async (url: string): Promise<unknown> => (await request(url)).body.json();
const blogProbes = (n: number): Array<{ request: string; expected: unknown }> =>
  Array.from({ length: n }, () => ({ request: REQUEST_BODY, expected: EXPECTED_ANSWER }));
const lookupBytes = (w: 'a' | 'b', key: number): string => JSON.stringify(LOOKUP_WORKLOADS[w].answer(key));
/** Whether wrk is on PATH; without it, the bench's instruction to install it is what is asserted. */
function wrkInstalled(): boolean {
  try {
    return checkWrk() !== undefined;
  } catch (error) {
    assert.match((error as Error).message, /apt-get install -y wrk/);
    return false;
  }
}

/** gqlgw with row `id`'s bench config, each `127.0.0.1:PORT` replaced by `urls[PORT]`, [tracing] exporting after 10 ms. */
function startGqlgw(id: string, urls: Readonly<Record<string, string>>): Promise<StartedProcess> {
  const row = ROWS.find((r) => r.id === id)!;
  const toml = readFileSync(join(BENCH_SRC_DIR, `${row.config}.toml`), 'utf8')
    .replace(/"variants\//g, `"${join(BENCH_SRC_DIR, 'variants')}/`)
    .replace(/http:\/\/127\.0\.0\.1:(\d+)/g, (_, port: string) => urls[port] ?? `no URL for port ${port}`)
    .replace(/^\[tracing\].*$/m, '$&\nexport_delay_ms = 10');
  const base = join(mkdtempSync(join(tmpdir(), 'bench-row-')), row.config!);
  writeFileSync(`${base}.toml`, toml);
  return startRow({ ...row, config: base }, '');
}

describe('bench smoke', () => {
  let backend: Listening;
  let pool: Listening;
  let ceiling: Listening;

  before(async () => {
    backend = await startRole('backend');
    pool = await startRole('pool-backend');
    ceiling = await startRole('ceiling', { backendUrl: backend.url });
  });

  after(() => Promise.all([ceiling?.close(), pool?.close(), backend?.close()]));

  it('the backend serves posts, single records, and batches matched by id in any order', async () => {
    assert.deepEqual(await getJson(`${backend.url}/posts?limit=2`), [
      { id: 1, title: 'Post 1', author_id: 38 },
      { id: 2, title: 'Post 2', author_id: 75 },
    ]);
    assert.deepEqual(await getJson(`${backend.url}/posts/3`), { id: 3, title: 'Post 3', author_id: 112 });
    const ids = (url: string): Promise<number[]> => getJson(url).then((list) => (list as Array<{ id: number }>).map((u) => u.id));
    assert.deepEqual(await ids(`${backend.url}/users?ids=1,2,10001`), [2, 1]);
    const missing = await request(`${backend.url}/users/10001`);
    await missing.body.dump();
    assert.equal(missing.statusCode, 404);
  });

  it('the pool-bound backend serves 16 requests at once and queues the rest', async () => {
    const slow = await startBackend({ inService: 16, delayMs: 50 });
    try {
      const keys = Array.from({ length: 40 }, (_, i) => i + 1);
      const answers = await Promise.all(keys.map((k) => getJson(`${slow.url}/users/${k}`) as Promise<{ id: number }>));
      const ids = answers.map((u) => u.id);
      assert.deepEqual(ids, keys);
      const bodyBytes = answers.reduce((sum, u) => sum + JSON.stringify(u).length, 0);
      assert.deepEqual(await getJson(`${slow.url}/__stats`), { requests: 40, maxInService: 16, bodyBytes, notModified: 0 });
    } finally {
      await slow.close();
    }
  });

  it('verification accepts the ceiling with 2 subrequests per query and the no-batch peer with 101', async () => {
    const verification = await verifyServer(ceiling.url, backend.url, blogProbes(2));
    assert.deepEqual(verification, { ok: true, bodies: [EXPECTED_BODY, EXPECTED_BODY], subrequests: [2, 2] });
    const noBatch = await startRole('no-batch', { backendUrl: backend.url });
    try {
      assert.deepEqual(await verifyServer(noBatch.url, backend.url, blogProbes(1)), {
        ok: true,
        bodies: [EXPECTED_BODY],
        subrequests: [101],
      });
    } finally {
      await noBatch.close();
    }
  });

  it('Hive Gateway through its OpenAPI source answers the blog query byte for byte, with 1 + 100 subrequests', async () => {
    const hive = await startRole('hive-openapi', { backendUrl: backend.url });
    try {
      assert.deepEqual(await verifyServer(hive.url, backend.url, blogProbes(2)), {
        ok: true,
        bodies: [EXPECTED_BODY, EXPECTED_BODY],
        subrequests: [101, 101],
      });
    } finally {
      await hive.close();
    }
  });

  it('the tiny workload: gqlgw and the floor answer { __typename } with the same bytes and no backend call', async () => {
    const probes = [0, 1].map(() => ({ request: TINY_REQUEST, expected: TINY_ANSWER }));
    const floor = await startRole('floor-tiny');
    const gqlgw = await startGqlgw('gqlgw-tiny', { 4801: backend.url });
    try {
      const expected = { ok: true, bodies: [TINY_BODY, TINY_BODY], subrequests: [0, 0] };
      assert.deepEqual(await verifyServer(floor.url, backend.url, probes), expected);
      assert.deepEqual(await verifyServer(gqlgw.url, backend.url, probes), expected);
    } finally {
      await gqlgw.stop();
      await floor.close();
    }
  });

  it('the checker rejects wrong data, errors, statuses and non-JSON, and ignores formatting', () => {
    const swapped = structuredClone(EXPECTED_ANSWER);
    swapped.data.posts[41]!.author.name = 'User 0';
    assert.match(checkAnswer(200, JSON.stringify(swapped), EXPECTED_ANSWER) ?? '', /not the expected answer: .*User 0/s);
    assert.match(checkAnswer(200, JSON.stringify({ ...EXPECTED_ANSWER, errors: [] }), EXPECTED_ANSWER) ?? '', /errors/);
    assert.match(
      checkAnswer(200, JSON.stringify({ data: { posts: EXPECTED_ANSWER.data.posts.slice(1) } }), EXPECTED_ANSWER) ?? '',
      /expected/,
    );
    assert.match(checkAnswer(500, EXPECTED_BODY, EXPECTED_ANSWER) ?? '', /HTTP status 500/);
    assert.match(checkAnswer(200, EXPECTED_BODY.slice(1), EXPECTED_ANSWER) ?? '', /not JSON/);
    assert.equal(checkAnswer(200, JSON.stringify(EXPECTED_ANSWER, null, 2), EXPECTED_ANSWER), undefined);
  });

  it('the open-loop driver counts right and wrong bodies', async () => {
    const options = { url: ceiling.url, ratePerSec: 40, durationSec: 0.25, warmupSec: 0, expectedBody: EXPECTED_BODY };
    const right = await runOpenLoop(options);
    assert.deepEqual([right.wrong, right.responses, right.unanswered], [0, 10, 0], right.wrongSample);
    const wrong = await runOpenLoop({ ...options, expectedBody: `${EXPECTED_BODY} ` });
    assert.deepEqual([wrong.wrong, wrong.responses], [10, 10]);
  });

  it('the lookup peers answer each key: one call per lookup, or one call for the keys of concurrent requests', async () => {
    const perRequest = await startRole('lookup-per-request', { backendUrl: pool.url });
    const dataLoader = await startRole('lookup-dataloader', { backendUrl: pool.url });
    try {
      const probes = (['a', 'b'] as const).map((w) => ({ request: lookupRequest(w, 77), expected: LOOKUP_WORKLOADS[w].answer(77) }));
      const bodies = [lookupBytes('a', 77), lookupBytes('b', 77)];
      assert.deepEqual(await verifyServer(perRequest.url, pool.url, probes), { ok: true, bodies, subrequests: [1, 2] });
      const keys = Array.from({ length: 20 }, (_, i) => 100 + i * 37);
      await Promise.all(keys.map((k) => queryOnce(dataLoader.url, lookupRequest('a', k)))); // opens the connections
      const calls = await backendRequestCount(pool.url);
      const answers = await Promise.all(keys.map((k) => queryOnce(dataLoader.url, lookupRequest('b', k))));
      assert.deepEqual(answers.map((a) => a.body).join('\n'), keys.map((k) => lookupBytes('b', k)).join('\n'));
      const made = (await backendRequestCount(pool.url)) - calls;
      // A peer that shares nothing makes 40 calls whatever the load; a sharing one fewer.
      assert.ok(made >= 2 && made < 40, `20 concurrent requests (40 lookups) cost ${made} backend calls`);
    } finally {
      await dataLoader.close();
      await perRequest.close();
    }
  });

  it('the keyed closed loop checks every answer against its own key, and counts only answers inside its window', async () => {
    const exchanges = [1, 2, 3, 4].map((k) => ({ request: lookupRequest('a', k), expected: lookupBytes('a', k) }));
    let [n, served] = [0, 0];
    const swapping = await listen(
      createServer((req, res) => {
        void readBody(req).then((body) => {
          const key = Number((JSON.parse(body) as { variables: { id: string } }).variables.id);
          served++;
          res.end(lookupBytes('a', n++ % 5 === 4 ? (key % 4) + 1 : key));
        });
      }),
      0,
      '/graphql',
    );
    const perRequest = await startRole('lookup-per-request', { backendUrl: pool.url });
    try {
      const right = await runClosedLoad(perRequest.url, 4, 1, exchanges);
      assert.ok(right.responses > 20 && right.wrong === 0, JSON.stringify(right));
      const swapped = await runClosedLoad(swapping.url, 64, 1, exchanges);
      assert.ok(swapped.wrong >= swapped.responses / 6 && swapped.wrong <= swapped.responses / 4, JSON.stringify(swapped));
      assert.match(swapped.wrongSample ?? '', /^200 \{"data":\{"user"/);
      // Every answer the server gave was sent inside the window; those still in flight at its end are not counted.
      assert.ok(swapped.responses <= served && swapped.responses >= served - 64, `${swapped.responses} counted, ${served} served`);
      assert.ok(Math.abs(swapped.durationSec - 1) < 1e-9 && swapped.rps === swapped.responses, JSON.stringify(swapped));
      await assert.rejects(runWrk(swapping.url, 4, 1, exchanges), /wrk sends one exchange, not 4/);
      if (!wrkInstalled()) return;
      const one = await runWrk(swapping.url, 4, 1, exchanges.slice(0, 1)); // wrk: key 1 always, answered as key 2 one time in five
      assert.ok(one.wrong >= one.responses / 6 && one.wrong <= one.responses / 4, JSON.stringify(one));
    } finally {
      await perRequest.close();
      await swapping.close();
    }
  });

  it("names the problem of a config gqlgw check rejects (the run stops on it), and accepts every gqlgw row's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-guard-'));
    const sources = '[sources.posts]\nurl = "http://127.0.0.1:1"\n[sources.users]\nurl = "http://127.0.0.1:1"\n';
    const toml = `[gateway]\nschema = ["${join(BENCH_SRC_DIR, 'variants/batch.graphqls')}"]\nno_such_key = 1\n${sources}`;
    writeFileSync(join(dir, 'x.toml'), toml);
    const [rejected, ...problems] = await Promise.all([
      configProblem({ ...ROWS.find((r) => r.id === 'gqlgw-batch')!, config: join(dir, 'x') }),
      ...ROWS.map((row) => configProblem(row)),
    ]);
    assert.match(rejected ?? '', /no_such_key/);
    for (const [i, row] of ROWS.entries()) assert.equal(problems[i], undefined, row.id);
  });

  it('the noise flag marks a reading over 1.25 × the usual time of its core', () => {
    const noise = new NoiseCheck();
    assert.equal(noise.observe([10, 20]), false);
    assert.equal(noise.observe([10.5, 20]), false);
    assert.equal(noise.observe([13, 20]), true, 'server core slowed');
    assert.equal(noise.observe([10, 26]), true, 'load core slowed');
    assert.equal(noise.observe([12, 24]), false, 'within 1.25 ×');
  });

  it('"gqlgw batch, tracing on, sample 1.0" answers right, with 2 subrequests, and its spans reach the OTLP sink', async () => {
    const sink = await startOtlpSink();
    const gqlgw = await startGqlgw('gqlgw-batch-tracing', { 4801: backend.url, 4804: `${sink.url}/v1/traces` });
    try {
      const allocated0 = await gqlgw.allocatedBytes();
      const verified = await verifyServer(gqlgw.url, backend.url, blogProbes(2));
      assert.deepEqual(verified.ok && verified.subrequests, [2, 2]);
      // The allocation meter preloaded into every measured server answers, and counts the queries' allocations.
      const allocated1 = await gqlgw.allocatedBytes();
      assert.ok(Number.isFinite(allocated0) && allocated1 - allocated0 > 10_000, `${allocated0} → ${allocated1} bytes`);
      const stats = await pollUntil(
        () => serviceStats(sink.url),
        (s) => s.exports! > 0,
        10_000,
      );
      assert.ok(stats.exports! > 0 && stats.bytes! > 200, JSON.stringify(stats));
      const metrics = await (await fetch(new URL('/metrics', gqlgw.url))).text();
      assert.doesNotMatch(metrics, /^gqlgw_tracing_dropped_spans_total(\{.*\})? [1-9]/m, 'the sink accepted every export');
    } finally {
      await gqlgw.stop();
      await sink.close();
    }
  });

  it('revalidation rows: the expired entry is fetched again, answered 304 without a body with revalidate = true, whole without', async () => {
    const body = JSON.stringify({ id: 7, name: 'User 7', email: 'user7@example.test' });
    const refetch = async (id: string): Promise<Readonly<Record<string, number>>> => {
      const etag = await startRole('etag-backend');
      const gqlgw = await startGqlgw(id, { 4803: etag.url });
      try {
        const ask = async (): Promise<Readonly<Record<string, number>>> => {
          const answer = await queryOnce(gqlgw.url, lookupRequest('a', 7));
          assert.equal(checkAnswer(answer.status, answer.body, LOOKUP_WORKLOADS.a.answer(7)), undefined);
          return serviceStats(etag.url);
        };
        assert.deepEqual(await ask(), { requests: 1, maxInService: 1, bodyBytes: body.length, notModified: 0 });
        assert.equal((await ask()).requests, 1, 'the second answer comes from the cache');
        return await pollUntil(ask, (s) => s.requests! >= 2, 10_000);
      } finally {
        await gqlgw.stop();
        await etag.close();
      }
    };
    const [on, off] = await Promise.all([refetch('gqlgw-revalidate-on'), refetch('gqlgw-revalidate-off')]);
    assert.deepEqual(on, { requests: 2, maxInService: 1, bodyBytes: body.length, notModified: 1 });
    assert.deepEqual(off, { requests: 2, maxInService: 1, bodyBytes: 2 * body.length, notModified: 0 });
  });
  it('the live phase: 50 SSE subscribers of 50 keys, one @batch call per tick, events after changes and webhook deliveries', async () => {
    const live = await runLive({ subscribers: 50, every: 1, ticks: 2, webhooks: 5 });
    assert.deepEqual([live.connected, live.webhookEvents, live.events > 0], [50, 5, true], 'subscribed, webhook events, change events');
    assert.ok(live.callsPerTick.length >= 1 && live.callsPerTick.every((n) => n === 1), `calls per tick ${live.callsPerTick.join(', ')}`);
    assert.ok(Number.isFinite(live.floorKbPerSubscriber), `the floor server's memory per stream: ${live.floorKbPerSubscriber}`);
  });
  it("the live phase's floor: node:http holding SSE streams, one next event each, nothing of GraphQL", async () => {
    const floor = await startRole('floor-sse');
    try {
      const res = await request(floor.url, {
        method: 'POST',
        body: '{"query":"subscription { item(id: 1) { value } }"}',
        headers: { accept: 'text/event-stream' },
      });
      // The head gqlgw sends on an event stream, header for header (what Node adds besides: date, transfer-encoding).
      const head = Object.fromEntries(Object.keys(EVENT_STREAM_HEAD).map((name) => [name, res.headers[name]]));
      assert.deepEqual([res.statusCode, head], [200, EVENT_STREAM_HEAD]);
      for await (const chunk of res.body) {
        assert.equal(String(chunk), 'event: next\ndata: {"data":{"item":{"value":"0.0"}}}\n\n');
        break;
      }
    } finally {
      await floor.close();
    }
  });
});
