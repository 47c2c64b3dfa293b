/**
 * Smoke test of the benchmark's own parts (no timing assertions): the backend, the hand-written
 * ceiling and no-batch peers, the answer checker, the verification pass, the open-loop driver's response check,
 * and that bench/variants/*.graphqls are what bench/schema.graphqls renders to.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { warmBackend } from '../../bench/driver/backend-warmup.js';
import { runOpenLoop } from '../../bench/driver/open-loop.js';
import { queryOnce, verifyServer } from '../../bench/driver/verify.js';
import { startRole } from '../../bench/peers/roles.js';
import { checkAnswer } from '../../bench/shared/check.js';
import { EXPECTED_ANSWER, EXPECTED_BODY, FRONT_EXPECTED_BODY, FRONT_REQUEST_BODY } from '../../bench/shared/data.js';
import type { Listening } from '../../bench/shared/http-server.js';
import { BENCH_SRC_DIR } from '../../bench/shared/paths.js';
import { renderVariantSchemas, variantSchemaPath } from '../../bench/variants.js';
import { item } from '../support/assert.js';

/** The expected answer with one change applied to a deep copy. */
function mutated(change: (posts: Array<{ id: string; title: string; author: { name: string } | null }>) => void): string {
  const copy = JSON.parse(EXPECTED_BODY) as { data: { posts: Array<{ id: string; title: string; author: { name: string } | null }> } };
  change(copy.data.posts);
  return JSON.stringify(copy);
}

describe('bench smoke', () => {
  let backend: Listening;
  let ceiling: Listening;

  before(async () => {
    backend = await startRole('backend');
    ceiling = await startRole('ceiling', { backendUrl: backend.url });
  });

  after(async () => {
    await ceiling?.close();
    await backend?.close();
  });

  it('the backend serves posts, single users, and batches matched by id in any order', async () => {
    const posts = (await (await request(`${backend.url}/posts?limit=3`)).body.json()) as Array<{ id: number; author_id: number }>;
    assert.deepEqual(
      posts.map((p) => p.id),
      [1, 2, 3],
    );
    const batch = (await (await request(`${backend.url}/users?ids=1,2,999`)).body.json()) as Array<{ id: number }>;
    assert.deepEqual(
      batch.map((u) => u.id),
      [2, 1],
    );
    const missing = await request(`${backend.url}/users/999`);
    await missing.body.dump();
    assert.equal(missing.statusCode, 404);
  });

  it("the backend warm-up sends the rows' kinds of request for its time and counts those answered", async () => {
    const stats = async (): Promise<number> =>
      ((await (await request(`${backend.url}/__stats`)).body.json()) as { requests: number }).requests;
    const counted = await stats();
    const started = performance.now();
    const answered = await warmBackend(backend.url, 0.3, 4);
    const took = performance.now() - started;
    assert.ok(answered > 20, `only ${answered} answered`);
    assert.equal((await stats()) - counted, answered, 'every request sent was answered 200 and counted by the backend');
    assert.ok(took >= 300 && took < 2000, `took ${took} ms`);
  });

  it('the checker accepts the ceiling answer, and verification counts its 2 subrequests', async () => {
    const answer = await queryOnce(ceiling.url);
    assert.deepEqual(checkAnswer(answer.status, answer.body), { ok: true });
    assert.equal(answer.body, EXPECTED_BODY);
    const verification = await verifyServer(ceiling.url, backend.url);
    assert.ok(verification.ok, JSON.stringify(verification));
    assert.equal(verification.subrequestsFirst, 2);
    assert.equal(verification.subrequestsLater, 2);
    assert.equal(EXPECTED_ANSWER.data.posts.length, 100);
    assert.equal(new Set(EXPECTED_ANSWER.data.posts.map((p) => p.author?.name)).size, 100, '100 distinct authors');
  });

  it('the hand-written no-batch peer answers the same with 1 + 100 subrequests', async () => {
    const noBatch = await startRole('no-batch', { backendUrl: backend.url });
    try {
      const verification = await verifyServer(noBatch.url, backend.url);
      assert.ok(verification.ok, JSON.stringify(verification));
      assert.equal(verification.body, EXPECTED_BODY);
      assert.equal(verification.subrequestsFirst, 101);
    } finally {
      await noBatch.close();
    }
  });

  it("the front reference (compare-builds' front variant) parses the body and answers { __typename } with no backend", async () => {
    const front = await startRole('front');
    try {
      assert.deepEqual(await queryOnce(front.url, FRONT_REQUEST_BODY), { status: 200, body: '{"data":{"__typename":"Query"}}' });
      assert.equal(FRONT_EXPECTED_BODY, '{"data":{"__typename":"Query"}}');
      const bad = await queryOnce(front.url, '{not json');
      assert.equal(bad.status, 500, 'a body it cannot parse is an error: it really parses');
    } finally {
      await front.close();
    }
  });

  it('the checker rejects wrong answers and says where', () => {
    const reject = (status: number, body: string, reason: RegExp): void => {
      const result = checkAnswer(status, body);
      assert.equal(result.ok, false, body.slice(0, 80));
      if (!result.ok) assert.match(result.reason, reason);
    };
    reject(
      200,
      mutated((p) => ((item(p, 41).author as { name: string }).name = 'User 0')),
      /data\.posts\[41\]\.author\.name: expected "User \d+", got "User 0"/,
    );
    reject(
      200,
      mutated((p) => (item(p, 7).author = null)),
      /data\.posts\[7\]\.author: expected an object/,
    );
    reject(
      200,
      mutated((p) => p.pop()),
      /expected 100 items, got 99/,
    );
    reject(
      200,
      mutated((p) => p.reverse()),
      /data\.posts\[0\]\.id: expected "1", got "100"/,
    );
    reject(
      200,
      mutated((p) => (item(p, 0).id = 1 as unknown as string)),
      /data\.posts\[0\]\.id: expected "1", got 1/,
    );
    reject(
      200,
      mutated((p) => Object.assign(item(p, 3), { extra: true })),
      /unexpected field\(s\) extra/,
    );
    reject(200, JSON.stringify({ ...JSON.parse(EXPECTED_BODY), errors: [{ message: 'x' }] }), /response has errors/);
    reject(500, EXPECTED_BODY, /HTTP status 500/);
    reject(200, EXPECTED_BODY.slice(0, -1), /not JSON/);
    assert.deepEqual(checkAnswer(200, JSON.stringify(JSON.parse(EXPECTED_BODY), null, 2)), { ok: true }, 'formatting does not matter');
  });

  it('the open-loop driver counts right and wrong bodies', async () => {
    const right = await runOpenLoop({ url: ceiling.url, ratePerSec: 40, durationSec: 0.25, warmupSec: 0.05, expectedBody: EXPECTED_BODY });
    assert.equal(right.wrong, 0, right.wrongSample);
    assert.equal(right.responses, 10);
    const wrong = await runOpenLoop({
      url: ceiling.url,
      ratePerSec: 40,
      durationSec: 0.25,
      warmupSec: 0,
      expectedBody: mutated((p) => p.pop()),
    });
    assert.equal(wrong.wrong, 10);
    assert.match(wrong.wrongSample ?? '', /^200 \{"data"/);
  });

  it('bench/variants/*.graphqls are what bench/schema.graphqls renders to', () => {
    const rendered = renderVariantSchemas(readFileSync(join(BENCH_SRC_DIR, 'schema.graphqls'), 'utf8'));
    assert.equal(rendered.size, 3);
    for (const [variant, text] of rendered) {
      assert.equal(
        readFileSync(join(BENCH_SRC_DIR, variantSchemaPath(variant)), 'utf8'),
        text,
        `${variant}: regenerate with npm run bench`,
      );
      assert.equal(text.match(/^type Post /gm)?.length, 1, `${variant} declares Post once`);
    }
    assert.doesNotMatch(rendered.get('no-batch') ?? '', /@batch/);
    assert.match(rendered.get('batch') ?? '', /@batch/);
    assert.doesNotMatch(rendered.get('batch') ?? '', /@cache/);
    assert.match(rendered.get('batch-cache') ?? '', /@cache\(ttl: 300\)/);
  });
});
