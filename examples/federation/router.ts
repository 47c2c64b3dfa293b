/**
 * The router side of examples/federation: composes a supergraph from running subgraphs with
 * @apollo/composition (each subgraph's `_service { sdl }`, as a router's tooling reads it; nothing
 * is downloaded) and serves it with a real Apollo Gateway on @apollo/server.
 */
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { ApolloGateway } from '@apollo/gateway';
import { composeServices } from '@apollo/composition';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** What the gateway made of one subgraph call while it captured traces: the subgraph's decoded ftv1 trace. */
export interface SubgraphFetchTrace {
  readonly serviceName: string;
  /** Apollo's Trace (a protobuf message), when the subgraph sent one. */
  readonly trace: { readonly root?: { readonly child?: readonly unknown[] | null } | null } | undefined;
  readonly traceParsingFailed: boolean;
}

export interface RouterOptions {
  readonly supergraphSdl: string;
  readonly port?: number;
  /**
   * Makes the gateway ask every subgraph for its federated trace (as Apollo's usage reporting does)
   * and hands over each request's subgraph traces.
   */
  readonly onSubgraphTraces?: (fetches: SubgraphFetchTrace[]) => void;
}

/** An Apollo Gateway serving `supergraphSdl`, on @apollo/server's standalone HTTP server. */
export async function startApolloGateway(options: RouterOptions): Promise<RunningRouter> {
  const gateway = new ApolloGateway({ supergraphSdl: options.supergraphSdl });
  const onTraces = options.onSubgraphTraces;
  type Metrics = { captureTraces?: boolean; queryPlanTrace?: unknown };
  const plugins = onTraces
    ? [
        {
          async requestDidStart() {
            return {
              async didResolveOperation(ctx: { metrics: Metrics }) {
                ctx.metrics.captureTraces = true;
              },
              async willSendResponse(ctx: { metrics: Metrics }) {
                onTraces(fetchTraces(ctx.metrics.queryPlanTrace));
              },
            };
          },
        },
      ]
    : [];
  const server = new ApolloServer({ gateway, plugins });
  const { url } = await startStandaloneServer(server, { listen: { host: '127.0.0.1', port: options.port ?? 4000 } });
  return { url, close: () => server.stop() };
}

/**
 * Hive Gateway serving `supergraphSdl`: @graphql-hive/gateway-runtime (the runtime the
 * `@graphql-hive/gateway` CLI serves) on node:http, at `/graphql`.
 */
export async function startHiveGateway(options: { supergraphSdl: string; port?: number }): Promise<RunningRouter> {
  // Loaded only when asked for: its tree is large, and Apollo Gateway's users do not need it.
  const { createGatewayRuntime } = await import('@graphql-hive/gateway-runtime');
  const runtime = createGatewayRuntime({ supergraph: options.supergraphSdl, logging: false, maskedErrors: false });
  const server = createServer(runtime);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4024, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    close: async () => {
      await runtime.dispose();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The fetch nodes of a query plan trace (sequence, parallel, flatten, condition, fetch), in order. */
function fetchTraces(node: unknown): SubgraphFetchTrace[] {
  if (node === null || typeof node !== 'object') return [];
  const n = node as Record<string, unknown>;
  const fetch = n.fetch as (SubgraphFetchTrace & { trace?: SubgraphFetchTrace['trace'] | null }) | undefined;
  if (fetch)
    return [{ serviceName: fetch.serviceName, trace: fetch.trace ?? undefined, traceParsingFailed: fetch.traceParsingFailed === true }];
  const out: SubgraphFetchTrace[] = [];
  for (const key of ['sequence', 'parallel'])
    for (const child of (n[key] as { nodes?: unknown[] } | undefined)?.nodes ?? []) out.push(...fetchTraces(child));
  if (n.flatten) out.push(...fetchTraces((n.flatten as { node?: unknown }).node));
  if (n.condition) {
    const c = n.condition as { ifClause?: unknown; elseClause?: unknown };
    out.push(...fetchTraces(c.ifClause), ...fetchTraces(c.elseClause));
  }
  return out;
}
