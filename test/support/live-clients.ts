import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { until } from './wait.js';

/** What a subscriber received: every event in order, and how its stream ended. */
export interface Subscriber {
  readonly events: Array<{
    data?: unknown;
    errors?: ReadonlyArray<{ message: string; path?: unknown; extensions?: Record<string, unknown> }>;
  }>;
  readonly completed: boolean;
  readonly error: unknown;
  /** Waits until it holds at least `n` events. */
  events_(n: number, limitMs?: number): Promise<void>;
  /** Waits until its stream completed or failed. */
  ended(limitMs?: number): Promise<void>;
  dispose(): void;
}

interface Operation {
  readonly query: string;
  readonly variables?: Record<string, unknown>;
}

type Subscribe = (op: Operation, sink: { next(v: unknown): void; error(e: unknown): void; complete(): void }) => () => void;

function subscriber(subscribe: Subscribe, op: Operation): Subscriber {
  const out = { events: [] as Subscriber['events'], completed: false, error: undefined as unknown } as {
    -readonly [K in keyof Subscriber]: Subscriber[K];
  };
  out.dispose = subscribe(op, {
    next: (v) => out.events.push(v as Subscriber['events'][number]),
    error: (e) => (out.error = e ?? new Error('failed')),
    complete: () => (out.completed = true),
  });
  out.events_ = (n, limitMs = 5000) => until(() => out.events.length >= n || out.error !== undefined, `${n} events`, limitMs);
  out.ended = (limitMs = 5000) => until(() => out.completed || out.error !== undefined, 'the stream to end', limitMs);
  return out;
}

/** One subscription over GraphQL over SSE (graphql-sse's client, distinct connections: one HTTP request each). */
export function sseSubscribe(url: string, op: Operation, headers: Record<string, string> = {}): Subscriber {
  const client = createSseClient({ url, headers, retryAttempts: 0, singleConnection: false });
  return subscriber((o, sink) => client.subscribe(o, sink), op);
}

/** A graphql-ws client over ws: subscriptions of one socket share it. */
export function wsClient(
  url: string,
  connectionParams?: Record<string, unknown>,
  headers: Record<string, string> = {},
): WsClient & { subscriber(op: Operation): Subscriber } {
  const client = createWsClient({
    url: url.replace(/^http/, 'ws'),
    retryAttempts: 0,
    lazy: true,
    connectionParams,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    },
  });
  return Object.assign(client, { subscriber: (op: Operation) => subscriber((o, sink) => client.subscribe(o, sink), op) });
}
