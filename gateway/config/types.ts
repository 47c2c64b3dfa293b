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
  /** Fixed headers (lower-cased names) sent on every request to this source, e.g. an API key. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Bodies larger than this fail with UPSTREAM_BAD_RESPONSE. */
  readonly maxResponseBytes: number;
  /** Keep-alive connections in this source's pool (and so its concurrency limit). */
  readonly connections: number;
  /** Requests that may wait for a free connection; past that a subrequest fails at once (overloaded). */
  readonly maxQueued: number;
  /** Identical GET subrequests and @batch keys in flight for other requests are shared (SPEC.md "Coalescing across requests"). */
  readonly coalesce: boolean;
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
}

/** [cors]: which browser origins may call the gateway (absent: no CORS headers at all). */
export interface CorsConfig {
  /** Exact origins (`https://app.example.com`), or `["*"]` for any origin. */
  readonly origins: readonly string[];
  readonly credentials: boolean;
  readonly maxAgeS: number;
}

export interface GatewayConfig {
  /** Absolute path of the gateway.toml this came from; schema globs are relative to its folder. */
  readonly file: string;
  readonly host: string;
  readonly port: number;
  /** Schema files or globs as written, relative to the config file's folder. */
  readonly schema: readonly string[];
  readonly debugHeaders: boolean;
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
  readonly sources: ReadonlyMap<string, SourceConfig>;
  readonly cache: {
    readonly l2MaxEntries: number;
    /** Bytes of values (their JSON length) L2 holds at most. */
    readonly l2MaxBytes: number;
    /** A value whose JSON is longer is kept in no tier (memcached: its own max_value_bytes when set). */
    readonly maxValueBytes: number;
    readonly memcached: MemcachedConfig | undefined;
  };
  readonly metrics: { readonly enabled: boolean; readonly path: string };
  readonly limits: LimitsConfig;
}
