import { randomUUID } from 'node:crypto';
import { prefixesOf } from '../../../directives/prefix-rule.js';
import { generationKey } from '../../cache/cache-key.js';
import { generationEntry, type CacheEntry } from '../../cache/entry.js';
import type { L2Cache } from '../../cache/l2.js';
import type { CacheTiers } from '../../cache/tier.js';
import type { MemoEntry } from './memo-entry.js';

/**
 * Prefix invalidation without a scan (docs/mutations.md, `prefix: true`): each invalidated
 * path prefix of a source has a generation (a token renewed by every invalidation, kept in the
 * process beside L2 and in memcached under its generation key). A cached entry carries the
 * generations of the prefixes its path has, as they were when it was looked up, and answers only
 * while they are still current; an invalidation renews one generation, which retires every entry
 * under that prefix in L2 and memcached for every caller at once. A prefix never invalidated has
 * the generation "0".
 * - L2 reads compare with the process's generations; a memcached read also reads the generation
 *   keys (in the same call) and the process learns them, so a prefix invalidated by another
 *   gateway retires this process's L2 entries once it reads memcached for that prefix.
 * - A generation key memcached evicted under memory pressure reads as "0": entries written before
 *   that prefix's first invalidation would answer again until their own expiry (docs/caching.md).
 */

/** Finds the generation keys of a lookup's path and stamps it with the process's generations. */
export function stampFromL2(m: MemoEntry, l2: L2Cache): void {
  const prefixes = prefixesOf(m.path, m.fetch.prefixRules);
  if (prefixes.length === 0) return;
  const source = m.fetch.source.name;
  m.genKeys = prefixes.map((p) => generationKey(source, p));
  m.generation = stamp(m.genKeys, l2);
}

/** Learns the generations memcached answered for the lookup's prefixes and stamps it again. */
export function stampFromMemcached(m: MemoEntry, found: ReadonlyMap<string, CacheEntry>, l2: L2Cache): void {
  if (!m.genKeys) return;
  for (const key of m.genKeys) {
    const value = found.get(key)?.value;
    if (typeof value === 'string') l2.setGeneration(key, value);
  }
  m.generation = stamp(m.genKeys, l2);
}

function stamp(keys: readonly string[], l2: L2Cache): string {
  let out = '';
  for (const key of keys) out += (out === '' ? '' : ' ') + (l2.generation(key) ?? '0');
  return out;
}

/**
 * Renews the generation of `prefix` of `source` in the process and in memcached (awaited, so the
 * invalidation holds before the mutation's response); never rejects.
 */
export async function renewGeneration(source: string, prefix: string, tiers: CacheTiers): Promise<void> {
  const key = generationKey(source, prefix);
  const token = randomUUID();
  tiers.l2.setGeneration(key, token);
  if (tiers.memcached) await tiers.memcached.setMany([{ key, entry: generationEntry(token, Date.now()) }]);
}
