import { NO_KEY, keyString } from '../../../directives/template.js';
import type { PlanEntry } from '../../plan/types.js';
import { DeadlineScope } from '../../upstream/deadline.js';
import { NULL_BODY, type ElementsOutcome, type UpstreamOutcome } from '../../upstream/outcome.js';
import { BatchGroups, chunkEntries, sendChunk, type BatchChunk } from '../send/batch.js';
import { resendApart } from '../send/isolate.js';
import { readCaches, servedDuringHold } from '../send/cache-tiers.js';
import { RoundWaits } from '../send/coalesce.js';
import { releasing, type DispatchContext } from '../send/dispatch.js';
import { argsOf, refreshState, type RequestState, type RoundDeps } from '../send/request-context.js';
import { joinedOutcome, sendSingle, wholeAnswer } from '../send/single.js';
import { RoundTally } from '../send/tally.js';
import type { KnownKey, SubrequestKeys } from '../send/subrequest-keys.js';
import { newMemoEntry, type MemoEntry, type OutcomeSlot } from '../send/memo-entry.js';
import { memoKey } from '../../cache/cache-key.js';
import { lookupPath } from '../send/fetch-path.js';
import { shareRequests } from '../send/select-sharing.js';
import { renderFetchBody } from '../send/body.js';
import type { Lookups } from './walk.js';
import { appended } from '../../util/appended.js';
import { keepSideloaded, takeSideloads } from '../send/sideload.js';
import type { CacheTiers } from '../../cache/tier.js';

const ignore = (): void => undefined;

/**
 * Runs one round (docs/caching.md): resolves every lookup to its subrequest, merges identical ones
 * (the request memo, L1), answers what L2 and memcached hold (execute/send/cache-tiers.ts), then sends
 * what is left in one go: each @batch group as one request per chunk, every other lookup as one
 * request, concurrently; what another request already has in flight is waited for instead
 * (execute/send/coalesce.ts). Each call fills the caches with what came back; stale entries that
 * answered get one background refresh. Every lookup claimed in the store has its outcome once the
 * round ends; returns the claimed lookups whose field has @fetch fields below it, for the walk.
 */
export function runRound(lookups: Lookups, state: RequestState, deps: RoundDeps): Promise<Claimed> {
  // Continuations, not an async function: the frame of an async function keeps every variable it
  // has while it waits, and a waiting round should not keep its lookups' arrays (docs/performance.md).
  try {
    const round = new RoundLookups(state, deps.keys, deps);
    const { entries, parents } = lookups;
    for (let i = 0; i < entries.length; i++) round.add(entries[i]!, parents[i]!);
    const { tally } = round;
    const stale: MemoEntry[] = [];
    const read = readCaches(round.created, deps, tally, { stale, polled: state.poll });
    const sendRest = (fromNetwork: MemoEntry[]): Promise<void> => {
      if (stale.length > 0) refreshInBackground(stale, state, deps);
      tally.flush(deps.listener);
      return fromNetwork.length > 0 ? send(fromNetwork, state, deps, tally) : NOTHING_SENT;
    };
    const sent = Array.isArray(read) ? sendRest(read) : read.then(sendRest);
    return sent.then(() => {
      servedDuringHold(round.created, deps.listener);
      takeSideloads(round.created, state); // before the walk plans the next round's lookups
      return round.finish();
    });
  } catch (err) {
    return Promise.reject(err);
  }
}

const NOTHING_SENT: Promise<void> = Promise.resolve();

/** Claimed lookups of a round, with the slot each one's outcome is in (parallel arrays). */
export interface Claimed {
  entries: PlanEntry[];
  slots: OutcomeSlot[];
}

const NO_CLAIMS: Claimed = Object.freeze({
  entries: Object.freeze([]) as unknown as PlanEntry[],
  slots: Object.freeze([]) as unknown as OutcomeSlot[],
});

/** The slot of a lookup whose value is null without asking anything (no key, or a null path placeholder). */
export const NULL_SLOT: OutcomeSlot = Object.freeze({ outcome: NULL_BODY }) as OutcomeSlot;

/**
 * One round's lookups resolved to memo entries: identical subrequests share one entry (the request
 * memo, L1), and that entry is the slot the store holds for each lookup it answers. A @batch field
 * whose key is a list (`tagIds: [ID!]!`) takes one entry per element, each under its own
 * single-fetch key, and its value is assembled from them after the round into a slot of its own.
 */
class RoundLookups {
  readonly tally: RoundTally;
  /** The memo entries this round made (appended.ts). */
  created: MemoEntry[] = [];
  // Both made at their first use: a round's fields seldom have list keys, a last round's nothing below.
  private listAttached: Array<{ slot: OutcomeSlot; memos: Array<OutcomeSlot | null> }> | undefined;
  /** Claimed lookups of fields with @fetch fields below them: where the walk goes on after the round. */
  private claimed: Claimed | undefined;
  /** The parent whose lookup memo() claims; undefined while it resolves the elements of a list key. */
  private claiming: object | undefined;
  /** Reused for every template resolution of the round. */
  private readonly input: {
    parent: unknown;
    args: Readonly<Record<string, unknown>>;
    keys: undefined;
    key: unknown;
    keyIsArgs: boolean;
    auth: unknown;
  };
  /** Reused for every memo key of the round (cache/cache-key.ts memoKey reads it, keeps nothing). */
  private readonly request: { source: string; method: string; path: string; body: string | undefined } = {
    source: '',
    method: 'GET',
    path: '',
    body: undefined,
  };

  constructor(
    private readonly state: RequestState,
    private readonly keys: SubrequestKeys,
    private readonly tiers: CacheTiers,
  ) {
    this.input = { parent: undefined, args: {}, keys: undefined, key: NO_KEY, keyIsArgs: false, auth: state.access?.claims };
    this.tally = new RoundTally(state.observer);
  }

  /** Once every memo entry has its outcome: list-key fields take their elements'; the claims the walk goes on from. */
  finish(): Claimed {
    if (this.listAttached) for (const { slot, memos } of this.listAttached) slot.outcome = elementsOf(memos);
    return this.claimed ?? NO_CLAIMS;
  }

  /**
   * Resolves the lookup of `entry` for `parent` and claims it in the store with its slot; a
   * (parent, field) claimed before is dropped, with no memo or cache event: it resolves to the
   * memo entry its first claim made, so only a lookup whose memo entry already exists can be one.
   */
  add(entry: PlanEntry, parent: object): void {
    const fetch = entry.blueprint.fetch!;
    const refused = this.state.forwarder.for(fetch.source).refused;
    if (refused) {
      this.claim(entry, parent, { outcome: refused });
      return;
    }
    const batch = fetch.batch;
    const input = this.input;
    input.parent = parent;
    input.args = argsOf(entry, this.state);
    input.key = NO_KEY;
    input.keyIsArgs = batch?.keyFromArgs === true;
    if (batch?.listKeys) {
      const slot: OutcomeSlot = { outcome: undefined };
      if (!this.claim(entry, parent, slot)) return;
      const elements = batch.readKey(batch.keyFromArgs ? input.args : parent);
      if (!Array.isArray(elements)) {
        slot.outcome = NULL_BODY;
        return;
      }
      const memos: Array<OutcomeSlot | null> = [];
      this.claiming = undefined;
      for (const element of elements) {
        const batchKey = keyString(element);
        input.key = element;
        const path = batchKey === undefined ? null : lookupPath(fetch, input, entry.blueprint.coordinate);
        memos.push(path === null ? null : typeof path === 'string' ? this.memo(entry, path, batchKey, element) : { outcome: path });
      }
      (this.listAttached ??= []).push({ slot, memos });
      return;
    }
    const rawKey = batch ? batch.readKey(batch.keyFromArgs ? input.args : parent) : undefined;
    const batchKey = batch ? (batch.keyString ?? keyString)(rawKey) : undefined;
    const known = batchKey === undefined ? undefined : this.keys.known(fetch, batchKey);
    const path = known ? known.path : lookupPath(fetch, input, entry.blueprint.coordinate);
    if (path === null || (batch && batchKey === undefined)) {
      this.claim(entry, parent, NULL_SLOT);
      return;
    }
    if (typeof path !== 'string') {
      this.claim(entry, parent, { outcome: path });
      return;
    }
    this.claiming = parent;
    this.memo(entry, known ?? path, batchKey, rawKey);
  }

  /**
   * Claims the lookup in the store for `slot`; false when this (parent, field) was claimed before.
   * `isNew`: the caller knows it was not (its lookup made a new memo entry), so nothing is checked.
   */
  private claim(entry: PlanEntry, parent: object, slot: OutcomeSlot, isNew = false): boolean {
    if (isNew) this.state.store.claimNew(parent, entry.fieldNode, slot);
    else if (!this.state.store.claim(parent, entry.fieldNode, slot)) return false;
    if (entry.fetchBelow) {
      const claimed = (this.claimed ??= { entries: [], slots: [] });
      claimed.entries = appended(claimed.entries, entry);
      claimed.slots = appended(claimed.slots, slot);
    }
    return true;
  }

  /**
   * The lookup's memo entry (made when new), for its resolved single-fetch path, or for its path and
   * key as kept by SubrequestKeys. With `claiming` set, the lookup of that parent is claimed for the
   * entry first (an element of a list key is claimed by its field's slot instead); null when that
   * claim was a repeat, and then nothing is counted.
   */
  private memo(entry: PlanEntry, at: string | KnownKey, batchKey: string | undefined, batchKeyValue: unknown): MemoEntry | null {
    const parent = this.claiming;
    const fetch = entry.blueprint.fetch!;
    const coordinate = entry.blueprint.coordinate;
    const body = fetch.body && renderFetchBody(fetch.body, this.input);
    const path = typeof at === 'string' ? at : at.path;
    const forwarded = this.state.forwarder.for(fetch.source);
    let key: string;
    let requestKey: string;
    if (typeof at !== 'string') {
      key = requestKey = at.key;
    } else {
      const request = this.request;
      request.source = fetch.source.name;
      request.method = fetch.method;
      request.path = path;
      request.body = body;
      key = memoKey(request, fetch.keySuffix, forwarded.keySuffix);
      // Only single fetches share a call by request key (MemoEntry.requestKey).
      requestKey = fetch.keySuffix === '' || batchKey !== undefined ? key : memoKey(request, '', forwarded.keySuffix);
      if (batchKey !== undefined) this.keys.remember(fetch, batchKey, path, key);
    }
    let memo = this.state.memo.get(key);
    if (memo) {
      if (parent !== undefined && !this.claim(entry, parent, memo)) return null;
      this.tally.dedupeEvent(coordinate, fetch.source.name);
      if (fetch.cache) this.tally.cacheEvent(coordinate, fetch.source.name, 'l1', true);
      if (memo.sideloaded) keepSideloaded(memo, fetch, this.tiers);
      return memo;
    }
    memo = newMemoEntry({ key, requestKey, coordinate, fetch, path, batchKey, batchKeyValue, args: this.input.args, body, forwarded });
    // A new entry's lookup was not claimed before: that claim would have made the entry.
    if (parent !== undefined) this.claim(entry, parent, memo, true);
    this.state.memo.set(key, memo);
    this.created = appended(this.created, memo);
    if (fetch.cache) this.tally.cacheEvent(coordinate, fetch.source.name, 'l1', false);
    return memo;
  }
}

/** The value of a list-key @batch field: its elements' outcomes in element order, repeats kept (upstream/outcome.ts). */
function elementsOf(memos: ReadonlyArray<OutcomeSlot | null>): ElementsOutcome {
  const elements = new Array<UpstreamOutcome | undefined>(memos.length);
  for (let i = 0; i < memos.length; i++) elements[i] = memos[i]?.outcome as UpstreamOutcome | undefined;
  return { kind: 'elements', elements };
}

/**
 * Renews stale entries that just answered (docs/caching.md stale): at most one refresh per key per
 * process at a time, sent like a round of its own for the caller of `state` but for no request
 * (request-context.ts refreshState): not counted in any request's stats, bound to no client's abort,
 * its errors dropped (the stale entry serves on until it expires).
 */
function refreshInBackground(stale: readonly MemoEntry[], of: RequestState, deps: RoundDeps): void {
  const { refreshing } = deps.inFlight;
  const renew: MemoEntry[] = [];
  for (const m of stale) {
    if (refreshing.has(m.key)) continue;
    refreshing.add(m.key);
    renew.push({ ...m, outcome: undefined, call: undefined, leader: undefined });
  }
  if (renew.length === 0) return;
  const tally = new RoundTally();
  for (const m of renew) tally.lookupEvent(m.coordinate, m.fetch.source.name, 'refreshed');
  tally.flush(deps.listener);
  const state = refreshState(of, deps, renew);
  void send(renew, state, deps, tally)
    .catch(ignore)
    .finally(() => {
      for (const m of renew) refreshing.delete(m.key);
    });
}

/**
 * Sends a round's remaining lookups. A lookup of a coalescing source whose key is already in flight
 * for another request waits for that call (not counted in this request's stats); the others go out
 * as this request's subrequests, and those of coalescing sources become shared calls others may join.
 * A query's @batch chunks on a source with `batch_across_requests` go to the collector
 * (execute/send/batch-collector.ts), where concurrent requests' keys join them; each chunk is handed on
 * once, to sendChunk (batch.ts) or to the collector.
 */
function send(entries: MemoEntry[], state: RequestState, deps: RoundDeps, tally: RoundTally): Promise<void> {
  try {
    return startSending(entries, state, deps, tally);
  } catch (err) {
    return Promise.reject(err); // as an async function would: the caller sees a rejection, never a throw
  }
}

/**
 * send() up to its wait. Continuations, not an async function, for the reason of runRound: the
 * waiting part keeps only what it needs (the joined entries, the deadlines to release), not `entries`.
 */
function startSending(entries: MemoEntry[], state: RequestState, deps: RoundDeps, tally: RoundTally): Promise<void> {
  if (state.signal?.aborted) return Promise.reject(state.signal.reason);
  const waits = new RoundWaits(deps.inFlight);
  // Made at the first entry of each kind: most rounds have only @batch lookups.
  let joined: MemoEntry[] | undefined;
  let singles: MemoEntry[] | undefined;
  /** This round's chunks that became shared calls: their keys may be resent apart (execute/send/isolate.ts). */
  let shared: BatchChunk[] | undefined;
  const groups = new BatchGroups(state, state.warnings);
  for (const m of entries) {
    if (coalesces(m, state)) {
      const call = deps.inFlight.join(m, m.batchKey === undefined ? m.fetch.response : undefined);
      if (call) {
        state.observer?.joined(call);
        waits.wait(call, true);
        (joined ??= []).push(m);
        tally.lookupEvent(m.coordinate, m.fetch.source.name, 'coalesced');
        continue;
      }
    }
    if (!m.fetch.batch || m.batchKey === undefined) {
      (singles ??= []).push(m);
      continue;
    }
    // A null {args.*} in the path part of the @batch path: as for a single fetch (docs/reference.md
    // "@fetch"), the field is null and nothing is sent.
    if (!groups.add(m)) m.outcome = NULL_BODY;
  }
  tally.flush(deps.listener); // coalesced lookups show while they wait, not only once answered
  const chunks = groups.chunks();
  // Fields that differ only in `select` send one request (execute/send/select-sharing.ts).
  const { senders, riders } = singles ? shareRequests(singles) : NO_SINGLES;
  if (riders) for (const more of riders.values()) for (const r of more) tally.dedupeEvent(r.coordinate, r.fetch.source.name);
  state.budget.reserve(senders.length + chunks.length);
  // Every shared call is registered before the first await, so a request arriving meanwhile joins it.
  // This request's own subrequests share one deadline per source (upstream/deadline.ts); a shared
  // call has its own, bound to the call's signal rather than to this client's.
  const own: Array<Promise<void>> = [];
  // Made at this request's first own subrequest: a round whose keys all wait in shared calls has none.
  let scope: DeadlineScope | undefined;
  let ownCtx: DispatchContext | undefined;
  let waited: Promise<void>;
  try {
    for (const m of senders) {
      const alongside = riders?.get(m);
      if (!coalesces(m, state)) {
        scope ??= new DeadlineScope(state.signal);
        ownCtx ??= { for: [state], signal: state.signal, deadlines: scope };
        own.push(sendSingle(m, ownCtx, deps, { riders: alongside }));
        continue;
      }
      const call = deps.inFlight.leadSingle(m, m.revalidate ? undefined : wholeAnswer(m, alongside));
      const callScope = new DeadlineScope(call.signal);
      const ctx: DispatchContext = { for: [state], signal: call.signal, deadlines: callScope, call };
      call.sends(releasing(callScope, sendSingle(m, ctx, deps, { call, riders: alongside })));
      waits.wait(call, false);
    }
    for (const c of chunks) {
      const source = c.group.fetch.source;
      if (state.coalesce && source.batchAcrossRequests) {
        waits.wait(deps.collector.place(c, deps), true);
        (shared ??= []).push(c);
        continue;
      }
      if (!state.coalesce || !source.coalesce) {
        scope ??= new DeadlineScope(state.signal);
        own.push(sendChunk(c, { signal: state.signal, deadlines: scope }, deps));
        continue;
      }
      const call = deps.inFlight.lead(chunkEntries(c));
      const callScope = new DeadlineScope(call.signal);
      call.sends(releasing(callScope, sendChunk(c, { signal: call.signal, deadlines: callScope, call }, deps)));
      waits.wait(call, false);
      (shared ??= []).push(c);
    }
    waited = waits.waitAll(own, state.signal);
  } catch (err) {
    waited = Promise.reject(err);
  }
  // A waiter takes its leader's outcome: a shared send gives every entry one, and a given-up call
  // (aborted once every waiter left) has no waiter left to read it (coalesce.ts).
  const released = scope ? releasing(scope, waited) : waited;
  if (!joined && !shared) return released;
  const waiting = joined;
  const placed = shared;
  return released.then(() => {
    if (waiting) for (const m of waiting) m.outcome = joinedOutcome(m);
    return resendApart(placed, waiting, state, deps);
  });
}

const NO_SINGLES: ReturnType<typeof shareRequests> = Object.freeze({
  senders: Object.freeze([]) as unknown as MemoEntry[],
  riders: undefined,
});

/** Only GET subrequests of a coalescing source are shared across requests (docs/caching.md). */
function coalesces(m: MemoEntry, state: RequestState): boolean {
  return state.coalesce && m.fetch.source.coalesce && m.fetch.method === 'GET';
}
