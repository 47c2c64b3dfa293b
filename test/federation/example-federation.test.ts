/**
 * examples/federation end to end through a real Apollo Gateway (@apollo/gateway on @apollo/server):
 * gqlgw serves the products subgraph over the catalog REST service, @apollo/subgraph the reviews
 * subgraph, @apollo/composition composes them. One router query needing 50 products costs the
 * catalog exactly one batch call.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { startGateway, type RunningGateway } from '../../gateway/server/start.js';
import { startCatalogService, type CatalogService } from '../../examples/federation/catalog.js';
import { startReviewsSubgraph, type RunningSubgraph } from '../../examples/federation/reviews.js';
import { composeSupergraph, startApolloGateway, startHiveGateway, type RunningRouter } from '../../examples/federation/router.js';
import { CATALOG, REVIEWS } from '../../examples/federation/data.js';

const CONFIG = fileURLToPath(new URL('../../../examples/federation/gateway.toml', import.meta.url));

let catalog: CatalogService;
let products: RunningGateway;
let reviews: RunningSubgraph;
let supergraphSdl: string;

before(async () => {
  catalog = await startCatalogService({ port: 0 });
  process.env.FEDERATION_CATALOG_PORT = String(catalog.port);
  try {
    products = await startGateway({ configPath: CONFIG, port: 0 });
  } finally {
    delete process.env.FEDERATION_CATALOG_PORT;
  }
  reviews = await startReviewsSubgraph({ port: 0 });
  supergraphSdl = await composeSupergraph([
    { name: 'products', url: products.url },
    { name: 'reviews', url: reviews.url },
  ]);
});
after(async () => {
  await reviews?.close();
  await products?.close();
  await catalog?.close();
});

for (const [routerName, startRouter] of [
  ['Apollo Gateway', startApolloGateway],
  ['Hive Gateway', startHiveGateway],
] as const)
  describe(`examples/federation through ${routerName}`, () => {
    let router: RunningRouter;
    before(async () => {
      router = await startRouter({ supergraphSdl, port: 0 });
    });
    after(async () => {
      await router?.close();
    });

    async function routerQuery(query: string): Promise<{ data?: Record<string, unknown>; errors?: unknown[] }> {
      const res = await fetch(router.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      assert.equal(res.status, 200);
      return (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    }

    test('one router query needing 50 products: the catalog sees one batch call for them', async () => {
      // Each router starts with nothing cached: the products' entries of the router before are dropped.
      await products.close();
      process.env.FEDERATION_CATALOG_PORT = String(catalog.port);
      try {
        products = await startGateway({ configPath: CONFIG, port: products.port });
      } finally {
        delete process.env.FEDERATION_CATALOG_PORT;
      }
      catalog.calls.length = 0;
      const body = await routerQuery('{ reviews(first: 50) { id body product { upc name priceCents inStock } } }');
      assert.equal(body.errors, undefined);
      const expected = REVIEWS.map((r) => {
        const p = CATALOG.find((c) => c.upc === r.productUpc)!;
        return { id: r.id, body: r.body, product: { upc: p.upc, name: p.name, priceCents: p.price_cents, inStock: p.in_stock } };
      });
      assert.deepEqual(body.data, { reviews: expected });
      assert.deepEqual(catalog.calls, [`/products?upcs=${REVIEWS.map((r) => r.productUpc).join(',')}`]);
    });

    test('a query starting in the products subgraph and going into reviews and back', async () => {
      catalog.calls.length = 0;
      const body = await routerQuery('{ topProducts(first: 3) { upc name reviews { body product { name } } } }');
      assert.equal(body.errors, undefined);
      const top = (body.data?.topProducts ?? []) as Array<{
        upc: string;
        name: string;
        reviews: Array<{ body: string; product: { name: string } }>;
      }>;
      assert.deepEqual(
        top.map((p) => p.upc),
        ['upc-1', 'upc-2', 'upc-3'],
      );
      for (const p of top) {
        assert.deepEqual(
          p.reviews,
          REVIEWS.filter((r) => r.productUpc === p.upc).map((r) => ({ body: r.body, product: { name: p.name } })),
        );
      }
      // The router asks gqlgw for the reviews' products again through _entities; Product's @cache
      // (ttl 30) was filled by the batch of the test before, so only the list reaches the catalog.
      assert.deepEqual(catalog.calls, ['/products/top?first=3']);
    });
  });

describe('router-sized _entities under the default limits', () => {
  test('5000 representations (a body of about 200 KB, under max_body_bytes 1 MiB) are 50 batch calls of 100', async () => {
    // Products 1 to 60 are cached by the tests before: ask for 61 to 5060, none of them cached.
    const representations = Array.from({ length: 5000 }, (_, i) => ({ __typename: 'Product', upc: `upc-${i + 61}` }));
    const body = JSON.stringify({
      query: 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Product { upc name } } }',
      variables: { r: representations },
    });
    assert.ok(body.length > 150_000 && body.length < 1024 * 1024, String(body.length));
    catalog.calls.length = 0;
    const res = await fetch(products.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 200);
    const answer = (await res.json()) as { data: { _entities: Array<{ upc: string; name: string } | null> }; errors?: unknown };
    assert.equal(answer.errors, undefined);
    assert.equal(answer.data._entities.length, 5000);
    assert.ok(answer.data._entities.every((e) => e === null)); // not found: null without an error
    assert.equal(res.headers.get('x-gql-batches'), '50');
    assert.equal(catalog.calls.length, 50);
  });

  test('products the catalog has come back in representation order', async () => {
    const representations = ['upc-60', 'upc-2', 'nope', 'upc-2'].map((upc) => ({ __typename: 'Product', upc }));
    const res = await fetch(products.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Product { upc name } } }',
        variables: { r: representations },
      }),
    });
    const answer = (await res.json()) as { data: { _entities: unknown[] } };
    assert.deepEqual(answer.data._entities, [
      { upc: 'upc-60', name: 'Product 60' },
      { upc: 'upc-2', name: 'Product 2' },
      null,
      { upc: 'upc-2', name: 'Product 2' },
    ]);
  });
});
