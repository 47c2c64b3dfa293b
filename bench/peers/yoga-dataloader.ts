/** The graphql-yoga + DataLoader peer: a yoga server as its docs suggest, on node:http. */
import { createServer, type Server } from 'node:http';
import { createYoga } from 'graphql-yoga';
import { createBlogContext, createBlogSchema } from './blog-graphql.js';
import type { Upstream } from '../shared/upstream.js';

export function createYogaServer(upstream: Upstream): Server {
  const yoga = createYoga({
    schema: createBlogSchema(upstream),
    context: () => createBlogContext(upstream),
    graphiql: false,
    landingPage: false,
    logging: false,
  });
  return createServer(yoga);
}
