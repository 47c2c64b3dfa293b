import type { CacheEntry } from '../../cache/entry.js';
import type { UpstreamOutcome } from '../../upstream/outcome.js';
import type { ExecutionListener } from './listener.js';
import type { MemoEntry } from './memo-entry.js';

/**
 * Revalidation (docs/caching.md, `revalidate = true`): the refetch of an expired or stale-served
 * entry that kept its single fetch's ETag / Last-Modified sends If-None-Match / If-Modified-Since.
 * A 304 then answers with the entry's own value and validators (notModifiedJudge), so filling the
 * caches renews the entry (a new fetch time, the same value) in every tier; any other answer is
 * read as usual. Every such refetch that is answered counts once in
 * `gqlgw_cache_revalidations_total{result}` (background refreshes included).
 */

/** The request's headers plus the conditional ones of `entry`. */
export function conditionalHeaders(headers: Readonly<Record<string, string>>, entry: CacheEntry): Record<string, string> {
  const out: Record<string, string> = { ...headers };
  const v = entry.validators!;
  if (v.etag !== undefined) out['if-none-match'] = v.etag;
  if (v.lastModified !== undefined) out['if-modified-since'] = v.lastModified;
  return out;
}

/** Reads a 304 as the entry's value (with the entry's own validators object, which marks it); anything else as it is. */
export function notModifiedJudge(entry: CacheEntry): (outcome: UpstreamOutcome) => UpstreamOutcome {
  return (outcome) =>
    outcome.kind === 'error' && outcome.error.status === 304 ? { kind: 'ok', body: entry.value, validators: entry.validators } : outcome;
}

/**
 * What the revalidating refetch of `m` came to, reported to the listener: `not_modified` for a
 * 304 (its outcome holds the entry's value, already selected), `modified` for a new value,
 * undefined for an error or a 404.
 */
export function revalidationResult(
  m: MemoEntry,
  outcome: UpstreamOutcome,
  listener: ExecutionListener,
): 'not_modified' | 'modified' | undefined {
  if (outcome.kind !== 'ok') return undefined;
  const result = outcome.validators !== undefined && outcome.validators === m.revalidate!.validators ? 'not_modified' : 'modified';
  listener.onRevalidation?.({ coordinate: m.coordinate, source: m.fetch.source.name, result });
  return result;
}
