import { entryState, missingEntry, valueEntry, type CacheEntry } from '../../cache/entry.js';
import type { L2Cache } from '../../cache/l2.js';
import type { CacheTiers, MemcachedTier } from '../../cache/tier.js';
import type { MemoEntry } from './memo-entry.js';
import type { RoundTally } from './tally.js';
import type { ExecutionListener } from './listener.js';
import { stampFromL2, stampFromMemcached } from './generations.js';

/** The tiers behind the request memo (L1): the process LRU and, when configured, memcached. */

/**
 * Answers a round's new @cache lookups from L2, then asks memcached for every L2 miss at once
 * (docs/caching.md). A fresh entry answers; a stale one answers too and its memo entry is pushed
 * onto `stale` for one background refresh; a remembered miss answers as a 404 would. An entry read
 * from memcached goes into L2 with its own times, so it keeps its age. Returns what is left to send:
 * at once when memcached has nothing to be asked (no await for a round without @cache), else a
 * promise of it. `polled` (a poll's field, docs/live-data.md) is never answered from a tier: its
 * entries only lend their validators to its refetch.
 */
export function readCaches(
  created: MemoEntry[],
  tiers: CacheTiers,
  tally: RoundTally,
  { stale, polled }: { readonly stale: MemoEntry[]; readonly polled?: string },
): MemoEntry[] | Promise<MemoEntry[]> {
  const { l2, memcached } = tiers;
  const reading: Reading = { now: Date.now(), tally, stale, polled };
  const wanted: MemoEntry[] = [];
  let answered = false;
  for (const m of created) {
    const cache = m.fetch.cache;
    if (!cache || (cache.ttlSeconds <= 0 && cache.missingSeconds <= 0)) continue;
    if (m.fetch.prefixRules.length > 0) stampFromL2(m, l2);
    if (l2.enabled) {
      const hit = answerFrom(l2.get(m.key, reading.now), m, reading);
      tally.cacheEvent(m.coordinate, m.fetch.source.name, 'l2', hit);
      answered ||= hit;
      if (hit) continue;
    }
    if (memcached) wanted.push(m);
  }
  if (memcached && wanted.length > 0) return readMemcached({ l2, memcached }, wanted, created, reading);
  return answered ? unanswered(created) : created;
}

/** The memcached half of readCaches, for the L2 misses in `wanted`. */
async function readMemcached(
  { l2, memcached }: { readonly l2: L2Cache; readonly memcached: MemcachedTier },
  wanted: MemoEntry[],
  created: MemoEntry[],
  reading: Reading,
): Promise<MemoEntry[]> {
  const keys = wanted.map((m) => m.key);
  for (const m of wanted) if (m.genKeys) keys.push(...m.genKeys);
  const found = await memcached.getMany(keys);
  reading.now = Date.now();
  for (const m of wanted) {
    if (m.genKeys) stampFromMemcached(m, found, l2);
    const entry = found.get(m.key);
    const hit = answerFrom(entry, m, reading);
    reading.tally.cacheEvent(m.coordinate, m.fetch.source.name, 'memcached', hit);
    if (hit) l2.set(m.key, entry!, reading.now);
  }
  return unanswered(created);
}

function unanswered(created: MemoEntry[]): MemoEntry[] {
  return created.filter((m) => m.outcome === undefined);
}

/** One round's reading of the tiers: the time entries are judged at, its tally, its stale answers. */
interface Reading {
  now: number;
  readonly tally: RoundTally;
  readonly stale: MemoEntry[];
  /** A poll's field (docs/live-data.md): its entries lend only their validators, they never answer. */
  readonly polled?: string;
}

/** Answers `m` from `entry` when it is fresh or stale; false (not answered) when absent or expired. */
function answerFrom(entry: CacheEntry | undefined, m: MemoEntry, reading: Reading): boolean {
  if (entry === undefined) return false;
  const { tally, stale } = reading;
  if (entry.generation !== m.generation) return false; // retired by @invalidate(prefix: true), or not stamped
  const state = entryState(entry, reading.now);
  // Kept with its validators: its refetch revalidates it (execute/send/revalidate.ts).
  if (entry.validators && m.fetch.source.revalidate) m.revalidate = entry;
  if (state === 'expired') {
    if (!entry.missing && m.fetch.cache!.staleSeconds > 0) m.fallback = entry;
    return false;
  }
  if (m.coordinate === reading.polled) return false;
  const source = m.fetch.source.name;
  if (entry.missing) {
    m.outcome = { kind: 'not-found', detail: `GET ${m.path} → 404 (remembered by @cache(missing))` };
    tally.lookupEvent(m.coordinate, source, 'missing-served');
  } else {
    m.outcome = { kind: 'ok', body: entry.value };
  }
  if (state === 'stale') {
    tally.lookupEvent(m.coordinate, source, 'stale-served');
    stale.push(m);
  }
  return true;
}

/**
 * Stores what one call to a source answered for @cache fields in L2 and memcached: values (not
 * null) for ttl + stale, not-found (a 404, a key a batch did not answer) for `missing` seconds when
 * it is set. Errors are never stored. Called once per call, by whichever request sent it.
 */
export function fillCaches(memos: readonly MemoEntry[], tiers: CacheTiers): void {
  let shared: Array<{ key: string; entry: CacheEntry }> | undefined;
  const now = Date.now();
  for (const m of memos) {
    const cache = m.fetch.cache;
    const outcome = m.outcome;
    if (!cache || outcome === undefined) continue;
    let entry: CacheEntry | undefined;
    if (outcome.kind === 'ok') {
      if (outcome.body !== null && outcome.body !== undefined) entry = valueEntry(outcome.body, cache, now, outcome.validators);
    } else if (outcome.kind === 'not-found') {
      entry = missingEntry(cache, now);
    }
    if (entry === undefined) continue;
    if (m.generation !== undefined) entry = { ...entry, generation: m.generation };
    tiers.l2.set(m.key, entry, now);
    if (tiers.memcached) (shared ??= []).push({ key: m.key, entry });
  }
  if (tiers.memcached && shared) void tiers.memcached.setMany(shared);
}

/**
 * While a source is held (docs/rest-shapes.md "Rate limits"), a lookup refused for it that has an
 * entry of a `@cache(stale:)` field, even expired, is answered by that entry's value instead of
 * UPSTREAM_RATE_LIMITED (counted as stale-served). Nothing is stored: the entry keeps its times.
 */
export function servedDuringHold(created: readonly MemoEntry[], listener: ExecutionListener): void {
  for (const m of created) {
    const outcome = m.outcome;
    if (m.fallback === undefined || outcome?.kind !== 'error' || outcome.error.cause !== 'held') continue;
    m.outcome = { kind: 'ok', body: m.fallback.value };
    listener.onLookups?.({ coordinate: m.coordinate, source: m.fetch.source.name, kind: 'stale-served', count: 1 });
  }
}
