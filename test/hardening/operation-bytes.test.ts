/**
 * One operation holds at most `limits.max_operation_upstream_bytes` of its sources' bodies,
 * counted as the bytes arrive (docs/hardening.md "Limits"): aliases × large answers cannot fill
 * the heap. Past it the answer being read is cut (its connection closed) and every later lookup
 * fails at once, nothing sent, each with UPSTREAM_BYTES_LIMIT at its path; what arrived within
 * the budget is served, and the next operation has a budget of its own.
 * The big variant with the default (64 MiB) is in soak.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const SCHEMA = `
type Query {
  doc(id: ID!): Doc @fetch(source: "s", path: "/docs/{args.id}")
}
type Doc { id: ID! text: String next: Doc @fetch(source: "s", path: "/docs/{parent.id}-next") }
`;

function aliasedDocs(n: number, selection = 'id'): string {
  return `{ ${Array.from({ length: n }, (_, i) => `d${i}: doc(id: "${i}") { ${selection} }`).join(' ')} }`;
}

describe('max_operation_upstream_bytes', () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    upstream = await startUpstream({
      'GET /docs/:id': ({ params }) => ({ json: { id: params.id, text: 'x'.repeat(30_000) } }),
    });
    gw = await startTestGateway({
      schemas: { 's.graphqls': SCHEMA },
      sources: { s: { url: upstream.url } },
      extraToml: '[limits]\nmax_operation_upstream_bytes = 100000\n',
    });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });

  test('within the budget: every field', async () => {
    const res = await gw.query(aliasedDocs(3));
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
  });

  test('past it: the fields whose bytes did not fit fail with UPSTREAM_BYTES_LIMIT, the rest are served', async () => {
    const res = await gw.query(aliasedDocs(6));
    assert.equal(res.status, 200);
    const data = res.body.data as Record<string, { id: string } | null>;
    const served = Object.values(data).filter((d) => d !== null).length;
    const errors = res.body.errors ?? [];
    assert.ok(served >= 1 && served <= 3, `at most 3 × 30 KB fit in 100 KB: ${served} served`);
    assert.equal(errors.length, 6 - served);
    for (const e of errors) {
      assert.equal(e.extensions?.code, 'UPSTREAM_BYTES_LIMIT', JSON.stringify(e));
      assert.equal(e.extensions?.source, 's');
      assert.match(e.message, /limits\.max_operation_upstream_bytes/);
      assert.equal(data[e.path![0] as string], null);
    }
  });

  test('a round after the budget is spent sends nothing', async () => {
    upstream.reset();
    const res = await gw.query(aliasedDocs(4, 'id next { id }'));
    const errors = res.body.errors ?? [];
    assert.ok(
      errors.some((e) => e.path?.length === 2 && e.extensions?.code === 'UPSTREAM_BYTES_LIMIT'),
      JSON.stringify(errors),
    );
    assert.equal(upstream.requests.filter((r) => r.path.endsWith('-next')).length, 0, 'no next was sent');
    const again = await gw.query(aliasedDocs(2));
    assert.equal(again.body.errors, undefined, 'the next operation has a budget of its own');
  });
});
