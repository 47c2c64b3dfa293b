import type { CompiledCache } from '../../directives/cache.js';
import type { Validators } from '../upstream/outcome.js';

/**
 * One cached answer of a single-fetch key, the same object in every tier (docs/caching.md).
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
  /**
   * The ETag / Last-Modified of the single fetch that brought the value (`revalidate = true`).
   * Such an entry is kept past `staleUntil` until `keepUntil`, never served there, only to be
   * revalidated: its refetch sends If-None-Match / If-Modified-Since, and a 304 renews it.
   */
  readonly validators?: Validators;
  /** Until when tiers keep the entry; `staleUntil` when absent. */
  readonly keepUntil?: number;
  /**
   * The generations of the invalidation prefixes its path has (`@invalidate(prefix: true)`), as
   * they were when it was looked up; an entry whose generations are no longer current is a miss.
   */
  readonly generation?: string;
}

/** How long past its staleUntil an entry with validators is kept for revalidation: one ttl, at least this. */
const MIN_REVALIDATION_KEEP_MS = 60_000;

/** How an entry may be used at a given moment. */
export type EntryState = 'fresh' | 'stale' | 'expired';

export function entryState(entry: CacheEntry, now: number): EntryState {
  if (now < entry.freshUntil) return 'fresh';
  return now < entry.staleUntil ? 'stale' : 'expired';
}

/**
 * The entry for a value fetched (or revalidated by a 304) at `now`; undefined when `@cache` keeps
 * no values (ttl 0). With validators it is kept one ttl (at least a minute) past its staleUntil.
 */
export function valueEntry(value: unknown, cache: CompiledCache, now: number, validators?: Validators): CacheEntry | undefined {
  if (cache.ttlSeconds <= 0) return undefined;
  const freshUntil = now + cache.ttlSeconds * 1000;
  const staleUntil = freshUntil + cache.staleSeconds * 1000;
  if (!validators) return { value, missing: false, freshUntil, staleUntil };
  const keepUntil = staleUntil + Math.max(cache.ttlSeconds * 1000, MIN_REVALIDATION_KEEP_MS);
  return { value, missing: false, freshUntil, staleUntil, validators, keepUntil };
}

/** The entry remembering at `now` that a key had no value; undefined when `missing` is 0. */
export function missingEntry(cache: CompiledCache, now: number): CacheEntry | undefined {
  if (cache.missingSeconds <= 0) return undefined;
  const freshUntil = now + cache.missingSeconds * 1000;
  return { value: null, missing: true, freshUntil, staleUntil: freshUntil };
}

/** Milliseconds a tier should still keep the entry at `now` (0 or less: drop it). */
export function keepMs(entry: CacheEntry, now: number): number {
  return (entry.keepUntil ?? entry.staleUntil) - now;
}

/** How long a prefix's generation is kept (memcached's longest relative expiry, 30 days). */
const GENERATION_KEEP_MS = 30 * 24 * 3600 * 1000;

/** The entry holding a prefix's generation `token` (`@invalidate(prefix: true)`), written at `now`. */
export function generationEntry(token: string, now: number): CacheEntry {
  const until = now + GENERATION_KEEP_MS;
  return { value: token, missing: false, freshUntil: until, staleUntil: until };
}
