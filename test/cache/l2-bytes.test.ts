/**
 * L2 is bounded by bytes as well as entries (docs/caching.md): `[cache] l2_max_bytes` (the JSON
 * length of the values it holds; default 256 MiB) evicts the least recently used entries past it,
 * and a value longer than `[cache] max_value_bytes` is never put in L2. Seen from outside: which
 * repeated queries the source has to answer again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const SCHEMA = `
type Query {
  doc(id: ID!): Doc @fetch(source: "s", path: "/docs/{args.id}") @cache(ttl: 300)
}
type Doc { id: ID! text: String }
`;

/** Doc `big` is 60 KB; every other is 10 KB. */
const sizeOf = (id: string): number => (id === 'big' ? 60_000 : 10_000);

describe('L2 holds at most l2_max_bytes, and no value over max_value_bytes', () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    upstream = await startUpstream({
      'GET /docs/:id': ({ params }) => ({ json: { id: params.id, text: 'x'.repeat(sizeOf(params.id)) } }),
    });
    gw = await startTestGateway({
      schemas: { 's.graphqls': SCHEMA },
      sources: { s: { url: upstream.url } },
      extraToml: '[cache]\nl2_max_bytes = 35000\nmax_value_bytes = 50000\n',
    });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });

  const fetchDoc = async (id: string): Promise<void> => {
    const res = await gw.query(`{ doc(id: "${id}") { id } }`);
    assert.deepEqual(res.body.data, { doc: { id } });
  };

  test('past l2_max_bytes the least recently used entries go', async () => {
    for (const id of ['a', 'b', 'c']) await fetchDoc(id); // 30 KB: all kept
    upstream.reset();
    for (const id of ['a', 'b', 'c']) await fetchDoc(id);
    assert.equal(upstream.count(), 0, 'three 10 KB values fit in 35 KB');
    await fetchDoc('d'); // 40 KB: the least recently used (a) goes
    upstream.reset();
    await fetchDoc('d');
    await fetchDoc('c');
    await fetchDoc('b');
    assert.equal(upstream.count(), 0, 'd, c, b are still there');
    await fetchDoc('a');
    assert.deepEqual(
      upstream.requests.map((r) => r.path),
      ['/docs/a'],
      'a was evicted by bytes, not by entries',
    );
  });

  test('a value over max_value_bytes is never put in L2', async () => {
    await fetchDoc('big');
    upstream.reset();
    await fetchDoc('big');
    assert.equal(upstream.count(), 1, 'the 60 KB value was fetched again');
  });
});
