import { LRUCache } from 'lru-cache';

/**
 * L2: the process's own LRU of fetched values, by cache key, each with its field's @cache ttl.
 * `maxEntries` 0 turns it off. Values are shared between requests and must never be mutated.
 */
export class L2Cache {
  private readonly lru: LRUCache<string, { v: unknown }> | undefined;

  constructor(maxEntries: number) {
    this.lru = maxEntries > 0 ? new LRUCache<string, { v: unknown }>({ max: maxEntries, ttlAutopurge: false }) : undefined;
  }

  get enabled(): boolean {
    return this.lru !== undefined;
  }

  /** The value, or undefined on a miss (including an expired entry). */
  get(key: string): unknown {
    return this.lru?.get(key)?.v;
  }

  set(key: string, value: unknown, ttlSeconds: number): void {
    this.lru?.set(key, { v: value }, { ttl: ttlSeconds * 1000 });
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
