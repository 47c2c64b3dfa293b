/**
 * The benchmark's own parts against real servers (no timing assertions): the backends, the peers
 * and their subrequest counts, the checker, the verification pass, the open-loop driver and wrk's
 * per-key check, and the guard that reports a config this build rejects.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { startBackend } from '../../bench/backend.js';
import { NoiseCheck } from '../../bench/driver/noise.js';
import { runOpenLoop } from '../../bench/driver/open-loop.js';
import { backendRequestCount, checkAnswer, queryOnce, verifyServer } from '../../bench/driver/verify.js';
import { checkWrk, runWrk } from '../../bench/driver/wrk.js';
import { startRole } from '../../bench/peers/roles.js';
import { ROWS, unsupportedBy } from '../../bench/rows.js';
import { EXPECTED_ANSWER, EXPECTED_BODY, LOOKUP_WORKLOADS, REQUEST_BODY, lookupRequest } from '../../bench/shared/data.js';
import { listen, readBody, type Listening } from '../../bench/shared/http.js';
import { BENCH_SRC_DIR } from '../../bench/shared/paths.js';

const getJson = async (url: string): Promise<unknown> => (await request(url)).body.json();
const blogProbes = (n: number): Array<{ request: string; expected: unknown }> =>
  Array.from({ length: n }, () => ({ request: REQUEST_BODY, expected: EXPECTED_ANSWER }));
const lookupBytes = (w: 'a' | 'b', key: number): string => JSON.stringify(LOOKUP_WORKLOADS[w].answer(key));

describe('bench smoke', () => {
  let backend: Listening;
  let pool: Listening;
  let ceiling: Listening;

  before(async () => {
    backend = await startRole('backend');
    pool = await startRole('pool-backend');
    ceiling = await startRole('ceiling', { backendUrl: backend.url });
  });

  after(async () => {
    await ceiling?.close();
    await pool?.close();
    await backend?.close();
  });

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
      assert.deepEqual(
        answers.map((u) => u.id),
        keys,
      );
      assert.deepEqual(await getJson(`${slow.url}/__stats`), { requests: 40, maxInService: 16 });
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
      assert.ok(made >= 2 && made <= 20, `20 concurrent requests (40 lookups) cost ${made} backend calls`);
    } finally {
      await dataLoader.close();
      await perRequest.close();
    }
  });

  it('wrk checks every answer against its own key: a server that swaps keys is counted wrong', async (t) => {
    try {
      checkWrk();
    } catch (error) {
      assert.match((error as Error).message, /apt-get install -y wrk/);
      return t.diagnostic('wrk is not installed: asserted the instruction instead');
    }
    const exchanges = [1, 2, 3, 4].map((k) => ({ request: lookupRequest('a', k), expected: lookupBytes('a', k) }));
    let n = 0;
    const swapping = await listen(
      createServer((req, res) => {
        void readBody(req).then((body) => {
          const key = Number((JSON.parse(body) as { variables: { id: string } }).variables.id);
          res.end(lookupBytes('a', n++ % 5 === 4 ? (key % 4) + 1 : key));
        });
      }),
      0,
      '/graphql',
    );
    const perRequest = await startRole('lookup-per-request', { backendUrl: pool.url });
    try {
      const right = await runWrk(perRequest.url, 4, 1, exchanges);
      assert.ok(right.responses > 20 && right.wrong === 0, JSON.stringify(right));
      const swapped = await runWrk(swapping.url, 4, 1, exchanges);
      assert.ok(swapped.wrong >= swapped.responses / 6 && swapped.wrong <= swapped.responses / 4, JSON.stringify(swapped));
      assert.match(swapped.wrongSample ?? '', /^200 \{"data":\{"user"/);
    } finally {
      await perRequest.close();
      await swapping.close();
    }
  });

  it('a gqlgw row whose config this build rejects is reported with the problem, and an accepted one is run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-guard-'));
    const sources = '[sources.posts]\nurl = "http://127.0.0.1:1"\n[sources.users]\nurl = "http://127.0.0.1:1"\n';
    writeFileSync(
      join(dir, 'x.toml'),
      `[gateway]\nschema = ["${join(BENCH_SRC_DIR, 'variants/batch.graphqls')}"]\nno_such_key = 1\n${sources}`,
    );
    const row = { ...ROWS.find((r) => r.id === 'gqlgw-batch')!, config: join(dir, 'x') };
    assert.match(unsupportedBy(row) ?? '', /no_such_key/);
    assert.equal(unsupportedBy(ROWS.find((r) => r.id === 'gqlgw-batch')!), undefined);
    assert.equal(unsupportedBy(ROWS.find((r) => r.id === 'lookup-dataloader')!), undefined, 'peers need no check');
  });

  it('the noise flag marks a reading over 1.25 × the usual time of its core', () => {
    const noise = new NoiseCheck();
    assert.equal(noise.observe([10, 20]), false);
    assert.equal(noise.observe([10.5, 20]), false);
    assert.equal(noise.observe([13, 20]), true, 'server core slowed');
    assert.equal(noise.observe([10, 26]), true, 'load core slowed');
    assert.equal(noise.observe([12, 24]), false, 'within 1.25 ×');
  });
});
