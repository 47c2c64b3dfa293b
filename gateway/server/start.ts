import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../config/load.js';
import type { GatewayConfig } from '../config/types.js';
import { buildBlueprint } from '../blueprint/build.js';
import type { Blueprint } from '../blueprint/types.js';
import { L2Cache, l2LimitsOf } from '../cache/l2.js';
import type { MemcachedTier } from '../cache/tier.js';
import { createExecutor, type Executor } from '../execute/executor.js';
import { createMemcachedTier } from '../cache/memcached.js';
import { createMetrics, type GatewayMetrics } from '../observability/metrics.js';
import { SourceClient } from '../upstream/client.js';
import { answerWithYoga, createGatewayYoga } from './yoga.js';
import { createFastPath, isGraphQLPath } from './fast-path.js';
import { createLifecycle } from './lifecycle.js';
import { createAnswers, writeAnswer } from './answers.js';
import { CorsPolicy } from './cors.js';
import { DEBUG_HEADER_NAMES, WORKER_HEADER } from './debug-headers.js';
import { createDocumentStore } from './documents.js';
import { createGraphiQLAssets } from './graphiql.js';
import { createPersistedDocuments } from './persisted.js';
import { createReloader, type InstalledVersion, type ReloadOptions, type ReloadReport } from './reload.js';

/**
 * Programmatic entry point: load a gateway.toml, compile its schema, and serve it over HTTP.
 * Used by the CLI, by `npm start`, by the tests and by the benchmark.
 */
export interface StartOptions {
  readonly configPath: string;
  /** Overrides [gateway] port; 0 picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** Set when this process is one worker of `gqlgw serve --workers N` (gateway/server/workers.ts). */
  readonly worker?: WorkerRole;
}

/** What a cluster worker changes in its gateway (docs/scale-out.md). */
export interface WorkerRole {
  /** The worker's id, sent as `X-GQL-Worker` when debug headers are on. */
  readonly id: number;
  /** Given this worker's metrics once at start-up; returns what `/metrics` serves: the sum over all workers. */
  shareMetrics(metrics: GatewayMetrics): () => Promise<string>;
}

export interface RunningGateway {
  /** e.g. http://127.0.0.1:4000/graphql */
  readonly url: string;
  readonly port: number;
  /** The config, blueprint and executor now serving (a reload replaces them). */
  readonly config: GatewayConfig;
  readonly blueprint: Blueprint;
  readonly executor: Executor;
  /** False once shutdown began (then `/readyz` answers 503). */
  readonly ready: boolean;
  /**
   * Reads config and schema again and, when they compile, serves them from the next request on
   * (SIGHUP, `serve --watch`; gateway/server/reload.ts). Never throws for a user's mistake: a
   * broken edit comes back as `{ ok: false, diagnostics }` and the last good version keeps serving.
   */
  reload(options?: ReloadOptions): ReloadReport;
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
  const metrics: GatewayMetrics | undefined = config.metrics.enabled ? createMetrics() : undefined;
  const renderMetrics = metrics && (options.worker ? options.worker.shareMetrics(metrics) : metrics.render);
  let version = createVersion({
    config,
    blueprint,
    metrics,
    renderMetrics,
    l2: new L2Cache(l2LimitsOf(config.cache)),
    previous: undefined,
  });
  const workerId = options.worker && String(options.worker.id);
  // A client must send its request headers within headers_timeout_ms and its whole request within
  // request_timeout_ms (defaults 10 s and 30 s, docs/hardening.md), or it gets 408 and its socket is
  // closed. Node checks these every connectionsCheckingInterval: 1 s keeps the cut within 2 s.
  // Fixed at start-up: a reload that changes them needs a restart.
  const server = createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs),
    },
    (req: IncomingMessage, res: ServerResponse) => {
      if (workerId !== undefined && version.config.debugHeaders) res.setHeader(WORKER_HEADER, workerId);
      if (lifecycle.admit(req, res)) return;
      // The version current when the request arrives answers it to the end, whatever reloads meanwhile.
      version.handle(req, res);
    },
  );
  const lifecycle = createLifecycle(server);
  const host = options.host ?? config.host;
  await listen(server, options.port ?? config.port, host);
  let stopped: Promise<boolean> | undefined;
  const shutdown = (graceMs: number = version.config.shutdownGraceMs): Promise<boolean> => {
    stopped ??= (async () => {
      const inTime = await lifecycle.drain(graceMs);
      await version.close();
      return inTime;
    })();
    return stopped;
  };
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${port}/graphql`;
  const reloader = createReloader({
    configPath: options.configPath,
    url,
    overridden: { host: options.host !== undefined, port: options.port !== undefined },
    current: () => version,
    install(next) {
      const old = version;
      version = createVersion({ ...next, metrics, renderMetrics, previous: old });
      void old.retire(version);
    },
  });
  return {
    url,
    port,
    get config() {
      return version.config;
    },
    get blueprint() {
      return version.blueprint;
    },
    get executor() {
      return version.executor;
    },
    get ready() {
      return lifecycle.ready;
    },
    reload: (reloadOptions) => (stopped ? { status: 'unchanged' } : reloader.reload(reloadOptions)),
    shutdown,
    async close() {
      await shutdown(0);
    },
  };
}

/** A listen failure: names the address and what to do; the CLI prints it without a stack. */
export class ListenError extends Error {
  constructor(
    readonly address: string,
    readonly code: string,
    cause: Error,
  ) {
    const why =
      code === 'EADDRINUSE'
        ? 'the address is already in use; stop what uses it, or pick another --port'
        : code === 'EACCES'
          ? 'permission denied (ports below 1024 need privileges); pick another --port'
          : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN'
            ? 'this machine has no such address; fix --host or [gateway] host (127.0.0.1 serves only this machine), or pick another --port'
            : `${cause.message}; pick another --port`;
    super(`cannot listen on ${address}: ${why} (--port 0 picks a free one)`);
    this.name = 'ListenError';
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => {
      const shown = host.includes(':') ? `[${host}]` : host;
      reject(new ListenError(`${shown}:${port}`, err.code ?? 'ERROR', err));
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

/** One compiled config + schema and everything built from it; requests keep the version they started on. */
interface ServingVersion extends InstalledVersion {
  readonly executor: Executor;
  readonly clients: ReadonlyMap<string, SourceClient>;
  readonly memcached: MemcachedTier | undefined;
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** After a reload: closes the source pools and memcached tier `next` does not reuse, once their requests finished. */
  retire(next: ServingVersion): Promise<void>;
  /** At shutdown: closes every pool and the memcached tier. */
  close(): Promise<void>;
}

interface VersionParts extends InstalledVersion {
  readonly metrics: GatewayMetrics | undefined;
  /** What the metrics path serves: this process's metrics, or in a worker the sum over all workers. */
  readonly renderMetrics: (() => Promise<string>) | undefined;
  /** The version being replaced: its source pools and memcached tier are reused where their config is unchanged. */
  readonly previous: ServingVersion | undefined;
}

function createVersion(parts: VersionParts): ServingVersion {
  const { config, blueprint, metrics, renderMetrics, l2, previous } = parts;
  const clients = new Map(
    [...config.sources.values()].map((s) => {
      const old = previous?.clients.get(s.name);
      const same = old && sameJson(previous!.config.sources.get(s.name), s) && sameJson(previous!.config.limits, config.limits);
      return [s.name, same ? old : new SourceClient(s, { maxJsonDepth: config.limits.maxJsonDepth })] as const;
    }),
  );
  const memcached: MemcachedTier | undefined =
    previous && sameJson(previous.config.cache.memcached, config.cache.memcached)
      ? previous.memcached
      : config.cache.memcached
        ? createMemcachedTier(config.cache.memcached, metrics && { onFailure: metrics.onCacheTierFailure, onSkip: metrics.onCacheTierSkip })
        : undefined;
  const executor = createExecutor({
    blueprint,
    clients,
    l2,
    memcached,
    listener: metrics?.listener,
    maxSubrequests: config.limits.maxSubrequests,
    maxJsonDepth: config.limits.maxJsonDepth,
    maxOperationUpstreamBytes: config.limits.maxOperationUpstreamBytes,
    answerLimits: { maxNodes: config.limits.maxResultNodes, maxBytes: config.limits.maxResponseBytes },
    exposeDetail: config.debugHeaders,
  });
  const forwarded = [...config.sources.values()].flatMap((source) => source.forwardHeaders);
  const cors = config.cors && new CorsPolicy(config.cors, forwarded, config.debugHeaders ? [...DEBUG_HEADER_NAMES, WORKER_HEADER] : []);
  const answers = createAnswers({
    debug: config.debugHeaders,
    cors,
    onAnswer: metrics?.onHttpAnswer,
    maxResponseBytes: config.limits.maxResponseBytes,
  });
  const documents = createDocumentStore(
    blueprint.schema,
    { ...config.limits, introspection: config.introspection },
    metrics?.onDocumentParsed,
  );
  const persisted = createPersistedDocuments({ trusted: config.persistedDocuments, onlyPersisted: config.onlyPersisted });
  const yoga = createGatewayYoga({
    schema: blueprint.schema,
    executor,
    answers,
    documents,
    persisted,
    maxBodyBytes: config.limits.maxBodyBytes,
    graphiql: config.graphiql,
  });
  const fastPath = createFastPath({
    executor,
    answers,
    documents,
    persisted,
    maxBodyBytes: config.limits.maxBodyBytes,
    fallback: (req, res, body) => answerWithYoga({ yoga, answers }, req, res, body),
    onServed: metrics?.onFastPath,
  });
  const graphiqlAssets = config.graphiql ? createGraphiQLAssets() : undefined;
  const metricsPath = config.metrics.path;
  const closeUnused = async (keep: ServingVersion | undefined) => {
    const graceMs = config.shutdownGraceMs;
    await Promise.all([...clients.values()].filter((c) => keep?.clients.get(c.name) !== c).map((c) => c.close(graceMs)));
    if (memcached && keep?.memcached !== memcached) await memcached.close();
  };
  return {
    config,
    blueprint,
    l2,
    executor,
    clients,
    memcached,
    handle(req, res) {
      if (metrics && renderMetrics && req.method === 'GET' && req.url?.split('?')[0] === metricsPath) {
        void serveMetrics(renderMetrics, metrics.contentType, res);
        return;
      }
      if (req.method === 'OPTIONS' && isGraphQLPath(req.url)) {
        writeAnswer(res, answers.options(req.headers.origin, headerOf(req, 'access-control-request-method')));
        return;
      }
      if (graphiqlAssets?.(req, res)) return;
      if (fastPath(req, res)) return;
      void yoga.requestListener(req, res);
    },
    retire: (next) => closeUnused(next),
    close: () => closeUnused(undefined),
  };
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function serveMetrics(render: () => Promise<string>, contentType: string, res: ServerResponse): Promise<void> {
  try {
    const text = await render();
    res.writeHead(200, { 'content-type': contentType }).end(text);
  } catch {
    res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
  }
}
