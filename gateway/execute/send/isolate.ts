import { DeadlineScope } from '../../upstream/deadline.js';
import { BatchGroups, chunkEntries, isSharedFault, sendChunk, type BatchChunk, type ChunkDeps } from './batch.js';
import { releasing } from './dispatch.js';
import type { MemoEntry } from './memo-entry.js';
import type { RequestState } from './request-context.js';

const DONE: Promise<void> = Promise.resolve();

/**
 * One caller cannot change another's answer (docs/hardening.md "Isolation"): after a round, this
 * request's own @batch keys whose chunk was shared with other requests and failed for a reason one
 * of its keys may have caused (batch.ts `isSharedFault`) are sent again, this request's keys alone:
 * grouped and chunked as for a request alone, sent as its own subrequests (never shared, never
 * joined, so another caller's key cannot be in them), charged to it alone. A request that cannot
 * afford the resends (limits.max_subrequests) keeps the failure, and nobody else is held back by it.
 *
 * `chunks` are the round's chunks that went into shared calls and `joined` the lookups that waited
 * for another request's call; an entry is this request's when its memo holds it.
 */
export function resendApart(
  chunks: readonly BatchChunk[] | undefined,
  joined: readonly MemoEntry[] | undefined,
  state: RequestState,
  deps: ChunkDeps,
): Promise<void> {
  let again: MemoEntry[] | undefined;
  const consider = (m: MemoEntry): void => {
    if (isSharedFault(m.outcome) && m.batchKey !== undefined && m.fetch.batch && state.memo.get(m.key) === m) (again ??= []).push(m);
  };
  if (chunks) for (const c of chunks) for (const m of chunkEntries(c)) consider(m);
  if (joined) {
    for (const m of joined) {
      // The call's own failure, not its leader's outcome now: the leader's request may be resending it.
      if (m.call?.fault !== undefined) m.outcome = m.call.fault;
      consider(m);
    }
  }
  if (again === undefined) return DONE;
  const groups = new BatchGroups(state, state.warnings);
  const kept: MemoEntry[] = [];
  for (const m of again) if (groups.add(m)) kept.push(m);
  const own = groups.chunks();
  if (!state.budget.spare(own.length)) return DONE;
  // Each keeps its failure until its resend settles it: a request that joined its call may still read it.
  for (const m of kept) {
    m.call = undefined;
    m.leader = undefined;
  }
  const scope = new DeadlineScope(state.signal);
  const sent = own.map((c) => sendChunk(c, { signal: state.signal, deadlines: scope }, deps));
  return releasing(scope, Promise.all(sent)).then(() => undefined);
}
