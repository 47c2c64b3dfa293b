import type { SubscriptionsConfig, WebhookConfig } from './live.js';

/**
 * The checked, defaulted, frozen form of gateway.toml. Everything on the request path reads this,
 * never the TOML text. Keys are documented in README.md, section "gateway.toml".
 */
export interface SourceConfig {
  readonly name: string;
  /** Base URL without a trailing slash; @fetch/@batch paths are appended to it. */
  readonly url: string;
  /** Total deadline of one subrequest, headers and body included. */
  readonly timeoutMs: number;
  /** Lower-cased request header names passed through to this source. */
  readonly forwardHeaders: readonly string[];
  /**
   * Fixed headers (lower-cased names) sent on every request to this source, e.g. an API key. A name
   * also in `forwardHeaders` is a fallback: the caller's value is sent when present, this one otherwise.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** `headers` whose value reads `{auth.CLAIM}`, rendered per request (never among the fixed ones). */
  readonly claimHeaders?: readonly ClaimHeader[];
  /**
   * The one rule for "this source answers each caller its own data": it forwards headers or sends
   * `{auth.*}` headers. Derived here once; every site that asks reads it: the forwarded-header
   * partition of memo and cache keys, the batch-key shortcut, connection reuse (none: a connection
   * per request, docs/hardening.md fault #7), the per-caller cache warning, and reload.
   */
  readonly perCaller: boolean;
  /** Bodies larger than this fail with UPSTREAM_BAD_RESPONSE. */
  readonly maxResponseBytes: number;
  /** Keep-alive connections in this source's pool (and so its concurrency limit). */
  readonly connections: number;
  /** Requests that may wait for a free connection; past that a subrequest fails at once (overloaded). */
  readonly maxQueued: number;
  /** Identical GET subrequests and @batch keys in flight for other requests are shared (docs/caching.md). */
  readonly coalesce: boolean;
  /** Same-origin, same-base redirects of a GET followed, at most this many hops (absent or 0: none). */
  readonly followRedirects?: number;
  /** Cache entries keep ETag / Last-Modified; an expired one is revalidated (If-None-Match / If-Modified-Since). */
  readonly revalidate?: boolean;
  /** Sent as `user-agent` unless `headers` sets one; '' or absent sends none. */
  readonly userAgent?: string;
  /** @batch keys of concurrent requests share chunks (docs/caching.md). */
  readonly batchAcrossRequests: boolean;
  /** > 0: a shared chunk that is not full waits up to this long for more keys; 0: to the end of the event-loop turn. */
  readonly batchWindowMs: number;
  /** `rate_limit`: this process keeps its calls to the source under this quota (docs/rest-shapes.md "Rate limits"). */
  readonly rateLimit?: SourceRateLimit;
  /** `retry_after_max_ms`: a GET or batch chunk answered 429/503 asking at most this long is waited out and sent once more. */
  readonly retryAfterMaxMs?: number;
  /** `expose_errors`: dotted paths of a 4xx JSON body copied into `extensions.upstream`. */
  readonly exposeErrors?: readonly string[];
}

/** A source's own quota (`[sources.X] rate_limit`), not a client budget: `requests` per `per_s` seconds. */
export interface SourceRateLimit {
  readonly requests: number;
  readonly perS: number;
}

/** A source header whose value is text and `{auth.CLAIM}` placeholders (`"user-{auth.sub}"`). */
export interface ClaimHeader {
  /** Lower-cased. */
  readonly name: string;
  /** Literal text, or the dotted claim steps a placeholder reads (`['sub']`). */
  readonly parts: ReadonlyArray<string | readonly string[]>;
}

/** [auth] (docs/observability.md). */
export interface AuthConfig {
  /** The key set: a JWKS read from a file at start-up, or a URL fetched on first use. */
  readonly jwks: { readonly kind: 'file'; readonly file: string; readonly keys: unknown } | { readonly kind: 'url'; readonly url: string };
  readonly issuer: string;
  readonly audience: string;
  /** True: a request without a token gets 401 UNAUTHENTICATED. */
  readonly required: boolean;
  /** The signature algorithms accepted (HMAC ones only when listed). */
  readonly algorithms: readonly string[];
  /** Claims beyond the standard ones that `{auth.*}` placeholders may read. */
  readonly claims: readonly string[];
  /** A token naming an unknown `kid` refetches a URL key set at most once per this many seconds. */
  readonly jwksRefetchIntervalS: number;
  /** Deadline of one key-set fetch. */
  readonly jwksTimeoutMs: number;
}

/** [tracing] (docs/observability.md). */
export interface TracingConfig {
  readonly otlpEndpoint: string;
  readonly protocol: 'http/protobuf' | 'http/json';
  readonly serviceName: string;
  /** Of root traces; a sampled incoming traceparent is always kept. */
  readonly sampleRatio: number;
  /** Finished spans waiting for export; past it a span is dropped (and counted). */
  readonly maxQueueSpans: number;
  /** Spans per export request. */
  readonly maxBatchSpans: number;
  readonly exportTimeoutMs: number;
  /** How long a span waits in the queue before it is exported with the others. */
  readonly exportDelayMs: number;
}

export interface MemcachedConfig {
  readonly servers: readonly string[];
  /** Deadline of one memcached call; past it the call counts as a miss. */
  readonly timeoutMs: number;
  /** Prefix of every key this gateway writes, so that several deployments can share a server. */
  readonly keyPrefix: string;
  /** Consecutive failures after which the tier is skipped for `cooldownMs`. */
  readonly failureThreshold: number;
  readonly cooldownMs: number;
  /** Values whose JSON is larger than this are not stored (memcached's item limit is 1 MiB). */
  readonly maxValueBytes: number;
}

export interface LimitsConfig {
  readonly maxDepth: number;
  readonly maxAliases: number;
  readonly maxTokens: number;
  /** Field selections per operation after fragment expansion. */
  readonly maxFields: number;
  readonly maxBodyBytes: number;
  readonly maxSubrequests: number;
  /** The serialised answer of one operation, in bytes; over it 400 RESPONSE_LIMIT. */
  readonly maxResponseBytes: number;
  /** Values written into one answer (objects, lists and leaves); over it 400 RESPONSE_LIMIT. */
  readonly maxResultNodes: number;
  /** Body bytes one operation may hold from its sources, counted as they arrive. */
  readonly maxOperationUpstreamBytes: number;
  /** Nesting of JSON taken from outside: a source's body, a request's variables. */
  readonly maxJsonDepth: number;
  /** > 0: an operation whose planned bound is higher is refused with COST_LIMIT, nothing sent; 0: off. */
  readonly maxPlannedSubrequests: number;
  /** The size a list is assumed to have in the planned bound when no @listSize says (plan/cost.ts). */
  readonly assumedListSize: number;
}

/** `[rate_limit]`: a token bucket per client of `cost` planned subrequests per `perS` seconds. */
export interface ClientBudgetConfig {
  readonly cost: number;
  readonly perS: number;
  /** Lower-cased; who the client is when no verified token names it (then the peer address). */
  readonly clientHeader: string | undefined;
  /** Clients whose buckets are kept at most (the least recently charged go first). */
  readonly maxClients: number;
}

/** [cors]: which browser origins may call the gateway (absent: no CORS headers at all). */
export interface CorsConfig {
  /** Exact origins (`https://app.example.com`), or `["*"]` for any origin. */
  readonly origins: readonly string[];
  readonly credentials: boolean;
  readonly maxAgeS: number;
}

/** [metrics]: where the Prometheus text is served (docs/hardening.md "Metrics"). */
export interface MetricsConfig {
  readonly enabled: boolean;
  readonly path: string;
  /** A listener of its own for the metrics path (then the GraphQL port answers it 404); undefined: the GraphQL port. */
  readonly port: number | undefined;
  /** The address of that listener. */
  readonly host: string;
  /** When set, the metrics path answers only `Authorization: Bearer <token>` (401 otherwise). */
  readonly token: string | undefined;
}

export interface GatewayConfig {
  /** Absolute path of the gateway.toml this came from; schema globs are relative to its folder. */
  readonly file: string;
  readonly host: string;
  readonly port: number;
  /** Schema files or globs as written, relative to the config file's folder. */
  readonly schema: readonly string[];
  readonly debugMode: boolean;
  /** False: `__schema` / `__type` are refused with INTROSPECTION_DISABLED (`__typename` stays). */
  readonly introspection: boolean;
  /** False: no GraphiQL page (GET /graphql from a browser gets the GraphQL answer instead). */
  readonly graphiql: boolean;
  /** Trusted documents by the lower-case hex SHA-256 of their text (`persisted_documents`). */
  readonly persistedDocuments: ReadonlyMap<string, string> | undefined;
  /** True: only documents of `persistedDocuments` run (PERSISTED_QUERY_REQUIRED otherwise). */
  readonly onlyPersisted: boolean;
  /** A client must send its request headers within this many ms of the request's start (Node's headersTimeout). */
  readonly headersTimeoutMs: number;
  /** ... and its whole request within this many ms (Node's requestTimeout). */
  readonly requestTimeoutMs: number;
  readonly cors: CorsConfig | undefined;
  /** On SIGTERM, how long in-flight requests may take to finish before their connections are closed. */
  readonly shutdownGraceMs: number;
  /** Processes `gqlgw serve` runs on one port (node:cluster; docs/scale-out.md). 1 = no cluster. */
  readonly workers: number;
  /** How operations run: a plan compiled per operation (default), or the interpreter, the reference (docs/performance.md). */
  readonly plan: PlanMode;
  readonly sources: ReadonlyMap<string, SourceConfig>;
  readonly cache: {
    readonly l2MaxEntries: number;
    /** Bytes of values (their JSON length) L2 holds at most. */
    readonly l2MaxBytes: number;
    /** A value whose JSON is longer is kept in no tier (memcached: its own max_value_bytes when set). */
    readonly maxValueBytes: number;
    readonly memcached: MemcachedConfig | undefined;
  };
  readonly metrics: MetricsConfig;
  /** [check] (*new*): `accept_n_plus_one`, the `Type.field` coordinates whose N+1 warning is accepted. */
  readonly check: {
    readonly acceptNPlusOne: readonly string[];
    /** `accept`: `"<kind>:<coordinate>"` entries, each a warning `gqlgw check` leaves out (blueprint/warnings.ts). */
    readonly accept: readonly string[];
  };
  readonly limits: LimitsConfig;
  /** [auth]; undefined: no token is read. */
  readonly auth?: AuthConfig;
  /** [tracing]; undefined: off, and nothing of OpenTelemetry is loaded. */
  readonly tracing?: TracingConfig;
  /** [rate_limit]; undefined: clients are not budgeted. */
  readonly clientBudget?: ClientBudgetConfig;
  /** [subscriptions] (docs/live-data.md). */
  readonly subscriptions: SubscriptionsConfig;
  /** [webhooks.NAME] by name (docs/live-data.md). */
  readonly webhooks: ReadonlyMap<string, WebhookConfig>;
}

/** `[gateway] plan`: the compiled plan, or the interpreter it must match byte for byte. */
export type PlanMode = 'compiled' | 'interpreted';
