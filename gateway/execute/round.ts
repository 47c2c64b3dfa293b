import { getArgumentValues } from 'graphql';
import { NO_KEY, keyString } from '../../directives/template.js';
import { readDotted } from '../../directives/dotted.js';
import type { PlanEntry } from '../plan/types.js';
import type { SourceClient } from '../upstream/client.js';
import type { Deadline } from '../upstream/deadline.js';
import type { ByteBudget } from '../upstream/byte-budget.js';
import type { Abortable } from '../upstream/canceller.js';
import { NULL_BODY, failure, type ElementsOutcome, type UpstreamOutcome } from '../upstream/outcome.js';
import { shouldResend, shouldSplitChunk } from '../upstream/retry-policy.js';
import {
  BatchGroups,
  checkBatchAnswer,
  chunkEntries,
  settleBatchChunk,
  splitBatchChunk,
  type BatchChunk,
  type BatchWarning,
} from './batch.js';
import { fillCaches, readCaches, type CacheTiers } from './cache-tiers.js';
import { RoundWaits, type InFlight, type SharedCall } from './coalesce.js';
import type { ExecutionListener } from './listener.js';
import { RoundTally } from './tally.js';
import type { KnownKey, SubrequestKeys } from './subrequest-keys.js';
import { ResultStore } from './result-store.js';
import { lookupKey, writeLookupKey, type HeaderForwarder, type MemoEntry, type OperationStats, type OutcomeSlot } from './state.js';
import { renderFetchBody } from './body.js';
import type { HttpMethod } from '../../directives/request.js';
import type { Lookups } from './walk.js';
import { lookupPath } from './lookup-path.js';
import { shareRequests } from './select-sharing.js';

/** What a round needs from the running gateway. */
export interface RoundDeps extends CacheTiers {
  readonly clients: ReadonlyMap<string, SourceClient>;
  readonly listener: ExecutionListener;
  readonly maxSubrequests: number;
  /** Calls in flight in this process, for coalescing and background refreshes (one per executor). */
  readonly inFlight: InFlight;
  /** @batch lookups' keys, built once per distinct key value (one per executor). */
  readonly keys: SubrequestKeys;
  /** Debug mode: upstream details go into error extensions. */
  readonly exposeDetail?: boolean;
}

/** The per-request state a round reads and fills. */
export interface RequestState {
  readonly variables: Readonly<Record<string, unknown>>;
  readonly store: ResultStore;
  readonly memo: Map<string, MemoEntry>;
  readonly stats: OperationStats;
  readonly forwarder: HeaderForwarder;
  readonly args: Map<PlanEntry, Record<string, unknown>>;
  /** Aborts when the client went away: no more subrequests are sent, in-flight ones are cancelled. */
  readonly signal?: Abortable;
  /** Debug mode only: what looked wrong without failing (a batch answer that matched none of its keys). */
  readonly warnings?: BatchWarning[];
  /**
   * Whether this request may share calls with other requests (execute/coalesce.ts), on sources with
   * `coalesce = true`: queries only. A mutation operation never coalesces (SPEC.md "Mutations").
   */
  readonly coalesce: boolean;
  /** limits.max_operation_upstream_bytes: what the operation may still take from its sources (upstream/byte-budget.ts). */
  readonly upstreamBytes?: ByteBudget;
}

/** Raised before sending when a round would take the operation over its subrequest limit. */
export class SubrequestLimitError extends Error {
  constructor(readonly limit: number) {
    super(`this operation needs more than ${limit} subrequests (limits.max_subrequests); ask for less data per query`);
  }
}

/** What a waiter gets if the call it waited for ended without an outcome (a bug; never seen in tests). */
const LOST: UpstreamOutcome = failure({
  code: 'UPSTREAM_UNREACHABLE',
  source: 'gateway',
  message: 'the shared subrequest ended without an answer',
  detail: 'coalesced call lost',
});
const ignore = (): void => undefined;

/**
 * Runs one round (SPEC.md "Rounds"): resolves every lookup to its subrequest, merges identical ones
 * (the request memo, L1), answers what L2 and memcached hold (execute/cache-tiers.ts), then sends
 * what is left in one go: each @batch group as one request per chunk, every other lookup as one
 * request, concurrently; what another request already has in flight is waited for instead
 * (execute/coalesce.ts). Each call fills the caches with what came back; stale entries that
 * answered get one background refresh. Every lookup claimed in the store has its outcome once the
 * round ends; returns the claimed lookups whose field has @fetch fields below it, for the walk.
 */
export function runRound(lookups: Lookups, state: RequestState, deps: RoundDeps): Promise<Claimed> {
  // Continuations, not an async function: the frame of an async function keeps every variable it
  // has while it waits, and a waiting round should not keep its lookups' arrays (docs/performance.md).
  try {
    const round = new RoundLookups(state, deps.keys);
    const { entries, parents } = lookups;
    for (let i = 0; i < entries.length; i++) round.add(entries[i]!, parents[i]!);
    const { tally, listAttached, claimed } = round;
    const stale: MemoEntry[] = [];
    const read = readCaches(round.fresh, deps, tally, stale);
    const sendRest = (fromNetwork: MemoEntry[]): Promise<void> => {
      if (stale.length > 0) refreshInBackground(stale, state.forwarder, deps);
      tally.flush(deps.listener);
      return fromNetwork.length > 0 ? send(fromNetwork, state, deps, tally) : NOTHING_SENT;
    };
    const sent = Array.isArray(read) ? sendRest(read) : read.then(sendRest);
    return sent.then(() => {
      for (const { slot, memos } of listAttached) slot.outcome = elementsOf(memos);
      return claimed;
    });
  } catch (err) {
    return Promise.reject(err);
  }
}

const NOTHING_SENT: Promise<void> = Promise.resolve();

/** Claimed lookups of a round, with the slot each one's outcome is in (parallel arrays). */
export interface Claimed {
  readonly entries: PlanEntry[];
  readonly slots: OutcomeSlot[];
}

/** The slot of a lookup whose value is null without asking anything (no key, or a null path placeholder). */
export const NULL_SLOT: OutcomeSlot = Object.freeze({ outcome: NULL_BODY }) as OutcomeSlot;

/**
 * One round's lookups resolved to memo entries: identical subrequests share one entry (the request
 * memo, L1), and that entry is the slot the store holds for each lookup it answers. A @batch field
 * whose key is a list (`tagIds: [ID!]!`) takes one entry per element, each under its own
 * single-fetch key, and its value is assembled from them after the round into a slot of its own.
 */
class RoundLookups {
  readonly tally = new RoundTally();
  readonly fresh: MemoEntry[] = [];
  readonly listAttached: Array<{ slot: OutcomeSlot; memos: Array<OutcomeSlot | null> }> = [];
  /** Claimed lookups of fields with @fetch fields below them: where the walk goes on after the round. */
  readonly claimed: Claimed = { entries: [], slots: [] };
  /** The parent whose lookup memo() claims; undefined while it resolves the elements of a list key. */
  private claiming: object | undefined;
  /** Reused for every template resolution of the round. */
  private readonly input: { parent: unknown; args: Readonly<Record<string, unknown>>; keys: undefined; key: unknown } = {
    parent: undefined,
    args: {},
    keys: undefined,
    key: NO_KEY,
  };

  constructor(
    private readonly state: RequestState,
    private readonly keys: SubrequestKeys,
  ) {}

  /**
   * Resolves the lookup of `entry` for `parent` and claims it in the store with its slot; a
   * (parent, field) claimed before is dropped, with no memo or cache event: it resolves to the
   * memo entry its first claim made, so only a lookup whose memo entry already exists can be one.
   */
  add(entry: PlanEntry, parent: object): void {
    const fetch = entry.blueprint.fetch!;
    const batch = fetch.batch;
    const input = this.input;
    input.parent = parent;
    input.args = argsOf(entry, this.state);
    input.key = NO_KEY;
    if (batch?.listKeys) {
      const slot: OutcomeSlot = { outcome: undefined };
      if (!this.claim(entry, parent, slot)) return;
      const elements = batch.readKey(parent);
      if (!Array.isArray(elements)) {
        slot.outcome = NULL_BODY;
        return;
      }
      const memos: Array<OutcomeSlot | null> = [];
      this.claiming = undefined;
      for (const element of elements) {
        const batchKey = keyString(element);
        input.key = element;
        const path = batchKey === undefined ? null : lookupPath(fetch.template, input, entry.blueprint);
        memos.push(path === null ? null : typeof path === 'string' ? this.memo(entry, path, batchKey, element) : { outcome: path });
      }
      this.listAttached.push({ slot, memos });
      return;
    }
    const rawKey = batch ? batch.readKey(parent) : undefined;
    const batchKey = batch ? keyString(rawKey) : undefined;
    const known = batchKey === undefined ? undefined : this.keys.known(fetch, batchKey);
    const path = known ? known.path : lookupPath(fetch.template, input, entry.blueprint);
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
      this.claimed.entries.push(entry);
      this.claimed.slots.push(slot);
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
    let key: string;
    if (typeof at !== 'string') {
      key = at.key;
    } else {
      const suffix = fetch.keySuffix + this.state.forwarder.for(fetch.source).keySuffix;
      key =
        fetch.method === 'GET'
          ? lookupKey(fetch.source.name, path, suffix)
          : writeLookupKey({ source: fetch.source.name, method: fetch.method, path, body }, suffix);
      if (batchKey !== undefined) this.keys.remember(fetch, batchKey, path, key);
    }
    let memo = this.state.memo.get(key);
    if (memo) {
      if (parent !== undefined && !this.claim(entry, parent, memo)) return null;
      this.tally.dedupeEvent(coordinate, fetch.source.name);
      if (fetch.cache) this.tally.cacheEvent(coordinate, fetch.source.name, 'l1', true);
      return memo;
    }
    memo = {
      key,
      coordinate,
      fetch,
      path,
      batchKey,
      batchKeyValue,
      args: this.input.args,
      body,
      outcome: undefined,
      call: undefined,
      leader: undefined,
    };
    // A new entry's lookup was not claimed before: that claim would have made the entry.
    if (parent !== undefined) this.claim(entry, parent, memo, true);
    this.state.memo.set(key, memo);
    this.fresh.push(memo);
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
 * Renews stale entries that just answered (SPEC.md "@cache" stale): at most one refresh per key per
 * process at a time, sent like a round of its own but for no request: not counted in any request's
 * stats, bound to no client's abort, its errors dropped (the stale entry serves on until it expires).
 */
function refreshInBackground(stale: readonly MemoEntry[], forwarder: HeaderForwarder, deps: RoundDeps): void {
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
  const state: RequestState = {
    variables: {},
    store: new ResultStore(),
    memo: new Map(),
    stats: { rounds: 1, subrequests: 0, batches: 0 },
    forwarder,
    args: new Map(),
    coalesce: true,
  };
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
  const joined: MemoEntry[] = [];
  const singles: MemoEntry[] = [];
  const groups = new BatchGroups();
  for (const m of entries) {
    if (coalesces(m, state)) {
      const call = deps.inFlight.join(m);
      if (call) {
        waits.wait(call, true);
        joined.push(m);
        tally.lookupEvent(m.coordinate, m.fetch.source.name, 'coalesced');
        continue;
      }
    }
    if (!m.fetch.batch || m.batchKey === undefined) {
      singles.push(m);
      continue;
    }
    // A null {args.*} in the path part of the @batch path: as for a single fetch (SPEC.md
    // "@fetch"), the field is null and nothing is sent.
    if (!groups.add(m, state.forwarder.for(m.fetch.source))) m.outcome = NULL_BODY;
  }
  tally.flush(deps.listener); // coalesced lookups show while they wait, not only once answered
  const chunks = groups.chunks();
  const { senders, riders } = shareRequests(singles, state.forwarder);
  if (riders) for (const more of riders.values()) for (const r of more) tally.dedupeEvent(r.coordinate, r.fetch.source.name);
  const planned = senders.length + chunks.length;
  if (state.stats.subrequests + planned > deps.maxSubrequests) return Promise.reject(new SubrequestLimitError(deps.maxSubrequests));
  // Every shared call is registered before the first await, so a request arriving meanwhile joins it.
  // This request's own subrequests to one source share one deadline (upstream/deadline.ts); a shared
  // call has its own, bound to the call's signal rather than to this client's.
  const own: Array<Promise<void>> = [];
  const ownBy = new Map<string, RequestBy>();
  const byForOwn = (source: string): RequestBy => {
    let by = ownBy.get(source);
    if (!by) {
      by = { state, signal: state.signal, deadline: deps.clients.get(source)!.deadline(state.signal) };
      ownBy.set(source, by);
    }
    return by;
  };
  const byForCall = (source: string, call: SharedCall): RequestBy => ({
    state,
    signal: call.signal,
    deadline: deps.clients.get(source)!.deadline(call.signal),
    call,
  });
  const release = (): void => {
    for (const by of ownBy.values()) by.deadline!.release();
  };
  let settled: Promise<void>;
  try {
    for (const m of senders) {
      const source = m.fetch.source.name;
      const alongside = riders?.get(m);
      if (!coalesces(m, state)) {
        own.push(sendSingle(m, byForOwn(source), deps, alongside));
        continue;
      }
      const call = deps.inFlight.lead([m]);
      call.done = sendSingle(m, byForCall(source, call), deps, alongside).catch(ignore);
      waits.wait(call, false);
    }
    for (const c of chunks) {
      const source = c.group.fetch.source;
      if (!state.coalesce || !source.coalesce) {
        own.push(sendChunk(c, byForOwn(source.name), deps));
        continue;
      }
      const call = deps.inFlight.lead(chunkEntries(c));
      call.done = sendChunk(c, byForCall(source.name, call), deps).catch(ignore);
      waits.wait(call, false);
    }
    settled = waits.settle(own, state.signal);
  } catch (err) {
    release();
    return Promise.reject(err);
  }
  return settled.then(
    () => {
      release();
      for (const m of joined) m.outcome = m.leader!.outcome ?? LOST;
    },
    (err: unknown) => {
      release();
      throw err;
    },
  );
}

/** Only GET subrequests of a coalescing source are shared across requests (SPEC.md "Coalescing"). */
function coalesces(m: MemoEntry, state: RequestState): boolean {
  return state.coalesce && m.fetch.source.coalesce && m.fetch.method === 'GET';
}

/**
 * Sends one single fetch (as a shared call when `by.call` is set) and stores its answer in the caches;
 * `riders` (entries of the same request with another `select`, execute/select-sharing.ts) take
 * their own part of it. Written as continuations, not an async function: a round of a hundred
 * singles to a source of 64 connections leaves most of them waiting for one, and each would hold
 * its frame meanwhile.
 */
function sendSingle(m: MemoEntry, by: RequestBy, deps: RoundDeps, riders?: readonly MemoEntry[]): Promise<void> {
  let sent: Promise<UpstreamOutcome>;
  try {
    const sub: Subrequest = {
      source: m.fetch.source.name,
      coordinate: m.coordinate,
      method: m.fetch.method,
      path: m.path,
      body: m.body,
      headers: by.state.forwarder.for(m.fetch.source).headers,
      mayResend: true,
    };
    sent = sendSubrequest(sub, by, deps);
  } catch (err) {
    // As an async function would: a throw is a rejection, so a shared call is still settled below.
    sent = Promise.reject(err);
  }
  return sent.then(
    (outcome) => {
      try {
        m.outcome = selected(outcome, m.fetch.select);
        if (riders) for (const r of riders) r.outcome = selected(outcome, r.fetch.select);
      } finally {
        singleEnded(by, deps);
      }
      if (m.fetch.cache) fillCaches([m], deps);
      if (riders) fillCaches(riders, deps);
    },
    (err: unknown) => {
      singleEnded(by, deps);
      throw err;
    },
  );
}

/** A single fetch sent as a shared call ended: its deadline is released and its key is never joinable again. */
function singleEnded(by: RequestBy, deps: RoundDeps): void {
  if (!by.call) return;
  by.deadline!.release();
  deps.inFlight.settle(by.call);
}

/**
 * Sends one @batch chunk (as a shared call when `by.call` is set); a failed chunk may be sent again
 * once as two halves (upstream/retry-policy.ts), under a deadline of their own. Stores the keys'
 * answers in the caches.
 */
async function sendChunk(chunk: BatchChunk, by: RequestBy, deps: RoundDeps): Promise<void> {
  const { group } = chunk;
  const { state, call } = by;
  const sendOne = (c: BatchChunk, mayResend: boolean, under: RequestBy) =>
    sendSubrequest(
      {
        source: group.fetch.source.name,
        coordinate: group.coordinate,
        method: group.batch.method,
        path: c.path,
        body: c.body,
        headers: group.headers.headers,
        batchSize: c.keys.length,
        mayResend,
        judge: (o) => checkBatchAnswer(c, o),
      },
      under,
      deps,
    );
  try {
    let answer: UpstreamOutcome;
    try {
      answer = await sendOne(chunk, true, by);
    } finally {
      if (call) by.deadline!.release();
    }
    if (
      answer.kind === 'error' &&
      shouldSplitChunk(answer.error, chunk.keys.length) &&
      state.stats.subrequests + 2 <= deps.maxSubrequests
    ) {
      const halves = splitBatchChunk(chunk);
      const later: RequestBy = { ...by, deadline: undefined };
      await Promise.all(halves.map(async (half) => settleBatchChunk(half, await sendOne(half, false, later), state.warnings)));
    } else {
      settleBatchChunk(chunk, answer, state.warnings);
    }
  } finally {
    if (call) deps.inFlight.settle(call); // whatever happened, its keys are never joinable again
  }
  if (group.fetch.cache) fillCaches(call ? call.memos : chunkEntries(chunk), deps);
}

/** A single fetch's value: with `select`, that dotted path of the body (missing: null). */
export function selected(outcome: UpstreamOutcome, select: readonly string[] | undefined): UpstreamOutcome {
  if (!select || outcome.kind !== 'ok') return outcome;
  return { kind: 'ok', body: readDotted(outcome.body, select) ?? null };
}

/** Who a subrequest is sent for (the request whose stats count it), what cancels it, under which deadline. */
export interface RequestBy {
  readonly state: RequestState;
  /** The client's signal, or a shared call's (aborted once every waiter left). */
  readonly signal: Abortable | undefined;
  /**
   * Shared by the requests sent together (upstream/deadline.ts), released by whoever made it;
   * absent: each attempt gets one of its own, bound to `signal`.
   */
  readonly deadline?: Deadline;
  /** Set when this is a shared call other requests may wait for (execute/coalesce.ts). */
  readonly call?: SharedCall;
}

/** One request to send: to which source, for which field, and how its answer is judged. */
export interface Subrequest {
  readonly source: string;
  readonly coordinate: string;
  readonly method: HttpMethod;
  readonly path: string;
  /** JSON text for a method other than GET. */
  readonly body?: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Keys in the request for a @batch chunk; undefined for a single fetch. */
  readonly batchSize?: number;
  readonly mayResend: boolean;
  /** Turns a well-formed HTTP answer into what the lookup makes of it; identity when absent. */
  readonly judge?: (outcome: UpstreamOutcome) => UpstreamOutcome;
}

/**
 * Sends one request and reports it to the listener; every attempt is a counted subrequest. `judge`
 * turns a well-formed HTTP answer into what the lookup makes of it (a batch answer that is not an
 * array is an error), so metrics count what the keys see. With `mayResend`, a reset connection
 * is sent once more if upstream/retry-policy.ts allows it (a GET only) and max_subrequests too,
 * under a deadline of its own (its timeout counts from its own send).
 */
export function sendSubrequest(sub: Subrequest, by: RequestBy, deps: RoundDeps): Promise<UpstreamOutcome> {
  return attempt(sub, by, deps, 1);
}

/**
 * One attempt of sendSubrequest: the first under the shared deadline, a re-send under one of its
 * own (its timeout counts from its own send). Continuations rather than an async function, so that
 * an attempt waiting for a connection holds no frame (see sendSingle).
 */
function attempt(sub: Subrequest, by: RequestBy, deps: RoundDeps, n: 1 | 2): Promise<UpstreamOutcome> {
  const client = deps.clients.get(sub.source)!;
  const { stats } = by.state;
  const shared = n === 1 ? by.deadline : undefined;
  stats.subrequests++;
  if (sub.batchSize !== undefined) stats.batches++;
  const t0 = performance.now();
  const deadline = shared ?? client.deadline(by.signal);
  return client.send(sub, deadline, by.state.upstreamBytes).then(
    (answer) => {
      if (!shared) deadline.release();
      const outcome = sub.judge ? sub.judge(answer) : answer;
      deps.listener.onSubrequest?.({
        coordinate: sub.coordinate,
        source: sub.source,
        batchSize: sub.batchSize,
        durationMs: performance.now() - t0,
        errorCode: outcome.kind === 'error' ? outcome.error.code : undefined,
      });
      if (
        n === 2 ||
        !sub.mayResend ||
        outcome.kind !== 'error' ||
        !shouldResend(outcome.error, sub.method) ||
        stats.subrequests >= deps.maxSubrequests
      )
        return outcome;
      return attempt(sub, by, deps, 2);
    },
    (err: unknown) => {
      if (!shared) deadline.release();
      throw err;
    },
  );
}

/** The field's argument values for this request (coerced once per plan entry). */
export function argsOf(entry: PlanEntry, state: RequestState): Readonly<Record<string, unknown>> {
  if (entry.constantArgs) return entry.constantArgs;
  let args = state.args.get(entry);
  if (!args) {
    args = entry.fieldDef.args.length ? getArgumentValues(entry.fieldDef, entry.fieldNode, state.variables as Record<string, unknown>) : {};
    state.args.set(entry, args);
  }
  return args;
}
