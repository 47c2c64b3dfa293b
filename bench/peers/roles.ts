/**
 * Every server process of the benchmark other than gqlgw, by role name. `startRole` starts one
 * in-process (tests use it); the bench runs each as its own process:
 *   node dist/bench/peers/roles.js ROLE [--port N] [--backend URL]
 * prints `bench-ROLE listening on URL` when ready and exits on SIGTERM or SIGINT.
 */
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { startBackend } from '../backend.js';
import { startOtlpSink } from '../otlp-sink.js';
import { TINY_BODY } from '../shared/data.js';
import { createJsonServer, createUpstream, listen, type Listening, type Upstream } from '../shared/http.js';
import { ceilingHandler, floorHandler, noBatchHandler, perItemCacheHandler } from './hand-written.js';
import { createYogaServer, jitHandler } from './graphql.js';
import { createHiveOpenApiServer } from './hive.js';
import { createSseFloorServer } from './sse-floor.js';
import { dataLoaderHandler, perRequestHandler } from './lookups.js';

const PEERS = {
  ceiling: (u) => createJsonServer(ceilingHandler(u)),
  'no-batch': (u) => createJsonServer(noBatchHandler(u)),
  'per-item-cache': (u) => createJsonServer(perItemCacheHandler(u)),
  'yoga-dataloader': (u) => createYogaServer(u),
  'jit-dataloader': (u) => createJsonServer(jitHandler(u)),
  floor: () => createJsonServer(floorHandler()),
  'floor-tiny': () => createJsonServer(floorHandler(TINY_BODY)),
  'floor-sse': () => createSseFloorServer(),
  'lookup-per-request': (u) => createJsonServer(perRequestHandler(u)),
  'lookup-dataloader': (u) => createJsonServer(dataLoaderHandler(u)),
  'hive-openapi': (_, backendUrl) => createHiveOpenApiServer(backendUrl),
} satisfies Record<string, (upstream: Upstream, backendUrl: string) => Server | Promise<Server>>;
export type PeerRole = keyof typeof PEERS;
export const POOL_IN_SERVICE = 16;

/** The backends (backend.ts: `pool-backend` 16 requests in service at once, `etag-backend` with ETags and 304s) and the OTLP sink. */
const SERVICES = {
  backend: (port?: number) => startBackend({ port }),
  'pool-backend': (port?: number) => startBackend({ port, inService: POOL_IN_SERVICE }),
  'etag-backend': (port?: number) => startBackend({ port, etags: true }),
  'otlp-sink': (port?: number) => startOtlpSink(port),
} satisfies Record<string, (port?: number) => Promise<Listening>>;
export type Role = PeerRole | keyof typeof SERVICES;

export function isRole(name: string): name is Role {
  return name in SERVICES || name in PEERS;
}

/** Starts a role; peers answer at http://127.0.0.1:PORT/graphql, the backends at their root. */
export async function startRole(role: Role, options: { port?: number; backendUrl?: string } = {}): Promise<Listening> {
  if (role in SERVICES) return SERVICES[role as keyof typeof SERVICES](options.port);
  role = role as PeerRole;
  if (!role.startsWith('floor') && !options.backendUrl) throw new Error(`${role} needs a backend URL`);
  const backendUrl = options.backendUrl || 'http://127.0.0.1:9'; // a floor has none (also when given as '')
  const upstream = createUpstream(backendUrl);
  const listening = await listen(await PEERS[role](upstream, backendUrl), options.port ?? 0, '/graphql');
  return {
    ...listening,
    async close() {
      await listening.close();
      await upstream.close();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const option = (name: string): string | undefined =>
    process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
  const role = process.argv[2] ?? '';
  if (!isRole(role)) {
    process.stderr.write(`usage: roles.js ROLE [--port N] [--backend URL]; unknown role "${role}"\n`);
    process.exit(2);
  }
  const running = await startRole(role, { port: Number(option('--port') ?? 0), backendUrl: option('--backend') });
  process.stdout.write(`bench-${role} listening on ${running.url}\n`);
  const stop = (): void => void running.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
