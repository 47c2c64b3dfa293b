import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GatewayConfig } from '../config/types.js';
import type { Blueprint } from '../blueprint/types.js';
import type { CacheTiers } from '../cache/tier.js';
import type { Authenticate } from '../auth/access.js';
import type { Executor } from '../execute/executor.js';
import { LiveHub } from '../live/hub.js';
import type { LiveListener } from '../live/listener.js';
import type { DocumentStore } from './documents.js';
import { createSseEntrance } from './live-sse.js';
import { createWsEntrance } from './live-ws.js';
import type { Route } from './routes.js';
import { webhookRoute } from './webhook-route.js';

/** Live data's part of one serving version (docs/live-data.md). */
export interface LiveEntrances {
  readonly hub: LiveHub;
  /** GraphQL over SSE, for a request on the GraphQL path that asks for `text/event-stream`. */
  readonly sse: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** GraphQL over WebSocket: an HTTP upgrade. */
  readonly upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** One route per `[webhooks.NAME]`. */
  readonly routes: readonly Route[];
  /** Completes every subscription, then closes every WebSocket (shutdown, a retired version). */
  close(): void;
}

export function createLiveEntrances(parts: {
  readonly config: GatewayConfig;
  readonly blueprint: Blueprint;
  readonly executor: Executor;
  readonly documents: DocumentStore;
  readonly tiers: CacheTiers;
  readonly authenticate: Authenticate | undefined;
  readonly listener: LiveListener | undefined;
  readonly graphqlPath: string;
}): LiveEntrances {
  const { config, blueprint, executor, documents } = parts;
  const hub = new LiveHub({
    executor,
    blueprint,
    limits: config.subscriptions,
    // The forwarded headers, and `[rate_limit] client_header`: two clients never share a poll, so
    // each tick is charged to its own client by the executor's cost gate (docs/live-data.md).
    forwardedHeaders: [
      ...[...config.sources.values()].flatMap((s) => s.forwardHeaders),
      ...(config.clientBudget?.clientHeader ? [config.clientBudget.clientHeader] : []),
    ],
    tiers: parts.tiers,
    authenticate: parts.authenticate,
    listener: parts.listener ?? {},
  });
  const live = () => ({ hub, executor, documents });
  const heartbeatS = config.subscriptions.heartbeatS;
  const ws = createWsEntrance(live, {
    path: parts.graphqlPath,
    heartbeatS,
    maxPayload: config.limits.maxBodyBytes,
    schema: () => blueprint.schema,
  });
  return {
    hub,
    sse: createSseEntrance(live, { heartbeatS, maxBodyBytes: config.limits.maxBodyBytes }),
    upgrade: ws.upgrade,
    routes: [...config.webhooks.values()].map((hook) => ({ path: hook.path, handler: webhookRoute(hook, () => hub, parts.listener) })),
    close() {
      hub.close();
      // After the `complete` messages the hub's streams just queued.
      setImmediate(() => ws.close());
    },
  };
}
