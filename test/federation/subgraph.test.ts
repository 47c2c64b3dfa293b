/**
 * gqlgw as a Federation v2 subgraph, asked directly as a router would (docs/federation.md): `_service { sdl }` and `_entities` over the compatibility suite's products
 * schema written with gqlgw directives, with the REST calls behind each answer counted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { stripIgnoredCharacters } from 'graphql';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import type { CountingUpstream } from '../support/upstream.js';
import { PRODUCTS_SCHEMA, startProductsRest } from './products-fixture.js';

const ENTITIES =
  'query ($r: [_Any!]!) { _entities(representations: $r) { __typename ...on Product { id sku } ...on User { email name } ...on DeprecatedProduct { dsku: sku dpackage: package reason } ...on ProductResearch { study { caseNumber description } } } }';

describe('the products subgraph', () => {
  let rest: CountingUpstream;
  let gw: TestGateway;
  before(async () => {
    rest = await startProductsRest();
    gw = await startTestGateway({ sources: { rest: { url: rest.url } }, schemas: { 'products.graphqls': PRODUCTS_SCHEMA } });
  });
  after(async () => {
    await gw.close();
    await rest.close();
  });

  test('_service { sdl } is the schema file without gqlgw directives', async () => {
    const res = await gw.query('{ _service { sdl } }');
    assert.equal(res.body.errors, undefined);
    const sdl = (res.body.data as { _service: { sdl: string } })._service.sdl;
    const flat = stripIgnoredCharacters(sdl);
    assert.doesNotMatch(flat, /@(lookup|lookupBatch|fetch|from|batch|cache)\b/);
    assert.match(flat, /type Product@custom@key\(fields:"id"\)@key\(fields:"sku package"\)@key\(fields:"sku variation { id }"\)\{/);
    assert.match(flat, /extend type User@key\(fields:"email"\)\{/);
    assert.match(flat, /averageProductsCreatedPerYear:Int@requires\(fields:"totalProductsCreated yearsOfEmployment"\)/);
    assert.match(flat, /extend schema@link\(url:"https:\/\/specs.apollo.dev\/federation\/v2.3"/);
    assert.doesNotMatch(flat, /_entities|_Any|_Service/);
  });

  test('_entities: one entry per representation, in order, with one call per key style', async () => {
    rest.reset();
    const r = [
      { __typename: 'Product', id: 'apollo-federation' },
      { __typename: 'Product', sku: 'federation', package: '@apollo/federation' },
      { __typename: 'Product', sku: 'studio', variation: { id: 'platform' } },
      { __typename: 'User', email: 'support@apollographql.com' },
      { __typename: 'DeprecatedProduct', sku: 'apollo-federation-v1', package: '@apollo/federation-v1' },
      { __typename: 'ProductResearch', study: { caseNumber: '1234' } },
      { __typename: 'Product', id: 'apollo-studio' },
    ];
    const res = await gw.query(ENTITIES, { r });
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data, {
      _entities: [
        { __typename: 'Product', id: 'apollo-federation', sku: 'federation' },
        { __typename: 'Product', id: 'apollo-federation', sku: 'federation' },
        { __typename: 'Product', id: 'apollo-studio', sku: 'studio' },
        { __typename: 'User', email: 'support@apollographql.com', name: 'Jane Smith' },
        {
          __typename: 'DeprecatedProduct',
          dsku: 'apollo-federation-v1',
          dpackage: '@apollo/federation-v1',
          reason: 'Migrate to Federation V2',
        },
        { __typename: 'ProductResearch', study: { caseNumber: '1234', description: 'Federation Study' } },
        { __typename: 'Product', id: 'apollo-studio', sku: 'studio' },
      ],
    });
    assert.deepEqual(debugCounts(res), { rounds: 1, subrequests: 6, batches: 3 });
    assert.deepEqual(rest.requests.map((q) => `${q.method} ${q.url}${q.body ? ` ${q.body}` : ''}`).sort(), [
      'GET /deprecated-products/apollo-federation-v1/%40apollo%2Ffederation-v1',
      'GET /products/by-variation/studio/platform',
      'GET /products?ids=apollo-federation,apollo-studio',
      'GET /research?cases=1234',
      'GET /users/support%40apollographql.com',
      'POST /products/by-sku {"keys": [{"sku":"federation","package":"@apollo/federation"}]}',
    ]);
  });

  test('errors per representation; not found is null without error', async () => {
    rest.reset();
    const r = [
      { __typename: 'Produkt', id: 'x' },
      { __typename: 'Product', id: 'nope' },
      { __typename: 'Product', upc: '1' },
      { __typename: 'Product', id: 'apollo-federation' },
    ];
    const res = await gw.query(ENTITIES, { r });
    assert.deepEqual(res.body.data, {
      _entities: [null, null, null, { __typename: 'Product', id: 'apollo-federation', sku: 'federation' }],
    });
    assert.deepEqual(
      (res.body.errors ?? []).map((e) => [e.path, e.message]),
      [
        [
          ['_entities', 0],
          '_entities: representation 0 has __typename "Produkt", which is no entity type of this subgraph; did you mean "Product"? (entities: Product, DeprecatedProduct, ProductResearch, User, Inventory)',
        ],
        [
          ['_entities', 2],
          '_entities: representation 2 of Product holds the fields of none of its keys ("id", "package sku", "sku variation { id }")',
        ],
      ],
    );
    assert.deepEqual(
      rest.requests.map((q) => q.url),
      ['/products?ids=nope,apollo-federation'],
    );
  });
});

describe('federated tracing', () => {
  test('apollo-federation-include-trace: ftv1 gives extensions.ftv1, a Trace with a node per field, and nothing else', async () => {
    const { Trace } = await import('@apollo/usage-reporting-protobuf');
    const rest = await startProductsRest();
    const gw = await startTestGateway({ sources: { rest: { url: rest.url } }, schemas: { 'products.graphqls': PRODUCTS_SCHEMA } });
    try {
      const plain = await gw.query('{ __typename }', undefined, { 'apollo-federation-include-trace': 'ftv1' });
      assert.deepEqual(Object.keys(plain.body), ['data', 'extensions']);
      assert.deepEqual(plain.body.data, { __typename: 'Query' });
      assert.deepEqual(Object.keys(plain.body.extensions ?? {}), ['ftv1']);

      const res = await gw.query('{ product(id: "apollo-federation") { id research { study { caseNumber } } } }', undefined, {
        'apollo-federation-include-trace': 'ftv1',
      });
      assert.equal(res.body.errors, undefined);
      assert.deepEqual(Object.keys(res.body.extensions ?? {}), ['ftv1']);
      const trace = Trace.decode(Buffer.from(String(res.body.extensions?.ftv1), 'base64'));
      assert.ok(Number(trace.durationNs) > 0);
      const product = trace.root!.child![0]!;
      assert.equal(product.responseName, 'product');
      assert.equal(product.type, 'Product');
      assert.equal(product.parentType, 'Query');
      assert.deepEqual(
        product.child!.map((c) => c.responseName),
        ['id', 'research'],
      );
      const research = product.child![1]!;
      assert.equal(research.type, '[ProductResearch!]!');
      // research is fetched in round 2: it starts when round 1 (product) ends
      assert.ok(Number(research.startTime) >= Number(product.endTime));
      assert.equal(research.child![0]!.index, 0);
      assert.equal(research.child![0]!.child![0]!.responseName, 'study');

      const none = await gw.query('{ __typename }');
      assert.equal(none.body.extensions?.ftv1, undefined);
    } finally {
      await gw.close();
      await rest.close();
    }
  });
});

test('_service answers whatever introspection says', async () => {
  const rest = await startProductsRest();
  const gw = await startTestGateway({
    schemas: { 'products.graphqls': PRODUCTS_SCHEMA },
    toml: `[gateway]\nhost = "127.0.0.1"\nport = 0\nschema = ["products.graphqls"]\nintrospection = false\n\n[sources.rest]\nurl = "${rest.url}"\n`,
  });
  try {
    const refused = await gw.query('{ __schema { queryType { name } } }');
    assert.equal(refused.status, 400);
    const res = await gw.query('{ _service { sdl } }');
    assert.equal(res.body.errors, undefined);
    assert.match((res.body.data as { _service: { sdl: string } })._service.sdl, /type Product/);
  } finally {
    await gw.close();
    await rest.close();
  }
});
