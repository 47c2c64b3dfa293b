import { LRUCache } from 'lru-cache';
import { keepMs, type CacheEntry } from './entry.js';
import type { GatewayConfig } from '../config/types.js';

/**
 * The options object passed to every get and set: lru-cache makes one per call when none is given.
 * It writes its diagnostics `status` into it (an object only while something subscribes to its
 * channel), so that is cleared after each call and never carried over to the next key.
 */
/** Prefixes whose generation a process remembers before it starts afresh (see L2Cache.generations). */
const MAX_GENERATIONS = 100_000;

const NO_OPTIONS: { status?: LRUCache.Status<string, CacheEntry> } = {};

const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;

/** What bounds L2. */
export interface L2Limits {
  readonly maxEntries: number;
  readonly maxBytes: number;
  readonly maxValueBytes: number;
}

/** L2's limits from `[cache]`: l2_max_entries, l2_max_bytes, max_value_bytes. */
export function l2LimitsOf(cache: GatewayConfig['cache']): L2Limits {
  return { maxEntries: cache.l2MaxEntries, maxBytes: cache.l2MaxBytes, maxValueBytes: cache.maxValueBytes };
}

/**
 * An entry's size for l2_max_bytes: its value's JSON length plus its key's (measured once, when
 * it is stored). A value JSON.stringify cannot write (too deep) counts as over any bound, so it is
 * not stored.
 */
function entrySize(entry: CacheEntry, key: string): number {
  let json: string | undefined;
  try {
    json = JSON.stringify(entry.value);
  } catch {
    return Number.MAX_SAFE_INTEGER;
  }
  return key.length + (json?.length ?? 4);
}

/**
 * L2: the process's own LRU of cache entries (entry.ts), by cache key. An entry is kept until its
 * own `keepUntil` (its `staleUntil`, later for one kept for revalidation), whichever tier it came from, so a value copied from memcached keeps its age.
 * It holds at most `maxEntries` entries and `maxBytes` of them (entrySize); `maxEntries` 0 turns it off. Entries are shared between requests and must never be mutated.
 */
export class L2Cache {
  /**
   * Made by the first set(): lru-cache allocates its arrays for `maxEntries` up front (about 2.4 MB
   * at 100000), which a gateway without @cache fields, or before its first cached answer, does not
   * need.
   */
  private lru: LRUCache<string, CacheEntry> | undefined;
  private readonly maxEntries: number;

  /**
   * This process's generations of invalidated prefixes (`@invalidate(prefix: true)`), by generation
   * key (cache-key.ts). Bounded: when full, it is cleared together with every entry, which keeps
   * every answer correct.
   */
  private readonly generations = new Map<string, string>();

  /**
   * `maxEntries` ([cache] l2_max_entries; 0 turns L2 off), `maxBytes` (l2_max_bytes: the JSON
   * length of the values held), `maxValueBytes` (max_value_bytes: a longer value is not stored).
   */
  constructor(limits: number | L2Limits) {
    this.limits =
      typeof limits === 'number' ? { maxEntries: limits, maxBytes: DEFAULT_MAX_BYTES, maxValueBytes: DEFAULT_MAX_BYTES } : limits;
    this.maxEntries = this.limits.maxEntries;
  }

  private readonly limits: L2Limits;

  /** Whether this L2 was made with exactly these limits (a reload that changes them starts a new one). */
  hasLimits(limits: L2Limits): boolean {
    const own = this.limits;
    return own.maxEntries === limits.maxEntries && own.maxBytes === limits.maxBytes && own.maxValueBytes === limits.maxValueBytes;
  }

  /** The current generation of a prefix in this process; undefined when it was never invalidated here. */
  generation(key: string): string | undefined {
    return this.generations.get(key);
  }

  /** Renews (or learns from memcached) the generation of a prefix. */
  setGeneration(key: string, value: string): void {
    if (this.generations.size >= MAX_GENERATIONS && !this.generations.has(key)) {
      this.generations.clear();
      this.lru?.clear();
    }
    this.generations.set(key, value);
  }

  get enabled(): boolean {
    return this.maxEntries > 0;
  }

  /** The entry, or undefined when there is none or it is past its keeping time (entry.ts keepMs) at `now` (then it is dropped). */
  get(key: string, now: number): CacheEntry | undefined {
    const lru = this.lru;
    if (!lru) return undefined;
    const entry = lru.get(key, NO_OPTIONS);
    NO_OPTIONS.status = undefined;
    if (entry === undefined || keepMs(entry, now) > 0) return entry;
    lru.delete(key);
    return undefined;
  }

  /** Stores the entry until its keeping time (entry.ts keepMs); one already past it is not stored. */
  set(key: string, entry: CacheEntry, now: number): void {
    if (this.maxEntries <= 0 || keepMs(entry, now) <= 0) return;
    // No ttl in the LRU: an entry carries its own times, and get() judges them with the round's
    // clock. lru-cache's own ttl would keep two more arrays of `maxEntries` and read a clock per get.
    this.lru ??= new LRUCache<string, CacheEntry>({
      max: this.maxEntries,
      maxSize: this.limits.maxBytes,
      maxEntrySize: this.limits.maxValueBytes,
      sizeCalculation: entrySize,
    });
    this.lru.set(key, entry, NO_OPTIONS);
    NO_OPTIONS.status = undefined;
  }

  /** Drops one entry (docs/mutations.md). */
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
