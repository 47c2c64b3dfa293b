/**
 * The seam between the executor and a shared cache tier (memcached). L1 (the request memo) and L2
 * (the process LRU) are synchronous and live beside the executor; a shared tier is asynchronous and
 * must never fail or slow a query: failures are misses, writes are fire-and-forget.
 */
export interface SharedCacheTier {
  /** Looks all keys up in one go. Never rejects: a failed or late call resolves as all misses. */
  getMany(keys: readonly string[]): Promise<Map<string, unknown>>;
  /** Stores values (JSON-serialisable) for `ttlSeconds`. Never throws, never awaited by a response. */
  setMany(entries: ReadonlyArray<{ key: string; value: unknown; ttlSeconds: number }>): void;
  close(): Promise<void>;
}
