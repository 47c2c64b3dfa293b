import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../config/load.js';
import type { GatewayConfig } from '../config/types.js';
import { buildBlueprint } from '../blueprint/build.js';
import type { Blueprint } from '../blueprint/types.js';
import { L2Cache } from '../cache/l2.js';
import type { SharedCacheTier } from '../cache/tier.js';
import { createExecutor, type Executor } from '../execute/executor.js';
import { createMemcachedTier } from '../cache/memcached.js';
import { createMetrics, type GatewayMetrics } from '../observability/metrics.js';
import { SourceClient } from '../upstream/client.js';
import { answerWithYoga, createGatewayYoga } from './yoga.js';
import { createFastPath } from './fast-path.js';
import { createLifecycle } from './lifecycle.js';

/**
 * Programmatic entry point: load a gateway.toml, compile its schema, and serve it over HTTP.
 * Used by the CLI, by `npm start`, by the tests and by the benchmark.
 */
export interface StartOptions {
  readonly configPath: string;
  /** Overrides [gateway] port; 0 picks a free port. */
  readonly port?: number;
  readonly host?: string;
}

export interface RunningGateway {
  /** e.g. http://127.0.0.1:4000/graphql */
  readonly url: string;
  readonly port: number;
  readonly config: GatewayConfig;
  readonly blueprint: Blueprint;
  readonly executor: Executor;
  /** False once shutdown began (then `/readyz` answers 503). */
  readonly ready: boolean;
  /**
   * Graceful stop (what SIGTERM does): stops accepting connections, lets in-flight requests finish
   * within `graceMs` (default [gateway] shutdown_grace_ms), then closes every connection, the
   * source pools and memcached. Resolves with whether every in-flight request finished in time.
   */
  shutdown(graceMs?: number): Promise<boolean>;
  /** Immediate stop: `shutdown(0)`. */
  close(): Promise<void>;
}

/**
 * Loads and compiles everything first (throwing GatewayConfigError with every problem), then
 * listens. Nothing on the request path reads config or directives again.
 */
export async function startGateway(options: StartOptions): Promise<RunningGateway> {
  const config = loadConfig(options.configPath);
  const blueprint = buildBlueprint(config);
  const clients = new Map([...config.sources.values()].map((s) => [s.name, new SourceClient(s)]));
  const metrics: GatewayMetrics | undefined = config.metrics.enabled ? createMetrics() : undefined;
  const l3: SharedCacheTier | undefined = config.cache.memcached
    ? createMemcachedTier(config.cache.memcached, metrics && { onFailure: metrics.onCacheTierFailure, onSkip: metrics.onCacheTierSkip })
    : undefined;
  const executor = createExecutor({
    blueprint,
    clients,
    l2: new L2Cache(config.cache.l2MaxEntries),
    l3,
    listener: metrics?.listener,
    maxSubrequests: config.limits.maxSubrequests,
    exposeDetail: config.debugHeaders,
  });
  const yoga = createGatewayYoga({ schema: blueprint.schema, executor, debugHeaders: config.debugHeaders, limits: config.limits });
  const fastPath = createFastPath({
    schema: blueprint.schema,
    executor,
    debug: config.debugHeaders,
    limits: config.limits,
    fallback: (req, res, body) => answerWithYoga(yoga, req, res, body),
  });
  const metricsPath = config.metrics.path;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (lifecycle.admit(req, res)) return;
    if (metrics && req.method === 'GET' && req.url?.split('?')[0] === metricsPath) {
      void serveMetrics(metrics, res);
      return;
    }
    if (fastPath(req, res)) return;
    void yoga.requestListener(req, res);
  });
  // A client must send its whole request (headers and body) within these, or its socket is closed.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  const lifecycle = createLifecycle(server);
  const host = options.host ?? config.host;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? config.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let stopped: Promise<boolean> | undefined;
  const shutdown = (graceMs: number = config.shutdownGraceMs): Promise<boolean> => {
    stopped ??= (async () => {
      const inTime = await lifecycle.drain(graceMs);
      await Promise.all([...clients.values()].map((c) => c.close()));
      await l3?.close();
      return inTime;
    })();
    return stopped;
  };
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/graphql`,
    port,
    config,
    blueprint,
    executor,
    get ready() {
      return lifecycle.ready;
    },
    shutdown,
    async close() {
      await shutdown(0);
    },
  };
}

async function serveMetrics(metrics: GatewayMetrics, res: ServerResponse): Promise<void> {
  try {
    const text = await metrics.render();
    res.writeHead(200, { 'content-type': metrics.contentType }).end(text);
  } catch {
    res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
  }
}
