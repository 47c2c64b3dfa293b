/**
 * The upstream client against a real HTTP server: every method with and without a JSON body,
 * 204 and empty answers as null, and an error answer whose body stays out of the message and is
 * capped in the debug detail.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SourceClient, type HttpMethod } from '../../gateway/upstream/client.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

describe('upstream client: methods, bodies and empty answers', () => {
  let upstream: CountingUpstream;
  let client: SourceClient;

  before(async () => {
    const table: Record<string, (r: { method: string; body: string }) => { status?: number; json?: unknown; body?: string }> = {};
    for (const m of METHODS) {
      table[`${m} /echo`] = (r) => ({ json: { method: r.method, body: r.body } });
      table[`${m} /no-content`] = () => ({ status: 204, body: '' });
      table[`${m} /empty`] = () => ({ status: 200, body: '' });
      table[`${m} /fail`] = () => ({ status: 422, body: `secret-upstream-text ${'x'.repeat(5000)}` });
    }
    upstream = await startUpstream(table);
    client = new SourceClient({
      name: 'svc',
      url: upstream.url,
      timeoutMs: 2000,
      forwardHeaders: [],
      perCaller: false,
      maxResponseBytes: 1 << 20,
      connections: 4,
      maxQueued: 10,
      coalesce: false,
      batchAcrossRequests: false,
      batchWindowMs: 0,
    });
  });
  after(async () => {
    await client.close();
    await upstream.close();
  });

  for (const method of METHODS) {
    test(`${method} sends its method, JSON body and content-type`, async () => {
      upstream.reset();
      const body = JSON.stringify({ title: 'T', n: 1 });
      const outcome = await client.send({ method, path: '/echo', headers: { 'x-caller': 'a' }, body });
      assert.deepEqual(outcome, { kind: 'ok', body: { method, body } });
      const [seen] = upstream.requests;
      assert.equal(seen?.method, method);
      assert.equal(seen?.body, body);
      assert.equal(seen?.headers['content-type'], 'application/json');
      assert.equal(seen?.headers['x-caller'], 'a');
    });

    test(`${method}: a 204 and an empty 2xx body are null`, async () => {
      assert.deepEqual(await client.send({ method, path: '/no-content', headers: {} }), { kind: 'ok', body: null });
      assert.deepEqual(await client.send({ method, path: '/empty', headers: {} }), { kind: 'ok', body: null });
    });
  }

  test('without a body no content-type is sent', async () => {
    upstream.reset();
    await client.send({ method: 'DELETE', path: '/echo', headers: {} });
    assert.equal(upstream.requests[0]?.headers['content-type'], undefined);
    assert.equal(upstream.requests[0]?.body, '');
  });

  test('an error answer: status in the failure, body only in the capped detail', async () => {
    const outcome = await client.send({ method: 'POST', path: '/fail', headers: {}, body: '{}' });
    assert.equal(outcome.kind, 'error');
    if (outcome.kind !== 'error') return;
    assert.equal(outcome.error.code, 'UPSTREAM_HTTP_ERROR');
    assert.equal(outcome.error.status, 422);
    assert.equal(outcome.error.message, 'source "svc" answered HTTP 422');
    assert.match(outcome.error.detail, /^POST \/fail → 422: secret-upstream-text x+$/);
    assert.ok(outcome.error.detail.length < 600, `detail is ${outcome.error.detail.length} characters`);
  });
});
