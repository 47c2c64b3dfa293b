import type { CacheTierName, ExecutionListener, LookupEventKind } from './listener.js';

/**
 * Counts a round's cache, dedupe and lookup events per (coordinate, source, tier/kind, hit) and
 * reports each count once when the round flushes, so a round of 100 lookups costs the listener a
 * handful of calls, not hundreds.
 */
export class RoundTally {
  private readonly cache = new Map<string, { coordinate: string; source: string; tier: CacheTierName; hit: boolean; count: number }>();
  private readonly dedupe = new Map<string, { coordinate: string; source: string; count: number }>();
  private readonly lookups = new Map<string, { coordinate: string; source: string; kind: LookupEventKind; count: number }>();

  cacheEvent(coordinate: string, source: string, tier: CacheTierName, hit: boolean): void {
    const key = `${coordinate}\u0000${source}\u0000${tier}\u0000${hit}`;
    const e = this.cache.get(key);
    if (e) e.count++;
    else this.cache.set(key, { coordinate, source, tier, hit, count: 1 });
  }

  dedupeEvent(coordinate: string, source: string): void {
    const key = `${coordinate}\u0000${source}`;
    const e = this.dedupe.get(key);
    if (e) e.count++;
    else this.dedupe.set(key, { coordinate, source, count: 1 });
  }

  lookupEvent(coordinate: string, source: string, kind: LookupEventKind): void {
    const key = `${coordinate}\u0000${source}\u0000${kind}`;
    const e = this.lookups.get(key);
    if (e) e.count++;
    else this.lookups.set(key, { coordinate, source, kind, count: 1 });
  }

  flush(listener: ExecutionListener): void {
    if (listener.onCache) for (const e of this.cache.values()) listener.onCache(e);
    if (listener.onDedupe) for (const e of this.dedupe.values()) listener.onDedupe(e);
    if (listener.onLookups) for (const e of this.lookups.values()) listener.onLookups(e);
    this.cache.clear();
    this.dedupe.clear();
    this.lookups.clear();
  }
}
