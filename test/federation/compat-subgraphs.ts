/**
 * The two subgraphs Apollo's compatibility suite composes beside the products subgraph under test,
 * written here with @apollo/subgraph: `users` (the User entity, whose `name` products overrides)
 * and `inventory` (an Inventory interface entity, which products adds fields to as an
 * @interfaceObject, and Product.delivery, which @requires the product's dimensions).
 */
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { GraphQLError, parse } from 'graphql';

export interface RunningSubgraph {
  readonly url: string;
  close(): Promise<void>;
}

const USERS_SDL = /* GraphQL */ `
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable"])
type User @key(fields: "email") {
  email: ID!
  name: String
  totalProductsCreated: Int @shareable
  yearsOfEmployment: Int!
}
`;

const INVENTORY_SDL = /* GraphQL */ `
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@requires", "@shareable", "@external"])
extend type Product @key(fields: "id") {
  id: ID! @external
  dimensions: ProductDimension @external
  delivery(zip: String): DeliveryEstimates @requires(fields: "dimensions { size weight }")
}
type ProductDimension @shareable {
  size: String
  weight: Float
}
type DeliveryEstimates {
  estimatedDelivery: String
  fastestDelivery: String
}
interface Inventory @key(fields: "id") {
  id: ID!
  products: [Product!]!
}
type OpenSourceInventory implements Inventory @key(fields: "id") {
  id: ID!
  products: [Product!]!
}
type Query {
  inventory(id: ID!): Inventory
}
`;

async function serve(sdl: string, resolvers: Record<string, unknown>): Promise<RunningSubgraph> {
  const server = new ApolloServer({ schema: buildSubgraphSchema({ typeDefs: parse(sdl), resolvers: resolvers as never }) });
  const { url } = await startStandaloneServer(server, { listen: { host: '127.0.0.1', port: 0 } });
  return { url, close: () => server.stop() };
}

const SUPPORT = { email: 'support@apollographql.com', name: 'Apollo Studio Support', totalProductsCreated: 10, yearsOfEmployment: 10 };

export function startUsersSubgraph(): Promise<RunningSubgraph> {
  return serve(USERS_SDL, { User: { __resolveReference: (ref: { email: string }) => (ref.email === SUPPORT.email ? SUPPORT : null) } });
}

export function startInventorySubgraph(): Promise<RunningSubgraph> {
  const inventory = { id: 'apollo-oss', products: [{ id: 'apollo-federation' }] };
  return serve(INVENTORY_SDL, {
    Query: { inventory: (_: unknown, args: { id: string }) => (args.id === inventory.id ? inventory : null) },
    Inventory: { __resolveType: () => 'OpenSourceInventory' },
    OpenSourceInventory: { __resolveReference: (ref: { id: string }) => (ref.id === inventory.id ? inventory : null) },
    Product: {
      delivery: (product: { id: string; dimensions?: { size?: string; weight?: number } }, args: { zip?: string }) => {
        if (product.dimensions?.size !== 'small' || product.dimensions.weight !== 1)
          throw new GraphQLError('the @requires fields did not arrive');
        return { estimatedDelivery: '5/1/2019', fastestDelivery: args.zip === '94111' ? '5/1/2019' : null };
      },
    },
  });
}
