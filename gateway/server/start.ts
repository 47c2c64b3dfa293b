import { ClientBudgets } from '../execute/ask/client-budget.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../config/load.js';
import type { GatewayConfig, PlanMode, TracingConfig } from '../config/types.js';
import type { Tracing } from '../observability/tracing.js';
import { createAuthenticator } from '../auth/authenticate.js';
import type { Authenticate } from '../auth/access.js';
import type { ObserveRequests } from '../execute/send/listener.js';
import { buildBlueprint } from '../blueprint/build.js';
import type { Blueprint } from '../blueprint/types.js';
import { L2Cache, l2LimitsOf } from '../cache/l2.js';
import type { MemcachedTier } from '../cache/tier.js';
import { createExecutor, type Executor } from '../execute/executor.js';
import { createMemcachedTier } from '../cache/memcached.js';
import { createMetrics, type GatewayMetrics } from '../observability/metrics.js';
import { SourceClient } from '../upstream/client.js';
import { builtOnFirstCall } from '../util/built-on-first-call.js';
import { createFastPath, type FastPath, type YogaFallback } from './fast-path.js';
import { createLifecycle, READINESS_PATH, type Lifecycle } from './lifecycle.js';
import { createAnswers, type Answers } from './answers.js';
import { CorsPolicy } from './cors.js';
import { DEBUG_HEADER_NAMES, WORKER_HEADER } from './debug-headers.js';
import { createDocumentStore, type DocumentStore } from './documents.js';
import { createOperationPath, type OperationPath } from './operation.js';
import { createGraphiQLAssets, GRAPHIQL_ASSET_PREFIX } from './graphiql.js';
import { createPersistedDocuments, trustedOperationNames } from './persisted.js';
import { createReloader, type InstalledVersion, type ReloadOptions, type ReloadReport } from './reload.js';
import { sampleQuery } from './sample-query.js';
import { GRAPHQL_PATH, HEALTH_PATH, metricsRoute, routeTable, type Route, type RouteHandler } from './routes.js';
import { createLiveEntrances, wantsEventStream, type LiveEntrances } from './live-entrances.js';
import { createLiveMetrics } from '../observability/live-metrics.js';
import type { LiveListener } from '../live/listener.js';

/**
 * Programmatic entry point: load a gateway.toml, compile its schema, and serve it over HTTP.
 * Used by the CLI, by `npm start`, by the tests and by the benchmark.
 */
export interface StartOptions {
  readonly configPath: string;
  /** Overrides [gateway] port; 0 picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** Overrides [gateway] plan, at start and on every reload (the tests' GQLGW_TEST_PLAN, test/support/gateway.ts). */
  readonly plan?: PlanMode;
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
  /** Where the metrics are served, e.g. http://127.0.0.1:9464/metrics (on their own port with `[metrics] port`). */
  readonly metricsUrl: string | undefined;
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
  const config = withPlan(loadConfig(options.configPath), options.plan);
  const blueprint = buildBlueprint(config);
  const metrics: GatewayMetrics | undefined = config.metrics.enabled ? createMetrics() : undefined;
  // What every version of this process shares: its metrics, and its tracer (read at start-up).
  const shared = {
    metrics,
    renderMetrics: metrics && (options.worker ? options.worker.shareMetrics(metrics) : metrics.render),
    tracing: config.tracing && (await loadTracing(config.tracing, metrics)),
    liveMetrics: metrics && createLiveMetrics(metrics.registry),
  };
  let version = createVersion({
    ...shared,
    config,
    blueprint,
    l2: new L2Cache(l2LimitsOf(config.cache)),
    previous: undefined,
    worker: options.worker && String(options.worker.id),
    ready: () => servers.lifecycle.ready,
  });
  const servers = createServers(config, () => version);
  const { lifecycle, metricsServer } = servers;
  const listening = await listenAll(servers, config, options);
  const url = listening.url;
  let stopped: Promise<boolean> | undefined;
  const shutdown = (graceMs: number = version.config.shutdownGraceMs): Promise<boolean> => {
    stopped ??= (async () => {
      metricsServer?.close();
      metricsServer?.closeAllConnections();
      // Every subscription completes first: its stream ends, so the drain does not wait for it.
      version.live.close();
      const inTime = await lifecycle.drain(graceMs);
      await version.close();
      await shared.tracing?.shutdown();
      return inTime;
    })();
    return stopped;
  };
  const reloader = createReloader({
    configPath: options.configPath,
    url,
    overridden: { host: options.host !== undefined, port: options.port !== undefined },
    current: () => version,
    install(next) {
      const old = version;
      version = createVersion({
        ...next,
        ...shared,
        config: withPlan(next.config, options.plan),
        previous: old,
        worker: old.worker,
        ready: old.ready,
      });
      void old.retire(version);
    },
  });
  return {
    url,
    port: listening.port,
    metricsUrl: listening.metricsUrl,
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

/** The servers of a gateway: the GraphQL port's, its lifecycle, and `[metrics] port`'s own when there is one. */
interface Servers {
  readonly server: Server;
  readonly lifecycle: Lifecycle;
  readonly metricsServer: Server | undefined;
}

/**
 * The servers, not yet listening. Every request is answered by the version `current` when it
 * arrives, to the end, whatever reloads meanwhile.
 */
function createServers(config: GatewayConfig, current: () => ServingVersion): Servers {
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
      lifecycle.admit(res);
      current().handle(req, res);
    },
  );
  const lifecycle = createLifecycle(server);
  server.on('upgrade', (req, socket, head) => current().live.upgrade(req, socket, head));
  // `[metrics] port`: the metrics on a listener of their own (fixed at start-up, like the port).
  const metricsServer =
    config.metrics.enabled && config.metrics.port !== undefined
      ? createServer((req: IncomingMessage, res: ServerResponse) => current().handleMetrics(req, res))
      : undefined;
  return { server, lifecycle, metricsServer };
}

/** Listens on the GraphQL port and `[metrics] port`; returns where the GraphQL path and the metrics are reached. */
async function listenAll(
  servers: Servers,
  config: GatewayConfig,
  options: StartOptions,
): Promise<{ readonly url: string; readonly port: number; readonly metricsUrl: string | undefined }> {
  const { server, metricsServer } = servers;
  const host = options.host ?? config.host;
  await listen(server, options.port ?? config.port, host);
  if (metricsServer) {
    try {
      await listen(metricsServer, config.metrics.port!, config.metrics.host);
    } catch (err) {
      await new Promise<void>((done) => server.close(() => done()));
      throw err;
    }
  }
  const port = (server.address() as AddressInfo).port;
  const metricsUrl = !config.metrics.enabled
    ? undefined
    : metricsServer
      ? `${httpOrigin(config.metrics.host, (metricsServer.address() as AddressInfo).port)}${config.metrics.path}`
      : metricsOnGraphqlPort(config)
        ? `${httpOrigin(host, port)}${config.metrics.path}`
        : undefined;
  return { url: `${httpOrigin(host, port)}${GRAPHQL_PATH}`, port, metricsUrl };
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

function httpOrigin(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
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
  /** `[rate_limit]`'s buckets: kept by a reload that leaves that table as it was. */
  readonly budgets: ClientBudgets | undefined;
  /** Subscriptions, their transports and webhooks (docs/live-data.md). */
  readonly live: LiveEntrances;
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** The listener of `[metrics] port`: the metrics path, and 404 for everything else. */
  handleMetrics(req: IncomingMessage, res: ServerResponse): void;
  readonly worker: string | undefined;
  readonly ready: () => boolean;
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
  /** With `--workers`: this worker's id (X-GQL-Worker when debug headers are on). */
  readonly worker: string | undefined;
  /** What /readyz reports: false once shutdown began. */
  readonly ready: () => boolean;
  /** [tracing] as read at start-up; undefined: off. */
  readonly tracing: Tracing | undefined;
  /** The live-data series, registered once per process. */
  readonly liveMetrics: LiveListener | undefined;
}

/** `StartOptions.plan` over the config's `[gateway] plan`. */
function withPlan(config: GatewayConfig, plan: PlanMode | undefined): GatewayConfig {
  return plan === undefined ? config : { ...config, plan };
}

/**
 * The tracer of [tracing], imported only then: without [tracing] no OpenTelemetry module is loaded
 * (observability/tracing.ts).
 */
async function loadTracing(config: TracingConfig, metrics: GatewayMetrics | undefined): Promise<Tracing> {
  const { createTracing } = await import('../observability/tracing.js');
  return createTracing(config, (spans) => metrics?.onSpansDropped(spans));
}

/**
 * One serving version, in named steps: what it reuses of the previous version (source pools,
 * memcached, rate-limit buckets), its executor, its answers, the one operation path both entrances
 * call, the entrances, and the route table.
 */
function createVersion(parts: VersionParts): ServingVersion {
  const { config, blueprint, metrics, l2, worker, ready } = parts;
  const reused = reusedParts(parts);
  const { clients, memcached, budgets } = reused;
  // One token check (and one key set) per version, for the operation path, the executor and the hub.
  const authenticate = config.auth && createAuthenticator(config.auth).authenticate;
  const observe = parts.tracing?.observe(blueprint);
  const executor = versionExecutor(parts, { ...reused, authenticate, observe });
  const answers = versionAnswers(config, metrics, worker);
  const documents = createDocumentStore(
    blueprint.schema,
    { ...config.limits, introspection: config.introspection },
    metrics?.onDocumentParsed,
  );
  const persisted = createPersistedDocuments({ trusted: config.persistedDocuments, onlyPersisted: config.onlyPersisted });
  metrics?.pinOperations(trustedOperationNames(config.persistedDocuments));
  const operations = createOperationPath({ executor, documents, persisted, authenticate, observe });
  const live = createLiveEntrances({
    config,
    blueprint,
    executor,
    documents,
    tiers: { l2, memcached },
    authenticate,
    listener: parts.liveMetrics,
    graphqlPath: GRAPHQL_PATH,
  });
  const metricsHandler =
    metrics && parts.renderMetrics
      ? metricsRoute({ answers, render: parts.renderMetrics, contentType: metrics.contentType, token: config.metrics.token })
      : undefined;
  const routes = versionRoutes({ parts, answers, documents, operations, live, metricsHandler });
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
    budgets,
    live,
    worker,
    ready,
    handle: routeTable(routes, answers),
    handleMetrics: routeTable(metricsHandler ? [{ path: config.metrics.path, handler: metricsHandler }] : [], answers),
    retire: (next) => {
      live.close();
      return closeUnused(next);
    },
    close: () => closeUnused(undefined),
  };
}

/** What a version keeps of the one it replaces: each part whose config is unchanged. */
interface ReusedParts {
  readonly clients: ReadonlyMap<string, SourceClient>;
  readonly memcached: MemcachedTier | undefined;
  readonly budgets: ClientBudgets | undefined;
}

function reusedParts(parts: VersionParts): ReusedParts {
  const { config, metrics, previous } = parts;
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
  const budgets =
    previous && sameJson(previous.config.clientBudget, config.clientBudget)
      ? previous.budgets
      : config.clientBudget && new ClientBudgets(config.clientBudget);
  return { clients, memcached, budgets };
}

/**
 * The version's executor. It checks no token of the HTTP entrances (the operation path did, before
 * parsing); `authenticate` is for what comes without one: the streaming transports' queries and polls.
 */
function versionExecutor(
  parts: VersionParts,
  reused: ReusedParts & { readonly authenticate: Authenticate | undefined; readonly observe: ObserveRequests | undefined },
): Executor {
  const { config, blueprint, metrics, l2 } = parts;
  return createExecutor({
    blueprint,
    clients: reused.clients,
    l2,
    memcached: reused.memcached,
    listener: metrics?.listener,
    maxSubrequests: config.limits.maxSubrequests,
    maxJsonDepth: config.limits.maxJsonDepth,
    maxOperationUpstreamBytes: config.limits.maxOperationUpstreamBytes,
    answerLimits: { maxNodes: config.limits.maxResultNodes, maxBytes: config.limits.maxResponseBytes },
    debugMode: config.debugMode,
    plan: config.plan,
    authenticate: reused.authenticate,
    observe: reused.observe,
    cost: {
      assumedListSize: config.limits.assumedListSize,
      maxPlannedSubrequests: config.limits.maxPlannedSubrequests,
      budgets: reused.budgets,
      clientHeader: config.clientBudget?.clientHeader,
      show: config.debugMode,
    },
  });
}

function versionAnswers(config: GatewayConfig, metrics: GatewayMetrics | undefined, worker: string | undefined): Answers {
  const forwarded = [...config.sources.values()].flatMap((source) => source.forwardHeaders);
  const cors = config.cors && new CorsPolicy(config.cors, forwarded, config.debugMode ? [...DEBUG_HEADER_NAMES, WORKER_HEADER] : []);
  return createAnswers({
    debugMode: config.debugMode,
    introspection: config.introspection,
    cors,
    onAnswer: metrics?.onHttpAnswer,
    worker,
    maxResponseBytes: config.limits.maxResponseBytes,
    onUnexpected: logUnexpected,
  });
}

/** The route table, by the request's path only (never Host), first match wins; any other path is 404. */
function versionRoutes(at: {
  readonly parts: VersionParts;
  readonly answers: Answers;
  readonly documents: DocumentStore;
  readonly operations: OperationPath;
  readonly live: LiveEntrances;
  readonly metricsHandler: RouteHandler | undefined;
}): Route[] {
  const { parts, answers, metricsHandler } = at;
  const { config, blueprint, metrics } = parts;
  // Yoga is built (and graphql-yoga imported) on its first request: most clients take the fast path.
  const toYoga: YogaFallback = builtOnFirstCall(async () => {
    const { createGatewayYoga, createYogaEntrance } = await import('./yoga.js');
    const yoga = createGatewayYoga({
      schema: blueprint.schema,
      operations: at.operations,
      answers,
      documents: at.documents,
      maxBodyBytes: config.limits.maxBodyBytes,
      graphiql: config.graphiql,
      defaultQuery: sampleQuery(blueprint.schema, config.debugMode),
    });
    return createYogaEntrance(yoga, answers);
  });
  const fastPath = createFastPath({
    operations: at.operations,
    answers,
    maxBodyBytes: config.limits.maxBodyBytes,
    fallback: toYoga,
    onServed: metrics?.onFastPath,
  });
  const graphiqlAssets = config.graphiql ? createGraphiQLAssets(answers) : undefined;
  const readiness: RouteHandler = (request, res) =>
    answers.write(res, request.method === 'GET' ? answers.readiness(parts.ready()) : answers.notFound());
  return [
    { path: READINESS_PATH, handler: readiness },
    ...(metricsHandler && metricsOnGraphqlPort(config) ? [{ path: config.metrics.path, handler: metricsHandler }] : []),
    { path: GRAPHQL_PATH, handler: graphqlRoute({ answers, live: at.live, fastPath, toYoga }) },
    ...(graphiqlAssets ? [{ path: GRAPHIQL_ASSET_PREFIX, prefix: true, handler: graphiqlAssets }] : []),
    { path: HEALTH_PATH, handler: (request, res) => toYoga(request, res, undefined) },
    ...at.live.routes,
  ];
}

/**
 * The GraphQL path: one guard for every request that may run an operation, then one of the two
 * entrances. Only a JSON body may carry a POST operation (http-request.ts BODY_TYPES): a form post is
 * what a cross-site page can send without a preflight.
 */
function graphqlRoute(at: {
  readonly answers: Answers;
  readonly live: LiveEntrances;
  readonly fastPath: FastPath;
  readonly toYoga: YogaFallback;
}): RouteHandler {
  const { answers, live, fastPath, toYoga } = at;
  return (request, res) => {
    if (request.method === 'OPTIONS') {
      return answers.write(res, answers.options(request.origin, request.header('access-control-request-method')));
    }
    if (wantsEventStream(request.header('accept'))) return live.sse(request.node, res);
    if (request.method === 'POST') {
      if (!request.jsonBody) return answers.write(res, answers.unsupportedMediaType(request));
      if (fastPath.takes(request)) return fastPath.serve(request, res);
    }
    return toYoga(request, res, undefined);
  };
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** An error nobody expected: the client gets "Unexpected error."; the operator gets its stack on stderr. */
function logUnexpected(error: unknown): void {
  const what = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  process.stderr.write(`gqlgw: an unexpected error was answered with 500: ${what}\n`);
}

/**
 * Whether the GraphQL port serves the metrics path: without a `[metrics] port` of their own, and
 * only when the schema is not hidden (`introspection = false` keeps them off the public port,
 * docs/hardening.md "Metrics") unless a `[metrics] token` guards them.
 */
function metricsOnGraphqlPort(config: GatewayConfig): boolean {
  return config.metrics.port === undefined && (config.introspection || config.metrics.token !== undefined);
}
