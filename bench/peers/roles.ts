/**
 * Every server process of the benchmark other than gqlgw, by role name. `startRole` starts one
 * in-process (tests use it); bench/serve.ts runs one as its own process (the bench uses that).
 */
import type { Server } from 'node:http';
import { startBackend } from '../backend.js';
import { createJsonServer, listen, type Listening } from '../shared/http-server.js';
import { createUpstream, type Upstream } from '../shared/upstream.js';
import { ceilingHandler, floorHandler, frontHandler, noBatchHandler, perItemCacheHandler } from './hand-written.js';
import { jitHandler } from './jit-dataloader.js';
import { createYogaServer } from './yoga-dataloader.js';

export const PEER_ROLES = ['ceiling', 'no-batch', 'per-item-cache', 'yoga-dataloader', 'jit-dataloader', 'floor', 'front'] as const;
export type PeerRole = (typeof PEER_ROLES)[number];
export type Role = PeerRole | 'backend';

export interface RoleOptions {
  readonly port?: number;
  readonly host?: string;
  /** Base URL of the backend; required by every peer but the floor and the front reference. */
  readonly backendUrl?: string;
}

function createPeerServer(role: PeerRole, upstream: Upstream): Server {
  switch (role) {
    case 'ceiling':
      return createJsonServer(ceilingHandler(upstream));
    case 'no-batch':
      return createJsonServer(noBatchHandler(upstream));
    case 'per-item-cache':
      return createJsonServer(perItemCacheHandler(upstream));
    case 'yoga-dataloader':
      return createYogaServer(upstream);
    case 'jit-dataloader':
      return createJsonServer(jitHandler(upstream));
    case 'floor':
      return createJsonServer(floorHandler());
    case 'front':
      return createJsonServer(frontHandler());
  }
}

export function isRole(name: string): name is Role {
  return name === 'backend' || (PEER_ROLES as readonly string[]).includes(name);
}

/** Starts a role; peers answer at `{url}` = http://HOST:PORT/graphql, the backend at its root. */
export async function startRole(role: Role, options: RoleOptions = {}): Promise<Listening> {
  const host = options.host ?? '127.0.0.1';
  if (role === 'backend') return startBackend({ port: options.port ?? 0, host });
  if (role !== 'floor' && role !== 'front' && options.backendUrl === undefined) throw new Error(`${role} needs a backend URL`);
  const upstream = createUpstream(options.backendUrl ?? 'http://127.0.0.1:9');
  const listening = await listen(createPeerServer(role, upstream), options.port ?? 0, host, '/graphql');
  return {
    ...listening,
    async close() {
      await listening.close();
      await upstream.close();
    },
  };
}
