import { SharedByteBudget, overBudget, type ByteBudget } from '../../upstream/byte-budget.js';
import type { Sender } from './dispatch.js';
import type { MemoEntry } from './memo-entry.js';

/**
 * The byte budget a @batch chunk of several requests is read under (docs/hardening.md "Isolation"):
 * what they may still take together; undefined for one request (its own budget is used).
 */
export function chunkBytes(senders: readonly Sender[]): SharedByteBudget | undefined {
  if (senders.length < 2) return undefined;
  const budgets: ByteBudget[] = [];
  for (const s of senders) if (s.upstreamBytes) budgets.push(s.upstreamBytes);
  return budgets.length === senders.length ? new SharedByteBudget(budgets) : undefined;
}

/**
 * Charges each request of a shared chunk its own share of the bytes read, as if it had asked its
 * own keys alone, once the chunk's entries are settled:
 * - while every request could hold the whole answer, an even share each (nothing is measured: a
 *   share is then never more than what any of them could take);
 * - otherwise the JSON length of its own keys' values; a request whose budget cannot hold that gets
 *   UPSTREAM_BYTES_LIMIT on its own keys alone, the others keep their answers.
 * An answer cut because all of them together could not hold it is every request's limit error.
 */
export function chargeSharers(entries: readonly MemoEntry[], senders: readonly Sender[], bytes: SharedByteBudget, what: string): void {
  const source = entries[0]?.fetch.source.name ?? '';
  let least = Infinity;
  for (const s of senders) least = Math.min(least, s.upstreamBytes!.remaining);
  const cut = bytes.spent;
  if (!cut && bytes.taken <= least) {
    const share = Math.ceil(bytes.taken / senders.length);
    for (const s of senders) s.upstreamBytes!.take(share);
    return;
  }
  for (const s of senders) {
    const own = entries.filter((m) => s.memo?.get(m.key) === m);
    let size = 0;
    if (!cut) for (const m of own) size += m.outcome?.kind === 'ok' ? (JSON.stringify(m.outcome.body)?.length ?? 0) : 0;
    if (!cut && s.upstreamBytes!.take(size)) continue;
    const refused = overBudget(source, s.upstreamBytes!, what);
    for (const m of own) m.outcome = refused;
  }
}
