/**
 * The reviews subgraph, written with @apollo/subgraph: reviews, each of a product it knows only by
 * its UPC, and `Product.reviews`. The router joins it with gqlgw's products subgraph.
 */
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { REVIEWS } from './data.js';

export const REVIEWS_SDL = /* GraphQL */ `
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])

type Query {
  reviews(first: Int = 10): [Review!]!
}

type Review {
  id: ID!
  body: String!
  product: Product!
}

type Product @key(fields: "upc") {
  upc: String!
  reviews: [Review!]!
}
`;

export interface RunningSubgraph {
  readonly url: string;
  close(): Promise<void>;
}

export async function startReviewsSubgraph(options: { port?: number } = {}): Promise<RunningSubgraph> {
  const resolvers = {
    Query: { reviews: (_: unknown, args: { first: number }) => REVIEWS.slice(0, args.first) },
    Review: { product: (review: (typeof REVIEWS)[number]) => ({ upc: review.productUpc }) },
    Product: {
      __resolveReference: (ref: { upc: string }) => ref,
      reviews: (product: { upc: string }) => REVIEWS.filter((r) => r.productUpc === product.upc),
    },
  };
  const server = new ApolloServer({ schema: buildSubgraphSchema({ typeDefs: parse(REVIEWS_SDL), resolvers }) });
  const { url } = await startStandaloneServer(server, { listen: { host: '127.0.0.1', port: options.port ?? 4022 } });
  return { url, close: () => server.stop() };
}
