/**
 * What `_entities` costs (docs/federation.md): every lookup of a request's
 * `_entities` fields in one round, deduped per type and key across the list and across aliases,
 * batched in chunks of `max`; a failed chunk nulls only its own entries; metrics name the lookup.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { splitIds } from '../support/routes.js';

const SCHEMA = `
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Query { item(id: ID!): Item @fetch(source: "items", path: "/items/{args.id}") }
type Item @key(fields: "id")
  @lookup(key: "id", source: "items", path: "/items/{key.id}")
  @lookupBatch(key: "id", path: "/items?ids={keys}", match: "id", max: 2) {
  id: ID!
  title: String
}
type Thing @key(fields: "id")
  @lookup(key: "id", source: "items", path: "/things/{key.id}", select: "data")
  @lookupBatch(key: "id", path: "/things?id={keys}", repeat: true, select: "data.items", match: "thing_id") {
  id: ID! @from(key: "thing_id")
  label: String
}
`;

const ENTITIES =
  'query ($r: [_Any!]!) { a: _entities(representations: $r) { ... on Item { id title } } b: _entities(representations: $r) { ... on Item { title } } }';
const rep = (id: string) => ({ __typename: 'Item', id });

describe('_entities batching', () => {
  let items: CountingUpstream;
  let gw: TestGateway;
  before(async () => {
    items = await startUpstream({
      'GET /things': ({ query }) => ({
        json: { data: { items: query.getAll('id').map((id) => ({ thing_id: Number(id), label: `Thing ${id}` })) } },
      }),
      'GET /items': ({ query }) => {
        const ids = splitIds(query.get('ids'));
        if (ids.includes('bad')) return { status: 500, body: 'down' };
        if (ids.includes('proto')) {
          const others = ids.filter((id) => id !== 'proto').map((id) => `, ${JSON.stringify({ id, title: `Item ${id}` })}`);
          const text = `[{"id": "proto", "title": "Proto", "__proto__": {"polluted": true}}${others.join('')}]`;
          return { body: text, headers: { 'content-type': 'application/json' } };
        }
        return { json: ids.filter((id) => id !== 'gone').map((id) => ({ id, title: `Item ${id}` })) };
      },
    });
    gw = await startTestGateway({ sources: { items: { url: items.url } }, schemas: { 'items.graphqls': SCHEMA } });
  });
  after(async () => {
    await gw.close();
    await items.close();
  });

  test('repeated representations and aliased _entities fields: one round, each key asked once, chunks of max', async () => {
    items.reset();
    const res = await gw.query(ENTITIES, { r: [rep('1'), rep('2'), rep('1'), rep('3'), rep('2')] });
    assert.equal(res.body.errors, undefined);
    const item = (id: string) => ({ id, title: `Item ${id}` });
    assert.deepEqual(res.body.data, {
      a: [item('1'), item('2'), item('1'), item('3'), item('2')],
      b: ['1', '2', '1', '3', '2'].map((id) => ({ title: `Item ${id}` })),
    });
    assert.deepEqual(debugCounts(res), { rounds: 1, subrequests: 2, batches: 2 });
    assert.deepEqual(items.requests.map((r) => r.url).sort(), ['/items?ids=1,2', '/items?ids=3']);
  });

  test('a failed chunk nulls only its own entries, errors at ["_entities", i]; not found is null without error', async () => {
    items.reset();
    const res = await gw.query(ENTITIES.replace(/ b: _entities.*\} \}$/, ' }'), { r: [rep('1'), rep('gone'), rep('3'), rep('bad')] });
    assert.deepEqual((res.body.data as { a: unknown[] }).a, [{ id: '1', title: 'Item 1' }, null, { id: '3', title: 'Item 3' }, null]);
    assert.deepEqual(
      (res.body.errors ?? []).map((e) => [e.path, e.extensions?.code]),
      [[['a', 3], 'UPSTREAM_HTTP_ERROR']],
    );
    // [1, gone] answers; [3, bad] fails and is sent again as two halves: only bad fails.
    assert.deepEqual(
      items.requests.map((r) => r.url),
      ['/items?ids=1,gone', '/items?ids=3,bad', '/items?ids=3', '/items?ids=bad'],
    );
  });

  test('"__proto__" in a representation or in a lookup answer is a key like any other, never a prototype', async () => {
    const text =
      '{"query": "query ($r: [_Any!]!) { _entities(representations: $r) { ... on Item { id title } } }", "variables": {"r": [{"__typename": "Item", "id": "proto", "__proto__": {"title": "injected"}}, {"__typename": "Item", "id": "1", "constructor": 1}]}}';
    const res = await gw.post(text);
    const body = res.body as { data: { _entities: unknown[] }; errors?: unknown };
    assert.equal(body.errors, undefined);
    assert.deepEqual(body.data._entities, [
      { id: 'proto', title: 'Proto' },
      { id: '1', title: 'Item 1' },
    ]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('a lookup batch in an envelope, keys as repeated parameters, ids back as numbers, read through @from', async () => {
    items.reset();
    const res = await gw.query('query ($r: [_Any!]!) { _entities(representations: $r) { ... on Thing { id label } } }', {
      r: [
        { __typename: 'Thing', id: '7' },
        { __typename: 'Thing', id: '9' },
      ],
    });
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data, {
      _entities: [
        { id: '7', label: 'Thing 7' },
        { id: '9', label: 'Thing 9' },
      ],
    });
    assert.deepEqual(
      items.requests.map((r) => r.url),
      ['/things?id=7&id=9'],
    );
  });

  test('metrics name the lookup by its coordinate Type.@lookup(key)', async () => {
    const metrics = await gw.get('/metrics');
    assert.match(metrics.text, /gqlgw_batches_total\{coordinate="Item\.@lookup\(id\)"\} \d+/);
  });
});
