import { lookupKey, writeLookupKey } from '../cache/cache-key.js';
import type { HeaderForwarder } from './forwarded-headers.js';
import type { MemoEntry } from './memo-entry.js';

/**
 * The single fetches of a round grouped by the request they send (docs/caching.md: fields
 * that differ only in `select` share one request): memo entries are per `select` (so are their
 * cache entries), but two entries whose source, method, resolved path, body and forwarded headers
 * are equal are one subrequest. `senders` send; each one's `riders` take their own `select` of
 * its answer. Nothing is grouped (and nothing built) when no entry has a `select`.
 */
export function shareRequests(
  singles: MemoEntry[],
  forwarder: HeaderForwarder,
): { readonly senders: MemoEntry[]; readonly riders: Map<MemoEntry, MemoEntry[]> | undefined } {
  if (!singles.some((m) => m.fetch.keySuffix !== '')) return { senders: singles, riders: undefined };
  const byRequest = new Map<string, MemoEntry>();
  const senders: MemoEntry[] = [];
  const riders = new Map<MemoEntry, MemoEntry[]>();
  for (const m of singles) {
    // A revalidation is its own conditional request: its 304 renews only its own entry.
    if (m.revalidate) {
      senders.push(m);
      continue;
    }
    const key = requestKey(m, forwarder);
    const sender = byRequest.get(key);
    if (sender === undefined) {
      byRequest.set(key, m);
      senders.push(m);
      continue;
    }
    const more = riders.get(sender);
    if (more) more.push(m);
    else riders.set(sender, [m]);
  }
  return { senders, riders: riders.size > 0 ? riders : undefined };
}

/** What identifies the request a memo entry sends: its memo key without the `select` part. */
function requestKey(m: MemoEntry, forwarder: HeaderForwarder): string {
  const { fetch } = m;
  const headers = forwarder.for(fetch.source).keySuffix;
  return fetch.method === 'GET'
    ? lookupKey(fetch.source.name, m.path, headers)
    : writeLookupKey({ source: fetch.source.name, method: fetch.method, path: m.path, body: m.body }, headers);
}
