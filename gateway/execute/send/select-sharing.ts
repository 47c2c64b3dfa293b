import type { MemoEntry } from './memo-entry.js';

/**
 * The single fetches of a round grouped by the request they send (docs/caching.md: fields
 * that differ only in `select` or `response` share one request): memo entries are per read (so are
 * their cache entries), but two entries with one `requestKey` (source, method, resolved path, body
 * and forwarded headers) are one subrequest. `senders` send; each one's `riders` read their own part
 * of its answer (single.ts readAnswer). Nothing is grouped when no entry has a read suffix.
 */
export function shareRequests(singles: MemoEntry[]): {
  readonly senders: MemoEntry[];
  readonly riders: Map<MemoEntry, MemoEntry[]> | undefined;
} {
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
    const key = m.requestKey;
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
