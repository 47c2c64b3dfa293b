/**
 * A small query over a cycle (Post → author → posts → author …) whose dedupe keeps upstream traffic
 * tiny can still ask for an enormous answer. The answer itself is bounded (docs/hardening.md
 * "Limits"): `limits.max_result_nodes` (values written) and `limits.max_response_bytes` (the
 * serialised answer); over either, 400 RESPONSE_LIMIT with no data, on every entrance, and the
 * measuring yields to the event loop, so another client's query is answered meanwhile.
 * The big variant with the defaults (a 72 MB answer) is in soak.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { requestError } from '../support/assert.js';
import { ENTRANCES, sendThrough } from '../support/entrances.js';
import { CYCLE_SCHEMA, cycleQuery, cycleRoutes } from '../support/cycle.js';

describe('the answer itself is bounded', () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    upstream = await startUpstream(cycleRoutes(10, (i) => (i === 9 ? 'x'.repeat(3000) : `post ${i}`)));
    gw = await startTestGateway({
      schemas: { 's.graphqls': CYCLE_SCHEMA },
      sources: { s: { url: upstream.url } },
      extraToml: '[limits]\nmax_result_nodes = 5000\nmax_response_bytes = 100000\n',
    });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });

  test('within both limits: the whole answer', async () => {
    const res = await gw.query(cycleQuery(2));
    assert.equal(res.status, 200);
    assert.equal((res.body.data?.posts as unknown[]).length, 10);
  });

  test('over max_result_nodes: 400 RESPONSE_LIMIT without data on every entrance, after the rounds it took', async () => {
    // 10 posts → 100 → 1,000 → 10,000: 3 fetches, about 22,000 values.
    for (const entrance of ENTRANCES) {
      upstream.reset();
      const res = await sendThrough(entrance, gw.url, { query: cycleQuery(4, 'id') });
      assert.equal(res.status, 400, entrance);
      const error = requestError(await res.json());
      assert.equal(error.extensions?.code, 'RESPONSE_LIMIT', entrance);
      assert.deepEqual(error.extensions?.limit, { key: 'max_result_nodes', value: 5000 });
      assert.match(error.message, /limits\.max_result_nodes/);
      assert.deepEqual(upstream.requests.map((r) => r.url).sort(), ['/posts', '/users/1/posts', '/users?ids=1']);
    }
  });

  test('over max_response_bytes: 400 RESPONSE_LIMIT', async () => {
    // 1,110 titles, 111 of them 3,000 characters: about 2,500 values but 330 KB.
    const res = await gw.query(cycleQuery(3));
    assert.equal(res.status, 400);
    const error = requestError(res.body);
    assert.equal(error.extensions?.code, 'RESPONSE_LIMIT');
    assert.deepEqual(error.extensions?.limit, { key: 'max_response_bytes', value: 100000 });
  });

  // A plain success is counted by the data writer while it writes it (the fast path), by the walk
  // everywhere else: a field asked many times is one value of the text, but as many values for the
  // limits, on every entrance.
  test('a field asked 50 times counts 50 times: over max_result_nodes on every entrance', async () => {
    // 10 posts → 100 posts below their authors, each with 50 id nodes: 5,131 values, 231 written.
    const ids = Array.from({ length: 50 }, () => 'id').join(' ');
    for (const entrance of ENTRANCES) {
      const res = await sendThrough(entrance, gw.url, { query: `{ posts { author { posts { ${ids} } } } }` });
      assert.equal(res.status, 400, entrance);
      assert.deepEqual(requestError(await res.json()).extensions?.limit, { key: 'max_result_nodes', value: 5000 }, entrance);
    }
  });

  test('a long title asked 40 times counts 40 times: over max_response_bytes on every entrance, though its text is 3 KB', async () => {
    const titles = Array.from({ length: 40 }, () => 'title').join(' ');
    for (const entrance of ENTRANCES) {
      const res = await sendThrough(entrance, gw.url, { query: `{ posts { ${titles} } }` });
      assert.equal(res.status, 400, entrance);
      assert.deepEqual(requestError(await res.json()).extensions?.limit, { key: 'max_response_bytes', value: 100000 }, entrance);
    }
    const once = await gw.query('{ posts { title } }');
    assert.equal(once.status, 200);
    assert.ok(JSON.stringify(once.body).length < 4000);
  });

  test('a custom-scalar value that makes the answer too large: 400 RESPONSE_LIMIT from the exact check of the bytes', async () => {
    for (const entrance of ENTRANCES) {
      const res = await sendThrough(entrance, gw.url, { query: '{ blob }' });
      assert.equal(res.status, 400, entrance);
      const error = requestError(await res.json());
      assert.equal(error.extensions?.code, 'RESPONSE_LIMIT', entrance);
      assert.deepEqual(error.extensions?.limit, { key: 'max_response_bytes', value: 100000 });
    }
  });
});

describe('measuring a huge answer leaves the event loop to others', () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    upstream = await startUpstream(cycleRoutes(30));
    gw = await startTestGateway({
      schemas: { 's.graphqls': CYCLE_SCHEMA },
      sources: { s: { url: upstream.url } },
      // The node bound out of the way: the answer (30^4 posts, ~50 MB) stops at 16 MiB of bytes.
      extraToml: '[limits]\nmax_result_nodes = 100000000\n',
    });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });

  test("another client's small query is answered while the big one is measured", async () => {
    await gw.query('{ __typename }'); // warm: the small query's document is prepared
    let bigDone = false;
    const big = gw.query(cycleQuery(4)).finally(() => {
      bigDone = true;
    });
    // Small queries one after another until the big one is answered; those answered after the
    // upstream has seen all three fetches were answered while the answer was being measured (a
    // walk that never yields leaves none: measured 0, against 4 or 5 with the yielding walk).
    let answeredWhileMeasured = 0;
    while (!bigDone) {
      const fetchesDone = upstream.count() === 3;
      const res = await gw.query('{ __typename }');
      assert.deepEqual(res.body.data, { __typename: 'Query' });
      if (!bigDone && fetchesDone) answeredWhileMeasured++;
    }
    const res = await big;
    assert.equal(res.status, 400);
    assert.equal(requestError(res.body).extensions?.code, 'RESPONSE_LIMIT');
    assert.equal(upstream.count(), 3);
    assert.ok(answeredWhileMeasured >= 2, `small queries answered while the big answer was measured: ${answeredWhileMeasured}`);
  });
});
