import { LRUCache } from 'lru-cache';
import { keepMs, type CacheEntry } from './entry.js';

/**
 * L2: the process's own LRU of cache entries (entry.ts), by cache key. An entry is kept until its
 * own `staleUntil`, whichever tier it came from, so a value copied from memcached keeps its age.
 * `maxEntries` 0 turns it off. Entries are shared between requests and must never be mutated.
 */
export class L2Cache {
  private readonly lru: LRUCache<string, CacheEntry> | undefined;

  constructor(maxEntries: number) {
    this.lru = maxEntries > 0 ? new LRUCache<string, CacheEntry>({ max: maxEntries, ttlAutopurge: false }) : undefined;
  }

  get enabled(): boolean {
    return this.lru !== undefined;
  }

  /** The entry, or undefined when there is none or it is past its `staleUntil`. */
  get(key: string): CacheEntry | undefined {
    return this.lru?.get(key);
  }

  /** Stores the entry until its `staleUntil`; one already past it is not stored. */
  set(key: string, entry: CacheEntry, now: number): void {
    if (!this.lru) return;
    const ms = keepMs(entry, now);
    if (ms > 0) this.lru.set(key, entry, { ttl: ms });
  }

  /** Drops one entry (SPEC.md "@invalidate"). */
  delete(key: string): void {
    this.lru?.delete(key);
  }

  /** Drops every entry whose key starts with `prefix` (a reload whose fetch changed); returns how many. */
  deletePrefix(prefix: string): number {
    if (!this.lru) return 0;
    let dropped = 0;
    for (const key of [...this.lru.keys()]) {
      if (key.startsWith(prefix) && this.lru.delete(key)) dropped++;
    }
    return dropped;
  }
}
