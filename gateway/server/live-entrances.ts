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
import type { WsEntrance } from './live-ws.js';
import type { Route } from './routes.js';
import { webhookRoute } from './webhook-route.js';
import { builtOnFirstCall } from '../util/built-on-first-call.js';

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
  // The transports (graphql-sse, graphql-ws, ws) are imported when their first client comes.
  const sse = builtOnFirstCall(async () => {
    const { createSseEntrance } = await import('./live-sse.js');
    return createSseEntrance(live, { heartbeatS, maxBodyBytes: config.limits.maxBodyBytes });
  });
  const ws = wsOnFirstUpgrade(async () => {
    const { createWsEntrance } = await import('./live-ws.js');
    return createWsEntrance(live, {
      path: parts.graphqlPath,
      heartbeatS,
      maxPayload: config.limits.maxBodyBytes,
      schema: () => blueprint.schema,
    });
  });
  return {
    hub,
    sse,
    upgrade: ws.upgrade,
    routes: [...config.webhooks.values()].map((hook) => ({ path: hook.path, handler: webhookRoute(hook, () => hub, parts.listener) })),
    close() {
      hub.close();
      // After the `complete` messages the hub's streams just queued.
      setImmediate(() => ws.close());
    },
  };
}

/**
 * The WebSocket entrance, built by `build` on the first upgrade. Until it is, an upgraded socket
 * waits (what its client sends stays buffered) and is destroyed on a socket error.
 */
function wsOnFirstUpgrade(build: () => Promise<WsEntrance>): WsEntrance {
  let built: WsEntrance | undefined;
  let building: Promise<WsEntrance> | undefined;
  return {
    upgrade(req, socket, head) {
      if (built) return built.upgrade(req, socket, head);
      const destroy = () => socket.destroy();
      socket.on('error', destroy);
      building ??= build().then((entrance) => (built = entrance));
      void building.then((entrance) => {
        socket.off('error', destroy);
        entrance.upgrade(req, socket, head);
      });
    },
    close() {
      void building?.then((entrance) => entrance.close());
    },
  };
}

/** The first media type of an Accept header is `text/event-stream` (any case, spaces around it, parameters after it). */
const FIRST_IS_EVENT_STREAM = /^[ \t]*text\/event-stream[ \t]*(?:[;,]|$)/i;

/** Whether a request on the GraphQL path asks for GraphQL over SSE: one regular-expression test, no strings made per request. */
export function wantsEventStream(accept: string | undefined): boolean {
  return accept !== undefined && FIRST_IS_EVENT_STREAM.test(accept);
}
