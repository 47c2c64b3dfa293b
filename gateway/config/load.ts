import { isOwnPath } from './own-paths.js';
import { readLive } from './live.js';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { PACKAGE_VERSION } from './version.js';
import type {
  ClaimHeader,
  CorsConfig,
  GatewayConfig,
  LimitsConfig,
  MemcachedConfig,
  MetricsConfig,
  PlanMode,
  SourceConfig,
} from './types.js';
import { compileClaimHeader } from './claim-headers.js';
import { checkClaimHeaders, readAuth, type ClaimHeaderUse } from './auth.js';
import { readClientBudget } from './client-budget.js';
import { readTracing } from './tracing.js';
import { sourceManners } from './source-manners.js';
import { readPersistedDocuments } from './persisted-documents.js';
import { GatewayConfigError, type Diagnostic } from './diagnostics.js';
import { TableReader, isTable, type ConfigDocument } from './table-reader.js';
import { expandEnvironment } from './env.js';

/** Defaults of every optional key; README.md's gateway.toml reference lists the same values. */
export const DEFAULTS = {
  host: '127.0.0.1',
  port: 4000,
  schema: ['schema/*.graphqls'],
  timeoutMs: 5000,
  maxResponseBytes: 10 * 1024 * 1024,
  connections: 64,
  maxQueued: 8192,
  shutdownGraceMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  corsMaxAgeS: 600,
  workers: 1,
  maxWorkers: 256,
  l2MaxEntries: 100_000,
  memcachedTimeoutMs: 150,
  memcachedKeyPrefix: 'gqlgw:',
  memcachedFailureThreshold: 5,
  memcachedCooldownMs: 5000,
  memcachedMaxValueBytes: 1024 * 1024 - 1024,
  metricsPath: '/metrics',
  metricsHost: '127.0.0.1',
  limits: {
    maxDepth: 32,
    maxAliases: 200,
    maxTokens: 20_000,
    maxFields: 10_000,
    maxBodyBytes: 1024 * 1024,
    maxSubrequests: 1000,
    maxResponseBytes: 16 * 1024 * 1024,
    maxResultNodes: 200_000,
    maxOperationUpstreamBytes: 64 * 1024 * 1024,
    maxJsonDepth: 256,
    maxPlannedSubrequests: 0,
    assumedListSize: 100,
  } satisfies LimitsConfig,
  l2MaxBytes: 256 * 1024 * 1024,
} as const;

/** Reads, checks and freezes a gateway.toml. Throws GatewayConfigError with every problem. */
export function loadConfig(configPath: string): GatewayConfig {
  const file = resolve(configPath);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new GatewayConfigError([{ file: configPath, line: 1, column: 1, message: `cannot read config: ${(err as Error).message}` }]);
  }
  return parseConfig(text, file, configPath);
}

/**
 * Like loadConfig, from text; `shownName` is how diagnostics name the file, `env` where `${NAME}`
 * is read (config/env.ts).
 */
export function parseConfig(text: string, file: string, shownName = file, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const diagnostics: Diagnostic[] = [];
  const doc = expandEnvironment(parseToml(text, shownName), { file: shownName, text }, env, diagnostics);
  const configDoc: ConfigDocument = { file: shownName, text, diagnostics };
  const root = new TableReader(doc, [], configDoc);
  const table = (name: string): TableReader => root.table_(name) ?? new TableReader({}, [name], configDoc);

  const gateway = readGateway(table('gateway'), file);
  const { sources, claimUses } = readSources(root.table_('sources'), configDoc);
  const cache = readCache(table('cache'));
  const metrics = readMetrics(table('metrics'));
  const cors = readCors(root.table_('cors'));
  const check = readCheck(table('check'));
  const limits = readLimits(table('limits'));
  const auth = readAuth(root.table_('auth'), dirname(file));
  const tracing = readTracing(root.table_('tracing'));
  const clientBudget = readClientBudget(root.table_('rate_limit'));
  const live = readLive(root.table_('subscriptions'), root.table_('webhooks'));
  checkClaimHeaders(claimUses, auth);
  root.finish();

  if (diagnostics.length > 0) throw new GatewayConfigError([...diagnostics].sort((a, b) => a.line - b.line || a.column - b.column));
  const { shutdownGraceMs, workers, ...served } = gateway;
  return Object.freeze({
    file,
    ...served,
    cors,
    shutdownGraceMs,
    workers,
    sources,
    cache,
    metrics,
    check,
    limits,
    auth,
    tracing,
    clientBudget,
    subscriptions: live.subscriptions,
    webhooks: live.webhooks,
  });
}

/** The TOML document; a syntax error is thrown as a GatewayConfigError at its line and column. */
function parseToml(text: string, shownName: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TomlError) {
      const firstLine = err.message.split('\n')[0] ?? err.message;
      throw new GatewayConfigError([{ file: shownName, line: err.line, column: err.column, message: `invalid TOML: ${firstLine}` }]);
    }
    throw err;
  }
}

/** The keys of `[gateway]`. */
type GatewayKeys = Pick<
  GatewayConfig,
  | 'host'
  | 'port'
  | 'schema'
  | 'debugMode'
  | 'plan'
  | 'introspection'
  | 'graphiql'
  | 'persistedDocuments'
  | 'onlyPersisted'
  | 'headersTimeoutMs'
  | 'requestTimeoutMs'
  | 'shutdownGraceMs'
  | 'workers'
>;

/** `[gateway]`; `file` is the config file (persisted_documents is relative to its folder). */
function readGateway(gw: TableReader, file: string): GatewayKeys {
  const host = gw.string('host', DEFAULTS.host, (v) => (v === '' ? 'must not be empty' : undefined));
  const port = gw.int('port', DEFAULTS.port, 0, 65535);
  const schema = gw.strings('schema', DEFAULTS.schema, true);
  if (schema.length === 0) gw.problem('schema', 'gateway.schema must name at least one file or glob');
  const debugMode = gw.bool('debug_headers', false);
  const introspection = gw.bool('introspection', true);
  const graphiql = gw.bool('graphiql', true);
  const persistedFile = gw.string('persisted_documents', '', (v) => (v === '' ? 'must name a JSON file' : undefined));
  const persistedDocuments = persistedFile
    ? readPersistedDocuments(resolve(dirname(file), persistedFile), (message) => gw.problem('persisted_documents', message))
    : undefined;
  const onlyPersisted = gw.bool('only_persisted', false);
  if (onlyPersisted && !gw.has('persisted_documents')) {
    gw.problem(
      'only_persisted',
      'gateway.only_persisted = true needs gateway.persisted_documents (the JSON file of trusted documents); add it or set only_persisted = false',
    );
  }
  const headersTimeoutMs = gw.int('headers_timeout_ms', DEFAULTS.headersTimeoutMs, 100, 600_000);
  const requestTimeoutMs = gw.int('request_timeout_ms', DEFAULTS.requestTimeoutMs, 100, 3_600_000);
  if (requestTimeoutMs < headersTimeoutMs)
    gw.problem(
      'request_timeout_ms',
      `gateway.request_timeout_ms (${requestTimeoutMs}) must be at least gateway.headers_timeout_ms (${headersTimeoutMs})`,
    );
  const shutdownGraceMs = gw.int('shutdown_grace_ms', DEFAULTS.shutdownGraceMs, 0, 600_000);
  const workers = gw.int('workers', DEFAULTS.workers, 1, DEFAULTS.maxWorkers);
  const plan = gw.string('plan', 'compiled', (v) =>
    v === 'compiled' || v === 'interpreted' ? undefined : `must be "compiled" or "interpreted", found "${v}"`,
  ) as PlanMode;
  gw.finish();
  return {
    host,
    port,
    schema: Object.freeze([...schema]),
    debugMode,
    plan,
    introspection,
    graphiql,
    persistedDocuments,
    onlyPersisted,
    headersTimeoutMs,
    requestTimeoutMs,
    shutdownGraceMs,
    workers,
  };
}

/** `[sources.NAME]` tables, and the headers of theirs that read `{auth.…}` (checked against [auth] later). */
function readSources(
  sourcesTable: TableReader | undefined,
  configDoc: ConfigDocument,
): { sources: Map<string, SourceConfig>; claimUses: ClaimHeaderUse[] } {
  const sources = new Map<string, SourceConfig>();
  const claimUses: ClaimHeaderUse[] = [];
  for (const [name, value] of sourcesTable?.entries() ?? []) {
    if (!isTable(value)) {
      sourcesTable!.problem(name, `sources.${name} must be a table ([sources.${name}])`);
      continue;
    }
    sources.set(name, readSource(new TableReader(value, ['sources', name], configDoc), name, claimUses));
  }
  return { sources, claimUses };
}

/** One `[sources.NAME]`; its headers that read `{auth.…}` are appended to `claimUses`. */
function readSource(s: TableReader, name: string, claimUses: ClaimHeaderUse[]): SourceConfig {
  if (!s.has('url')) s.problem(undefined, `sources.${name}.url is required`);
  const url = s.string('url', 'http://127.0.0.1', checkUrl).replace(/\/+$/, '');
  const forwardHeaders = s.strings('forward_headers', []).map((h) => h.toLowerCase());
  const headers = sourceHeaders(s, name);
  for (const h of headers.claims ?? []) {
    if (forwardHeaders.includes(h.name))
      s.problem('headers', `sources.${name}.headers: "${h.name}" reads {auth.…}, so it cannot also be forwarded; keep one`);
    claimUses.push({ reader: s, source: name, header: h });
  }
  const source: SourceConfig = {
    name,
    url,
    timeoutMs: s.int('timeout_ms', DEFAULTS.timeoutMs, 1, 600_000),
    forwardHeaders,
    maxResponseBytes: s.int('max_response_bytes', DEFAULTS.maxResponseBytes, 1),
    connections: s.int('connections', DEFAULTS.connections, 1, 10_000),
    maxQueued: s.int('max_queued', DEFAULTS.maxQueued, 0, 1_000_000),
    coalesce: s.bool('coalesce', true),
    batchAcrossRequests: s.bool('batch_across_requests', true),
    batchWindowMs: s.int('batch_window_ms', 0, 0, 60_000),
    headers: headers.fixed,
    claimHeaders: headers.claims,
    perCaller: forwardHeaders.length > 0 || (headers.claims?.length ?? 0) > 0,
    ...restSourceKeys(s, name),
    ...sourceManners(s, name),
  };
  s.finish();
  return source;
}

/** `[cache]` and `[cache.memcached]`. */
function readCache(cacheTable: TableReader): GatewayConfig['cache'] {
  const l2MaxEntries = cacheTable.int('l2_max_entries', DEFAULTS.l2MaxEntries, 0);
  const l2MaxBytes = cacheTable.int('l2_max_bytes', DEFAULTS.l2MaxBytes, 1);
  // One bound for a value in any tier; [cache.memcached] max_value_bytes, when set, overrides it there.
  const maxValueBytes = cacheTable.int('max_value_bytes', DEFAULTS.memcachedMaxValueBytes, 1);
  const mc = cacheTable.table_('memcached');
  const memcached = mc && readMemcached(mc, maxValueBytes);
  cacheTable.finish();
  return Object.freeze({ l2MaxEntries, l2MaxBytes, maxValueBytes, memcached });
}

/** `[cache.memcached]`; `maxValueBytes` is [cache]'s bound, its default. */
function readMemcached(mc: TableReader, maxValueBytes: number): MemcachedConfig {
  const servers = mc.strings('servers', []);
  if (servers.length === 0) mc.problem('servers', 'cache.memcached.servers must list at least one "host:port"');
  for (const s of servers) if (!/^[^\s:]+:\d+$/.test(s)) mc.problem('servers', `cache.memcached.servers entry "${s}" must be "host:port"`);
  const memcached = {
    servers,
    timeoutMs: mc.int('timeout_ms', DEFAULTS.memcachedTimeoutMs, 1, 60_000),
    keyPrefix: mc.string('key_prefix', DEFAULTS.memcachedKeyPrefix, (v) => (/[\s]/.test(v) ? 'must not contain white space' : undefined)),
    failureThreshold: mc.int('failure_threshold', DEFAULTS.memcachedFailureThreshold, 1),
    cooldownMs: mc.int('cooldown_ms', DEFAULTS.memcachedCooldownMs, 0),
    maxValueBytes: mc.int('max_value_bytes', maxValueBytes, 1),
  };
  mc.finish();
  return memcached;
}

/** `[metrics]`. */
function readMetrics(metricsTable: TableReader): MetricsConfig {
  const metrics = {
    enabled: metricsTable.bool('enabled', true),
    path: metricsTable.string('path', DEFAULTS.metricsPath, (v) =>
      !v.startsWith('/') ? 'must start with "/"' : isOwnPath(v) ? `must not be ${v}, a path the gateway serves itself` : undefined,
    ),
    port: metricsTable.has('port') ? metricsTable.int('port', 0, 0, 65535) : undefined,
    host: metricsTable.string('host', DEFAULTS.metricsHost, (v) => (v === '' ? 'must not be empty' : undefined)),
    token: metricsTable.has('token')
      ? metricsTable.string('token', '', (v) =>
          /^[\x21-\x7e]{16,}$/.test(v) ? undefined : 'must be at least 16 visible ASCII characters, no spaces',
        )
      : undefined,
  };
  metricsTable.finish();
  return Object.freeze(metrics);
}

/** `[cors]`; undefined without it. */
function readCors(corsTable: TableReader | undefined): CorsConfig | undefined {
  if (!corsTable) return undefined;
  const origins = corsTable.strings('origins', []);
  if (origins.length === 0)
    corsTable.problem('origins', 'cors.origins must list at least one origin ("https://app.example.com") or be ["*"]');
  for (const o of origins) {
    const bad = checkOrigin(o);
    if (bad) corsTable.problem('origins', `cors.origins entry "${o}" ${bad}`);
  }
  const credentials = corsTable.bool('credentials', false);
  if (credentials && origins.includes('*')) {
    corsTable.problem(
      'credentials',
      'cors.credentials = true cannot be combined with origins = ["*"] (any site could read answers made with its visitors\' cookies); list the origins instead',
    );
  }
  const cors = Object.freeze({
    origins: Object.freeze([...origins]),
    credentials,
    maxAgeS: corsTable.int('max_age_s', DEFAULTS.corsMaxAgeS, 0, 86_400),
  });
  corsTable.finish();
  return cors;
}

/** `[check]`. */
function readCheck(checkTable: TableReader): GatewayConfig['check'] {
  const check = Object.freeze({
    acceptNPlusOne: Object.freeze([...checkTable.strings('accept_n_plus_one', [])]),
    accept: Object.freeze([...checkTable.strings('accept', [])]),
  });
  checkTable.finish();
  return check;
}

/** `[limits]`. */
function readLimits(lim: TableReader): LimitsConfig {
  const limits: LimitsConfig = {
    // At most 256: the bracket-nesting guard (2 × max_depth + 10) must stay far below what the recursive parser survives.
    maxDepth: lim.int('max_depth', DEFAULTS.limits.maxDepth, 1, 256),
    maxAliases: lim.int('max_aliases', DEFAULTS.limits.maxAliases, 1),
    maxTokens: lim.int('max_tokens', DEFAULTS.limits.maxTokens, 1),
    maxFields: lim.int('max_fields', DEFAULTS.limits.maxFields, 1),
    maxBodyBytes: lim.int('max_body_bytes', DEFAULTS.limits.maxBodyBytes, 1),
    maxSubrequests: lim.int('max_subrequests', DEFAULTS.limits.maxSubrequests, 1),
    maxResponseBytes: lim.int('max_response_bytes', DEFAULTS.limits.maxResponseBytes, 1),
    maxResultNodes: lim.int('max_result_nodes', DEFAULTS.limits.maxResultNodes, 1),
    maxOperationUpstreamBytes: lim.int('max_operation_upstream_bytes', DEFAULTS.limits.maxOperationUpstreamBytes, 1),
    // At most 1000: a value is written by JSON.stringify, which recurses on the stack and overflows
    // a few thousand levels deep (under the gateway's own frames); 1000 leaves it room several times over.
    maxJsonDepth: lim.int('max_json_depth', DEFAULTS.limits.maxJsonDepth, 1, 1000),
    maxPlannedSubrequests: lim.int('max_planned_subrequests', DEFAULTS.limits.maxPlannedSubrequests, 0),
    assumedListSize: lim.int('assumed_list_size', DEFAULTS.limits.assumedListSize, 0),
  };
  lim.finish();
  return Object.freeze(limits);
}

/** undefined for "*" or a bare origin (`scheme://host[:port]`), else what is wrong. */
function checkOrigin(v: string): string | undefined {
  if (v === '*') return undefined;
  try {
    if (new URL(v).origin === v) return undefined;
  } catch {
    // reported below
  }
  return 'must be "*" or an origin such as "https://app.example.com" (scheme, host and port only, no trailing slash)';
}

function checkUrl(v: string): string | undefined {
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return `must be an http:// or https:// URL, found "${v}"`;
    if (u.search || u.hash) return `must be a base URL without query or fragment, found "${v}"`;
    return undefined;
  } catch {
    return `must be an absolute http:// or https:// URL, found "${v}"`;
  }
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the HTTP client sets itself: a fixed value would break the request. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);

/**
 * `[sources.X] headers = { "x-api-key" = "..." }`: sent on every request to the source; names
 * lower-cased. A value reading `{auth.CLAIM}` is rendered per request instead (config/claim-headers.ts).
 */
function sourceHeaders(s: TableReader, source: string): { fixed: Readonly<Record<string, string>>; claims?: readonly ClaimHeader[] } {
  const out: Record<string, string> = {};
  const claims: ClaimHeader[] = [];
  for (const [name, value] of Object.entries(s.stringTable('headers'))) {
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) s.problem('headers', `sources.${source}.headers: "${name}" is not a valid header name`);
    else if (RESERVED_HEADERS.has(lower))
      s.problem('headers', `sources.${source}.headers: "${name}" is set by the gateway itself; remove it`);
    else if (/[\r\n\0]/.test(value)) s.problem('headers', `sources.${source}.headers: the value of "${name}" must not contain line breaks`);
    else if (compileClaimHeader(lower, value)) claims.push(compileClaimHeader(lower, value)!);
    // A name also in forward_headers is a fallback: the caller's value when present, this one otherwise.
    else out[lower] = value;
  }
  return { fixed: Object.freeze(out), claims: claims.length > 0 ? Object.freeze(claims) : undefined };
}

/** `[sources.X]` follow_redirects, revalidate and user_agent (docs/reference.md, *new*). */
function restSourceKeys(s: TableReader, source: string): Pick<SourceConfig, 'followRedirects' | 'revalidate' | 'userAgent'> {
  const userAgent = s.string('user_agent', `gqlgw/${PACKAGE_VERSION}`);
  if (/[\r\n\0]/.test(userAgent)) s.problem('user_agent', `sources.${source}.user_agent must not contain line breaks`);
  return {
    followRedirects: s.int('follow_redirects', 3, 0, 20),
    revalidate: s.bool('revalidate', true),
    userAgent,
  };
}
