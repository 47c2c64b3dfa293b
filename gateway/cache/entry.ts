import type { CompiledCache } from '../../directives/cache.js';

/**
 * One cached answer of a single-fetch key, the same object in every tier (SPEC.md "@cache").
 *
 * Contract: an entry carries its own times (milliseconds since the Unix epoch), set once when its
 * value was fetched and never renewed by copying it between tiers, so a value ages once:
 * - until `freshUntil` (fetch time + ttl, or + missing for a remembered miss) it is served as is;
 * - until `staleUntil` (freshUntil + stale) it is served stale while one background fetch renews it;
 * - after that it is gone: every tier keeps it at most until `staleUntil`.
 * A remembered miss (`missing: true`, value null) answers as a 404 would: null, or NOT_FOUND for a
 * non-null field. Errors are never entries. Values are shared between requests: never mutated.
 * Processes sharing memcached read each other's times, so their clocks must agree (NTP).
 */
export interface CacheEntry {
  readonly value: unknown;
  readonly missing: boolean;
  readonly freshUntil: number;
  readonly staleUntil: number;
}

/** How an entry may be used at a given moment. */
export type EntryState = 'fresh' | 'stale' | 'expired';

export function entryState(entry: CacheEntry, now: number): EntryState {
  if (now < entry.freshUntil) return 'fresh';
  return now < entry.staleUntil ? 'stale' : 'expired';
}

/** The entry for a value fetched at `now`; undefined when `@cache` keeps no values (ttl 0). */
export function valueEntry(value: unknown, cache: CompiledCache, now: number): CacheEntry | undefined {
  if (cache.ttlSeconds <= 0) return undefined;
  const freshUntil = now + cache.ttlSeconds * 1000;
  return { value, missing: false, freshUntil, staleUntil: freshUntil + cache.staleSeconds * 1000 };
}

/** The entry remembering at `now` that a key had no value; undefined when `missing` is 0. */
export function missingEntry(cache: CompiledCache, now: number): CacheEntry | undefined {
  if (cache.missingSeconds <= 0) return undefined;
  const freshUntil = now + cache.missingSeconds * 1000;
  return { value: null, missing: true, freshUntil, staleUntil: freshUntil };
}

/** Milliseconds a tier should still keep the entry at `now` (0 or less: drop it). */
export function keepMs(entry: CacheEntry, now: number): number {
  return entry.staleUntil - now;
}
