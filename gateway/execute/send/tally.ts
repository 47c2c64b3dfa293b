import type { CacheTierName, ExecutionListener, LookupEventKind, RequestObserver } from './listener.js';

interface CacheCount {
  readonly coordinate: string;
  readonly source: string;
  readonly tier: CacheTierName;
  readonly hit: boolean;
  count: number;
}
interface DedupeCount {
  readonly coordinate: string;
  readonly source: string;
  count: number;
}
interface LookupCount {
  readonly coordinate: string;
  readonly source: string;
  readonly kind: LookupEventKind;
  count: number;
}

/**
 * Counts a round's cache, dedupe and lookup events per (coordinate, source, tier/kind, hit) and
 * reports each count once when the round flushes, so a round of 100 lookups costs the listener a
 * handful of calls, not hundreds. Counts are found by coordinate, then by a scan of that
 * coordinate's few counts: an event builds no string and, after the first, allocates nothing.
 */
export class RoundTally {
  /** Told of the round's cache hits when it flushes (tracing); undefined: nobody is. */
  constructor(private readonly observer?: RequestObserver) {}

  // Made at a round's first event of each kind: most rounds have none of some kinds, or none at all.
  private cache: Map<string, CacheCount[]> | undefined;
  private dedupe: Map<string, DedupeCount[]> | undefined;
  private lookups: Map<string, LookupCount[]> | undefined;

  /** The count the last cache event went to: a round's lookups of one field come one after another. */
  private lastCache: CacheCount | undefined;

  cacheEvent(coordinate: string, source: string, tier: CacheTierName, hit: boolean): void {
    const last = this.lastCache;
    if (last && last.coordinate === coordinate && last.tier === tier && last.hit === hit && last.source === source) {
      last.count++;
      return;
    }
    const counts = countsOf<CacheCount>((this.cache ??= new Map()), coordinate);
    for (const c of counts) {
      if (c.tier === tier && c.hit === hit && c.source === source) {
        c.count++;
        this.lastCache = c;
        return;
      }
    }
    const c: CacheCount = { coordinate, source, tier, hit, count: 1 };
    counts.push(c);
    this.lastCache = c;
  }

  dedupeEvent(coordinate: string, source: string): void {
    const counts = countsOf<DedupeCount>((this.dedupe ??= new Map()), coordinate);
    for (const c of counts) {
      if (c.source === source) {
        c.count++;
        return;
      }
    }
    counts.push({ coordinate, source, count: 1 });
  }

  lookupEvent(coordinate: string, source: string, kind: LookupEventKind): void {
    const counts = countsOf<LookupCount>((this.lookups ??= new Map()), coordinate);
    for (const c of counts) {
      if (c.kind === kind && c.source === source) {
        c.count++;
        return;
      }
    }
    counts.push({ coordinate, source, kind, count: 1 });
  }

  flush(listener: ExecutionListener): void {
    const { cache, dedupe, lookups } = this;
    if (cache) {
      if (listener.onCache) for (const counts of cache.values()) for (const c of counts) listener.onCache(c);
      if (this.observer) for (const counts of cache.values()) for (const c of counts) if (c.hit) this.observer.cacheHits(c);
      cache.clear();
      this.lastCache = undefined;
    }
    if (dedupe) {
      if (listener.onDedupe) for (const counts of dedupe.values()) for (const c of counts) listener.onDedupe(c);
      dedupe.clear();
    }
    if (lookups) {
      if (listener.onLookups) for (const counts of lookups.values()) for (const c of counts) listener.onLookups(c);
      lookups.clear();
    }
  }
}

function countsOf<T>(byCoordinate: Map<string, T[]>, coordinate: string): T[] {
  let counts = byCoordinate.get(coordinate);
  if (!counts) {
    counts = [];
    byCoordinate.set(coordinate, counts);
  }
  return counts;
}
