/**
 * Apollo's subgraph compatibility suite (@apollo/federation-subgraph-compatibility-tests), its
 * checks rewritten here (the package runs them through rover and a downloaded router, which this
 * machine cannot fetch): gqlgw serves the suite's products schema, written with gqlgw directives
 * over a REST mock (products-fixture.ts); the suite's users and inventory subgraphs run on
 * @apollo/subgraph; @apollo/composition composes the three and a real Apollo Gateway serves them.
 * "direct" checks ask the products subgraph as the suite's productsRequest does, "router" checks go
 * through the gateway as its routerRequest does. docs/federation.md lists them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse, stripIgnoredCharacters, type ObjectTypeDefinitionNode, type ObjectTypeExtensionNode } from 'graphql';
import { startTestGateway, type GraphQLResult, type TestGateway } from '../support/gateway.js';
import type { CountingUpstream } from '../support/upstream.js';
import {
  composeSupergraph,
  startApolloGateway,
  startHiveGateway,
  type RunningRouter,
  type SubgraphFetchTrace,
} from '../../examples/federation/router.js';
import { PRODUCTS_SCHEMA, startProductsRest } from './products-fixture.js';
import { startInventorySubgraph, startUsersSubgraph, type RunningSubgraph } from './compat-subgraphs.js';

let rest: CountingUpstream;
let products: TestGateway;
let users: RunningSubgraph;
let inventory: RunningSubgraph;
let router: RunningRouter;
let hive: RunningRouter;
let sdl = '';
let lastTraces: SubgraphFetchTrace[] = [];

before(async () => {
  rest = await startProductsRest();
  products = await startTestGateway({
    sources: { rest: { url: rest.url } },
    schemas: { 'products.graphqls': PRODUCTS_SCHEMA },
    debugMode: false,
  });
  users = await startUsersSubgraph();
  inventory = await startInventorySubgraph();
  const supergraphSdl = await composeSupergraph([
    { name: 'products', url: products.url },
    { name: 'users', url: users.url },
    { name: 'inventory', url: inventory.url },
  ]);
  router = await startApolloGateway({ supergraphSdl, port: 0, onSubgraphTraces: (t) => (lastTraces = t) });
  hive = await startHiveGateway({ supergraphSdl, port: 0 });
  const res = await products.query('query { _service { sdl } }');
  sdl = stripIgnoredCharacters((res.body.data as { _service: { sdl: string } })._service.sdl);
});
after(async () => {
  await router?.close();
  await hive?.close();
  await inventory?.close();
  await users?.close();
  await products?.close();
  await rest?.close();
});

async function direct(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<GraphQLResult> {
  return (await products.query(query, variables, headers)).body;
}

async function viaRouter(query: string, variables?: Record<string, unknown>, through: RunningRouter = router): Promise<GraphQLResult> {
  const res = await fetch(through.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as GraphQLResult;
}

function ok(res: GraphQLResult): Record<string, unknown> {
  assert.equal(res.errors, undefined, JSON.stringify(res.errors));
  return res.data as Record<string, unknown>;
}

const ENTITIES = (selection: string) =>
  `query ($representations: [_Any!]!) { _entities(representations: $representations) { ${selection} } }`;

describe('introspection, @link, @composeDirective, @tag, @inaccessible in _service.sdl', () => {
  test('introspection: the sdl has every type and field of the products schema, with the same types', () => {
    assert.match(sdl, /type Query/);
    const served = parse(sdl);
    const reference = parse(PRODUCTS_SCHEMA);
    type Typed = ObjectTypeDefinitionNode | ObjectTypeExtensionNode;
    const fieldsOf = (doc: typeof served) => {
      const out = new Map<string, string>();
      for (const d of doc.definitions)
        if (d.kind === 'ObjectTypeDefinition' || d.kind === 'ObjectTypeExtension')
          for (const f of (d as Typed).fields ?? [])
            out.set(`${d.name.value}.${f.name.value}`, stripIgnoredCharacters(JSON.stringify(f.type, ['kind', 'type', 'name', 'value'])));
      return out;
    };
    assert.deepEqual(fieldsOf(served), fieldsOf(reference));
  });

  test('@link: one federation link, v2.0 to v2.7, importing only federation names', () => {
    const links = [...sdl.matchAll(/@link\(url:"([^"]+)"(?: import:\[([^\]]*)\])?/g)];
    const federation = links.filter((m) => /^https:\/\/specs.apollo.dev\/federation\/v2\.[0-7]$/.test(m[1]!));
    assert.equal(federation.length, 1);
    const allowed = [
      '@authenticated',
      '@composeDirective',
      '@extends',
      '@external',
      '@inaccessible',
      '@interfaceObject',
      '@key',
      '@override',
      '@policy',
      '@provides',
      '@requires',
      '@requiresScopes',
      '@shareable',
      '@tag',
      'FieldSet',
      'Scope',
      'Policy',
    ];
    for (const name of federation[0]![2]!
      .split(/[\s,]+/)
      .map((s) => s.replaceAll('"', ''))
      .filter(Boolean))
      assert.ok(allowed.includes(name), name);
  });

  test('@composeDirective: the custom link, its use on the schema, its definition and its use on Product', () => {
    assert.match(sdl, /@link\(url:"https:\/\/myspecs.dev\/myCustomDirective\/v1.0" import:\["@custom"\]\)/);
    assert.match(sdl, /schema.*(@composeDirective|@federation__composeDirective)\(name:"@custom"\)/);
    assert.match(sdl, /directive@custom on OBJECT/);
    assert.match(sdl, /type Product.*@custom.*\{/);
  });

  test('@tag and @inaccessible are printed by their imported names', () => {
    assert.ok(!sdl.includes('@federation__tag'));
    assert.ok(sdl.includes('@tag(name:"internal")'));
    assert.ok(!sdl.includes('@federation__inaccessible'));
    assert.ok(sdl.includes('unit:String@inaccessible'));
  });

  test('@inaccessible fields can be queried from the subgraph directly', async () => {
    const data = ok(await direct('query ($id: ID!) { product(id: $id) { dimensions { unit } } }', { id: 'apollo-federation' }));
    assert.deepEqual(data, { product: { dimensions: { unit: 'kg' } } });
  });
});

describe('@key', () => {
  test('single: applied on User, resolved through _entities', async () => {
    assert.match(sdl, /type User(@extends|@federation__extends)?(@key|@federation__key)\(fields:"email"( resolvable:true)?\)/);
    const data = ok(
      await direct(ENTITIES('...on User { email name }'), {
        representations: [{ __typename: 'User', email: 'support@apollographql.com' }],
      }),
    );
    assert.deepEqual(data, { _entities: [{ email: 'support@apollographql.com', name: 'Jane Smith' }] });
  });

  test('multiple fields: applied on DeprecatedProduct, resolved through _entities', async () => {
    assert.match(sdl, /type DeprecatedProduct(@key|@federation__key)\(fields:"sku package"/);
    const data = ok(
      await direct(ENTITIES('...on DeprecatedProduct { sku package reason }'), {
        representations: [{ __typename: 'DeprecatedProduct', sku: 'apollo-federation-v1', package: '@apollo/federation-v1' }],
      }),
    );
    assert.deepEqual(data, {
      _entities: [{ sku: 'apollo-federation-v1', package: '@apollo/federation-v1', reason: 'Migrate to Federation V2' }],
    });
  });

  test('composite: applied on ProductResearch, resolved through _entities', async () => {
    assert.match(sdl, /type ProductResearch(@key|@federation__key)\(fields:"study { caseNumber }"/);
    const data = ok(
      await direct(ENTITIES('...on ProductResearch { study { caseNumber description } }'), {
        representations: [{ __typename: 'ProductResearch', study: { caseNumber: '1234' } }],
      }),
    );
    assert.deepEqual(data, { _entities: [{ study: { caseNumber: '1234', description: 'Federation Study' } }] });
  });

  test('repeatable: three keys on Product, each resolving', async () => {
    assert.match(sdl, /type Product.*(@key|@federation__key)\(fields:"id"( resolvable:true)?\).*\{/);
    assert.match(sdl, /type Product.*(@key|@federation__key)\(fields:"sku package"( resolvable:true)?\).*variation/);
    assert.match(sdl, /type Product.*(@key|@federation__key)\(fields:"sku variation { id }"( resolvable:true)?\).*\{/);
    const data = ok(
      await direct(ENTITIES('...on Product { id sku }'), {
        representations: [
          { __typename: 'Product', id: 'apollo-federation' },
          { __typename: 'Product', sku: 'federation', package: '@apollo/federation' },
          { __typename: 'Product', sku: 'studio', variation: { id: 'platform' } },
        ],
      }),
    );
    assert.deepEqual(data, {
      _entities: [
        { id: 'apollo-federation', sku: 'federation' },
        { id: 'apollo-federation', sku: 'federation' },
        { id: 'apollo-studio', sku: 'studio' },
      ],
    });
  });
});

describe('through the router', () => {
  test('@interfaceObject: applied on Inventory, and its new fields resolve', async () => {
    assert.match(sdl, /type Inventory.*(@interfaceObject|@federation__interfaceObject)/);
    assert.match(sdl, /type Inventory.*(@key|@federation__key)\(fields:"id"( resolvable:true)?\)/);
    const data = ok(await viaRouter('query ($id: ID!) { inventory(id: $id) { deprecatedProducts { sku reason } } }', { id: 'apollo-oss' }));
    assert.deepEqual(data, { inventory: { deprecatedProducts: [{ sku: 'apollo-federation-v1', reason: 'Migrate to Federation V2' }] } });
  });

  test('@override: the overridden user name comes from products', async () => {
    assert.match(sdl, /(@override|@federation__override)\(from:"users"\)/);
    const data = ok(await viaRouter('query ($id: ID!) { product(id: $id) { createdBy { name } } }', { id: 'apollo-federation' }));
    assert.deepEqual(data, { product: { createdBy: { name: 'Jane Smith' } } });
  });

  test('@provides: the provided field is computed locally', async () => {
    assert.match(sdl, /createdBy:User(@provides|@federation__provides)\(fields:"totalProductsCreated"\)/);
    const data = ok(
      await direct('query ($id: ID!) { product(id: $id) { createdBy { email totalProductsCreated } } }', { id: 'apollo-federation' }),
    );
    const createdBy = (data.product as { createdBy: { email: string; totalProductsCreated: unknown } }).createdBy;
    assert.equal(createdBy.email, 'support@apollographql.com');
    assert.equal(typeof createdBy.totalProductsCreated, 'number');
    assert.notEqual(createdBy.totalProductsCreated, 4);
  });

  test('@requires: a field computed from the required fields the router sends', async () => {
    assert.match(
      sdl,
      /averageProductsCreatedPerYear:Int(@requires|@federation__requires)\(fields:"totalProductsCreated yearsOfEmployment"\)/,
    );
    rest.reset();
    const data = ok(
      await viaRouter('query ($id: ID!) { product(id: $id) { createdBy { averageProductsCreatedPerYear email } } }', {
        id: 'apollo-federation',
      }),
    );
    const createdBy = (data.product as { createdBy: { averageProductsCreatedPerYear: number; email: string } }).createdBy;
    assert.equal(createdBy.email, 'support@apollographql.com');
    // The required fields came in the representation and reached the REST call: yearsOfEmployment
    // (10) only the users subgraph has; totalProductsCreated the router takes from users (10) or
    // from what products @provides (1337).
    const average = rest.requests.find((r) => r.path === '/users/support%40apollographql.com/average');
    assert.ok(average, rest.requests.map((r) => r.url).join(' '));
    assert.equal(average.query.get('years'), '10');
    const total = Number(average.query.get('total'));
    assert.ok(total === 10 || total === 1337, average.url);
    assert.equal(createdBy.averageProductsCreatedPerYear, Math.round(total / 10));
  });

  test('@shareable: ProductDimension resolves through the router', async () => {
    assert.match(sdl, /type ProductDimension(@shareable|@federation__shareable)/);
    const data = ok(await viaRouter('query ($id: ID!) { product(id: $id) { dimensions { size weight } } }', { id: 'apollo-federation' }));
    assert.deepEqual(data, { product: { dimensions: { size: 'small', weight: 1 } } });
  });

  test('@requires of another subgraph: the router sends products dimensions to inventory', async () => {
    const data = ok(
      await viaRouter('query ($id: ID!) { product(id: $id) { delivery(zip: "94111") { estimatedDelivery fastestDelivery } } }', {
        id: 'apollo-federation',
      }),
    );
    assert.deepEqual(data, { product: { delivery: { estimatedDelivery: '5/1/2019', fastestDelivery: '5/1/2019' } } });
  });
});

describe('the same router checks through Hive Gateway', () => {
  const checks: Array<[string, string, Record<string, unknown>]> = [
    [
      '@interfaceObject',
      'query ($id: ID!) { inventory(id: $id) { deprecatedProducts { sku reason } } }',
      { inventory: { deprecatedProducts: [{ sku: 'apollo-federation-v1', reason: 'Migrate to Federation V2' }] } },
    ],
    ['@override', 'query ($id: ID!) { product(id: $id) { createdBy { name } } }', { product: { createdBy: { name: 'Jane Smith' } } }],
    [
      '@shareable',
      'query ($id: ID!) { product(id: $id) { dimensions { size weight } } }',
      { product: { dimensions: { size: 'small', weight: 1 } } },
    ],
    [
      '@requires of another subgraph',
      'query ($id: ID!) { product(id: $id) { delivery(zip: "94111") { estimatedDelivery fastestDelivery } } }',
      { product: { delivery: { estimatedDelivery: '5/1/2019', fastestDelivery: '5/1/2019' } } },
    ],
  ];
  for (const [name, query, expected] of checks) {
    test(name, async () => {
      assert.deepEqual(
        ok(await viaRouter(query, { id: name === '@interfaceObject' ? 'apollo-oss' : 'apollo-federation' }, hive)),
        expected,
      );
    });
  }

  test('@requires', async () => {
    const data = ok(
      await viaRouter(
        'query ($id: ID!) { product(id: $id) { createdBy { averageProductsCreatedPerYear email } } }',
        { id: 'apollo-federation' },
        hive,
      ),
    );
    const createdBy = (data.product as { createdBy: { averageProductsCreatedPerYear: unknown; email: string } }).createdBy;
    assert.equal(createdBy.email, 'support@apollographql.com');
    assert.equal(typeof createdBy.averageProductsCreatedPerYear, 'number');
  });
});

describe('ftv1', () => {
  test('a federated trace in extensions, and nothing else', async () => {
    const res = await direct('query { __typename }', undefined, { 'apollo-federation-include-trace': 'ftv1' });
    assert.deepEqual(Object.keys(res), ['data', 'extensions']);
    assert.deepEqual(res.data, { __typename: 'Query' });
    assert.deepEqual(Object.keys(res.extensions ?? {}), ['ftv1']);
    assert.equal(typeof res.extensions?.ftv1, 'string');
  });

  test('the router asks for the traces and decodes what gqlgw sends', async () => {
    lastTraces = [];
    const data = ok(await viaRouter('{ product(id: "apollo-studio") { sku createdBy { name } } }'));
    assert.deepEqual(data, { product: { sku: 'studio', createdBy: { name: 'Jane Smith' } } });
    const fromProducts = lastTraces.filter((t) => t.serviceName === 'products');
    assert.ok(fromProducts.length >= 1, JSON.stringify(lastTraces));
    for (const t of fromProducts) {
      assert.equal(t.traceParsingFailed, false);
      assert.ok((t.trace?.root?.child?.length ?? 0) > 0, 'a trace with field nodes');
    }
  });
});
