/**
 * The router side of examples/federation: composes a supergraph from running subgraphs with
 * @apollo/composition (each subgraph's `_service { sdl }`, as a router's tooling reads it; nothing
 * is downloaded) and serves it with a real Apollo Gateway on @apollo/server.
 */
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { ApolloGateway } from '@apollo/gateway';
import { composeServices } from '@apollo/composition';
import { parse } from 'graphql';

export interface SubgraphAt {
  readonly name: string;
  /** The subgraph's GraphQL endpoint. */
  readonly url: string;
}

/** Asks each subgraph for its SDL and composes them; throws with composition's errors when they do not compose. */
export async function composeSupergraph(subgraphs: readonly SubgraphAt[]): Promise<string> {
  const services = await Promise.all(
    subgraphs.map(async (s) => {
      const res = await fetch(s.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ _service { sdl } }' }),
      });
      const body = (await res.json()) as { data?: { _service?: { sdl?: string } } };
      const sdl = body.data?._service?.sdl;
      if (typeof sdl !== 'string') throw new Error(`subgraph ${s.name} at ${s.url} gave no _service.sdl: ${JSON.stringify(body)}`);
      return { name: s.name, url: s.url, typeDefs: parse(sdl) };
    }),
  );
  const composed = composeServices(services);
  if (composed.errors) throw new Error(`composition failed:\n${composed.errors.map((e) => e.message).join('\n')}`);
  return composed.supergraphSdl;
}

export interface RunningRouter {
  /** e.g. http://127.0.0.1:4000/ */
  readonly url: string;
  close(): Promise<void>;
}

/** An Apollo Gateway serving `supergraphSdl`, on @apollo/server's standalone HTTP server. */
export async function startApolloGateway(options: { supergraphSdl: string; port?: number }): Promise<RunningRouter> {
  const gateway = new ApolloGateway({ supergraphSdl: options.supergraphSdl });
  const server = new ApolloServer({ gateway });
  const { url } = await startStandaloneServer(server, { listen: { host: '127.0.0.1', port: options.port ?? 4000 } });
  return { url, close: () => server.stop() };
}
