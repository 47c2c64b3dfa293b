import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { GRAPHQL_TRANSPORT_WS_PROTOCOL } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { LiveConnection } from '../live/hub.js';
import { headerOf } from './http-request.js';
import { runStreamed, type LiveOperations, type Streamed } from './live-operations.js';

export interface WsEntrance {
  /** Takes an HTTP upgrade of the GraphQL path; any other is refused. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every socket (after their subscriptions completed: their `complete` messages go first). */
  close(): void;
}

/**
 * GraphQL over WebSocket (docs/live-data.md "Transports"): graphql-ws's `graphql-transport-ws`
 * protocol on the GraphQL path, over ws. A socket is one connection for `max_per_connection`; its
 * headers are the upgrade request's, and a string `connectionParams` member (`authorization`, a
 * forwarded header, by lower-case name) stands in for a header a browser cannot set. ws pings every
 * `heartbeat_s`. A refused operation is an `error` message with the codes of its errors.
 */
export function createWsEntrance(
  live: () => LiveOperations,
  options: { readonly path: string; readonly heartbeatS: number; readonly maxPayload: number; readonly schema: () => GraphQLSchema },
): WsEntrance {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayload,
    handleProtocols: (protocols) => (protocols.has(GRAPHQL_TRANSPORT_WS_PROTOCOL) ? GRAPHQL_TRANSPORT_WS_PROTOCOL : false),
  });
  const connections = new WeakMap<object, LiveConnection>();
  useServer(
    {
      onSubscribe: async (ctx, _id, payload) => {
        let connection = connections.get(ctx);
        if (!connection) connections.set(ctx, (connection = new LiveConnection()));
        const params = (ctx.connectionParams ?? {}) as Record<string, unknown>;
        const header = (name: string): string | undefined => paramHeader(params, name) ?? headerOf(ctx.extra.request, name);
        const streamed: Streamed = await runStreamed(live(), { ...payload, header, connection });
        const { outcome, document } = streamed;
        if (!document || (!('data' in outcome) && 'errors' in outcome && outcome.errors?.length))
          return (outcome as { errors: readonly GraphQLError[] }).errors.map(asGraphQLError);
        const args: ExecutionArgs = { schema: options.schema(), document, operationName: payload.operationName, contextValue: outcome };
        return args;
      },
      subscribe: (args) => args.contextValue as never,
      execute: (args) => args.contextValue as never,
    },
    wss,
    options.heartbeatS * 1000,
  );
  return {
    upgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (path !== options.path) {
        socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    close() {
      for (const ws of wss.clients) ws.close(1001, 'the gateway is shutting down');
    },
  };
}

/** A string member of connectionParams named like the header (any case). */
function paramHeader(params: Record<string, unknown>, name: string): string | undefined {
  for (const [key, value] of Object.entries(params)) if (key.toLowerCase() === name && typeof value === 'string') return value;
  return undefined;
}

function asGraphQLError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  const e = error as { message?: unknown; extensions?: Record<string, unknown> };
  return new GraphQLError(String(e.message ?? 'error'), { extensions: e.extensions });
}
