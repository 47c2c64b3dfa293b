import type { CacheEntry } from './entry.js';
import type { L2Cache } from './l2.js';

/**
 * The cache tiers have one name each, everywhere (code, metric labels, docs, dashboard):
 * - `l1`: the request's own memo (execute/send/memo-entry.ts), which also dedupes identical lookups;
 * - `l2`: the process's LRU (l2.ts);
 * - `memcached`: shared by every gateway process configured with the same servers and key prefix.
 */
export const CACHE_TIER_NAMES = ['l1', 'l2', 'memcached'] as const;
export type CacheTierName = (typeof CACHE_TIER_NAMES)[number];

/**
 * The seam between the executor and memcached (memcached.ts implements it; the executor never
 * imports memjs). L1 and L2 are synchronous and live beside the executor; memcached is
 * asynchronous and must never fail or slow a query: failures are misses, writes fire-and-forget.
 */
export interface MemcachedTier {
  /** Looks all keys up in one go. Never rejects: a failed or late call resolves as all misses. */
  getMany(keys: readonly string[]): Promise<Map<string, CacheEntry>>;
  /**
   * Stores entries until their own keeping time (entry.ts keepMs; memcached's expiry in whole
   * seconds, rounded up; an entry already past it is dropped). Never throws, never rejects; the
   * promise settles once the writes were answered (or failed, or were late): only
   * `@invalidate(prefix: true)` awaits it, never a read.
   */
  setMany(entries: ReadonlyArray<{ readonly key: string; readonly entry: CacheEntry }>): Promise<void>;
  /**
   * Deletes entries (docs/mutations.md), awaited by the mutation that wrote. Never rejects:
   * resolves true once every key is gone (or was never there), false when the call failed, was
   * late or was skipped; the failure is counted, never surfaced.
   */
  deleteMany(keys: readonly string[]): Promise<boolean>;
  close(): Promise<void>;
}

/** The cache tiers a running gateway has beyond L1: its L2, and memcached when configured. */
export interface CacheTiers {
  readonly l2: L2Cache;
  readonly memcached: MemcachedTier | undefined;
}
