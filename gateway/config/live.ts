import { isOwnPath } from './own-paths.js';
import type { TableReader } from './table-reader.js';

/** `[subscriptions]` (docs/live-data.md "Limits"). */
export interface SubscriptionsConfig {
  /** Subscriptions one connection (an SSE stream is one) may hold at once; over it SUBSCRIPTION_LIMIT. */
  readonly maxPerConnection: number;
  /** Subscriptions the process holds at once; over it SUBSCRIPTION_LIMIT. */
  readonly maxTotal: number;
  /** Seconds between heartbeats on an idle stream (an SSE comment, a WebSocket ping). */
  readonly heartbeatS: number;
}

/** `[webhooks.NAME]` (docs/live-data.md "Webhooks"). */
export interface WebhookConfig {
  readonly name: string;
  /** `POST {path}` receives the deliveries. */
  readonly path: string;
  readonly secret: string;
  /** Lower-cased name of the header holding the HMAC-SHA256 signature of the raw body. */
  readonly signatureHeader: string;
  /** Text before the signature in that header (`sha256=`). */
  readonly signaturePrefix: string;
}

export const SUBSCRIPTION_DEFAULTS: SubscriptionsConfig = Object.freeze({ maxPerConnection: 100, maxTotal: 100_000, heartbeatS: 15 });

/** Reads `[subscriptions]` and every `[webhooks.NAME]`; problems go to the tables' diagnostics. */
export function readLive(
  subscriptions: TableReader | undefined,
  webhooks: TableReader | undefined,
): { readonly subscriptions: SubscriptionsConfig; readonly webhooks: ReadonlyMap<string, WebhookConfig> } {
  const d = SUBSCRIPTION_DEFAULTS;
  const subs: SubscriptionsConfig = Object.freeze({
    maxPerConnection: subscriptions?.int('max_per_connection', d.maxPerConnection, 1) ?? d.maxPerConnection,
    maxTotal: subscriptions?.int('max_total', d.maxTotal, 1) ?? d.maxTotal,
    heartbeatS: subscriptions?.int('heartbeat_s', d.heartbeatS, 1, 3600) ?? d.heartbeatS,
  });
  subscriptions?.finish();
  const hooks = new Map<string, WebhookConfig>();
  const paths = new Set<string>();
  for (const [name] of webhooks?.entries() ?? []) {
    const w = webhooks!.table_(name);
    if (!w) continue;
    for (const key of ['path', 'secret', 'signature_header']) if (!w.has(key)) w.problem(undefined, `webhooks.${name}.${key} is required`);
    const path = w.string('path', '/', (v) =>
      !v.startsWith('/') || /[?#\s]/.test(v)
        ? 'must be a path starting with "/" (no query, no spaces)'
        : isOwnPath(v)
          ? `must not be ${v}, a path the gateway serves itself`
          : paths.has(v)
            ? 'is already the path of another webhook'
            : undefined,
    );
    paths.add(path);
    hooks.set(
      name,
      Object.freeze({
        name,
        path,
        secret: w.string('secret', '', (v) => (v === '' ? 'must not be empty' : undefined)),
        signatureHeader: w
          .string('signature_header', 'x-signature', (v) => (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(v) ? undefined : 'must be a header name'))
          .toLowerCase(),
        signaturePrefix: w.string('signature_prefix', ''),
      }),
    );
    w.finish();
  }
  webhooks?.finish();
  return { subscriptions: subs, webhooks: hooks };
}
