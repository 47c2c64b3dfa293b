/**
 * The checked, defaulted, frozen form of gateway.toml. Everything on the request path reads this,
 * never the TOML text. Keys are documented in README.md ("gateway.toml reference").
 */
export interface SourceConfig {
  readonly name: string;
  /** Base URL without a trailing slash; @fetch/@batch paths are appended to it. */
  readonly url: string;
  /** Total deadline of one subrequest, headers and body included. */
  readonly timeoutMs: number;
  /** Lower-cased request header names passed through to this source. */
  readonly forwardHeaders: readonly string[];
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
  readonly maxBodyBytes: number;
  readonly maxSubrequests: number;
}

export interface GatewayConfig {
  /** Absolute path of the gateway.toml this came from; schema globs are relative to its folder. */
  readonly file: string;
  readonly host: string;
  readonly port: number;
  /** Schema files or globs as written, relative to the config file's folder. */
  readonly schema: readonly string[];
  readonly debugHeaders: boolean;
  /** On SIGTERM, how long in-flight requests may take to finish before their connections are closed. */
  readonly shutdownGraceMs: number;
  readonly sources: ReadonlyMap<string, SourceConfig>;
  readonly cache: {
    readonly l2MaxEntries: number;
    readonly memcached: MemcachedConfig | undefined;
  };
  readonly metrics: { readonly enabled: boolean; readonly path: string };
  readonly limits: LimitsConfig;
}
