/**
 * The peer users pick instead of writing resolvers: Hive Gateway (@graphql-hive/gateway-runtime)
 * serving the blog backend through its OpenAPI source handler, as its docs compose one: the
 * OpenAPI description (blog-openapi.json) loaded by @omnigraph/openapi, composed into a supergraph
 * by @graphql-mesh/fusion-composition, executed by the gateway with @graphql-mesh/transport-rest.
 * `Post.author` is the description's OpenAPI link to `GET /users/{id}`, so the blog query costs
 * 1 + 100 subrequests: what its users get (no hand-written resolver, no batching).
 */
import { createServer, type Server } from 'node:http';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { composeSubgraphs } from '@graphql-mesh/fusion-composition';
import rest from '@graphql-mesh/transport-rest';
import { loadNonExecutableGraphQLSchemaFromOpenAPI } from '@omnigraph/openapi';
import { BENCH_SRC_DIR, ROOT_DIR } from '../shared/paths.js';

export const BLOG_OPENAPI = `${BENCH_SRC_DIR}/peers/blog-openapi.json`;

export async function createHiveOpenApiServer(backendUrl: string): Promise<Server> {
  const schema = await loadNonExecutableGraphQLSchemaFromOpenAPI('blog', { source: BLOG_OPENAPI, endpoint: backendUrl, cwd: ROOT_DIR });
  const composed = composeSubgraphs([{ name: 'blog', schema }]);
  if (composed.errors) throw new Error(`composition failed: ${composed.errors.map((e) => e.message).join('; ')}`);
  const gateway = createGatewayRuntime({
    supergraph: composed.supergraphSdl,
    transports: { rest },
    logging: false,
    graphiql: false,
    landingPage: false,
  });
  return createServer(gateway);
}
