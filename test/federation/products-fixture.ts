/**
 * The products subgraph of Apollo's subgraph compatibility suite (its products schema: Product with
 * three keys, DeprecatedProduct with a key of two fields, ProductResearch with a nested key, the
 * User it extends, the Inventory interface object), written with gqlgw directives over a REST
 * mock of our own, so that the suite's checks can run against gqlgw. The mock counts what it is
 * asked; its data are the values the suite's assertions expect.
 */
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { splitIds } from '../support/routes.js';

export const PRODUCTS_SCHEMA = /* GraphQL */ `
extend schema
  @link(
    url: "https://specs.apollo.dev/federation/v2.3"
    import: ["@composeDirective", "@extends", "@external", "@key", "@inaccessible", "@interfaceObject", "@override", "@provides", "@requires", "@shareable", "@tag"]
  )
  @link(url: "https://myspecs.dev/myCustomDirective/v1.0", import: ["@custom"])
  @composeDirective(name: "@custom")

directive @custom on OBJECT

type Product
  @custom
  @key(fields: "id")
  @key(fields: "sku package")
  @key(fields: "sku variation { id }")
  @lookup(key: "id", source: "rest", path: "/products/{key.id}")
  @lookupBatch(key: "id", path: "/products?ids={keys}", match: "id")
  @lookup(key: "sku package", source: "rest", path: "/products/by-sku/{key.sku}/{key.package}")
  @lookupBatch(key: "sku package", path: "/products/by-sku", match: "sku package", method: "POST", body: """{"keys": {keys}}""")
  @lookup(key: "sku variation { id }", source: "rest", path: "/products/by-variation/{key.sku}/{key.variation.id}") {
  id: ID!
  sku: String
  package: String
  variation: ProductVariation
  dimensions: ProductDimension
  createdBy: User @provides(fields: "totalProductsCreated") @from(key: "created_by")
  notes: String @tag(name: "internal")
  research: [ProductResearch!]! @fetch(source: "rest", path: "/products/{parent.id}/research")
}

type DeprecatedProduct @key(fields: "sku package")
  @lookup(key: "sku package", source: "rest", path: "/deprecated-products/{key.sku}/{key.package}") {
  sku: String!
  package: String!
  reason: String
  createdBy: User @from(key: "created_by")
}

type ProductVariation {
  id: ID!
}

type ProductResearch @key(fields: "study { caseNumber }")
  @lookup(key: "study { caseNumber }", source: "rest", path: "/research/{key.study.caseNumber}")
  @lookupBatch(key: "study { caseNumber }", path: "/research?cases={keys}", match: "study.case_number") {
  study: CaseStudy!
  outcome: String
}

type CaseStudy {
  caseNumber: ID! @from(key: "case_number")
  description: String
}

type ProductDimension @shareable {
  size: String
  weight: Float
  unit: String @inaccessible
}

extend type Query {
  product(id: ID!): Product @fetch(source: "rest", path: "/products/{args.id}")
  deprecatedProduct(sku: String!, package: String!): DeprecatedProduct
    @deprecated(reason: "Use product query instead")
    @fetch(source: "rest", path: "/deprecated-products/{args.sku}/{args.package}")
}

extend type User @key(fields: "email") @lookup(key: "email", source: "rest", path: "/users/{key.email}") {
  averageProductsCreatedPerYear: Int
    @requires(fields: "totalProductsCreated yearsOfEmployment")
    @fetch(source: "rest", path: "/users/{parent.email}/average?total={parent.totalProductsCreated}&years={parent.yearsOfEmployment}", select: "value")
  email: ID! @external
  name: String @override(from: "users")
  totalProductsCreated: Int @external @from(key: "total_products_created")
  yearsOfEmployment: Int! @external @from(key: "years_of_employment")
}

type Inventory @interfaceObject @key(fields: "id") @lookup(key: "id", source: "rest", path: "/inventories/{key.id}") {
  id: ID!
  deprecatedProducts: [DeprecatedProduct!]! @from(key: "deprecated_products")
}
`;

const USER = { email: 'support@apollographql.com', name: 'Jane Smith', total_products_created: 1337 };
const DIMENSIONS = { size: 'small', weight: 1, unit: 'kg' };
export const DEPRECATED = {
  sku: 'apollo-federation-v1',
  package: '@apollo/federation-v1',
  reason: 'Migrate to Federation V2',
  created_by: USER,
};
export const PRODUCTS = [
  {
    id: 'apollo-federation',
    sku: 'federation',
    package: '@apollo/federation',
    variation: { id: 'OSS' },
    dimensions: DIMENSIONS,
    created_by: USER,
  },
  { id: 'apollo-studio', sku: 'studio', package: '', variation: { id: 'platform' }, dimensions: DIMENSIONS, created_by: USER },
];
const RESEARCH = [
  { study: { case_number: '1234', description: 'Federation Study' }, outcome: null, product: 'apollo-federation' },
  { study: { case_number: '1235', description: 'Studio Study' }, outcome: null, product: 'apollo-studio' },
];
const INVENTORY = { id: 'apollo-oss', deprecated_products: [DEPRECATED] };

const notFound = { status: 404, json: { message: 'not found' } };
const found = (v: unknown) => (v === undefined ? notFound : { json: v });

/** The REST service behind the products subgraph: single and batch endpoints for every key. */
export function startProductsRest(): Promise<CountingUpstream> {
  return startUpstream({
    'GET /products': ({ query }) => ({ json: PRODUCTS.filter((p) => splitIds(query.get('ids')).includes(p.id)) }),
    'GET /products/:id': ({ params }) => found(PRODUCTS.find((p) => p.id === params.id)),
    'GET /products/:id/research': ({ params }) => ({ json: RESEARCH.filter((r) => r.product === params.id) }),
    'GET /products/by-sku/:sku/:package': ({ params }) => found(PRODUCTS.find((p) => p.sku === params.sku && p.package === params.package)),
    'POST /products/by-sku': ({ body }) => {
      const keys = (JSON.parse(body) as { keys: Array<{ sku: string; package: string }> }).keys;
      return { json: PRODUCTS.filter((p) => keys.some((k) => k.sku === p.sku && k.package === p.package)) };
    },
    'GET /products/by-variation/:sku/:variation': ({ params }) =>
      found(PRODUCTS.find((p) => p.sku === params.sku && p.variation.id === params.variation)),
    'GET /deprecated-products/:sku/:package': ({ params }) =>
      found(params.sku === DEPRECATED.sku && params.package === DEPRECATED.package ? DEPRECATED : undefined),
    'GET /research': ({ query }) => ({ json: RESEARCH.filter((r) => splitIds(query.get('cases')).includes(r.study.case_number)) }),
    'GET /research/:case': ({ params }) => found(RESEARCH.find((r) => r.study.case_number === params.case)),
    'GET /users/:email': ({ params }) => found(params.email === USER.email ? USER : undefined),
    'GET /users/:email/average': ({ query }) => ({ json: { value: Math.round(Number(query.get('total')) / Number(query.get('years'))) } }),
    'GET /inventories/:id': ({ params }) => found(params.id === INVENTORY.id ? INVENTORY : undefined),
  });
}
