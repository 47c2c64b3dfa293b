import { getArgumentValues } from 'graphql';
import { resolvePathTemplate, templateValueString, type Placeholder } from '../../directives/template.js';
import type { PlanEntry } from '../plan/types.js';
import type { SourceClient } from '../upstream/client.js';
import { failure, type UpstreamOutcome } from '../upstream/outcome.js';
import { shouldResend, shouldSplitChunk, splitInHalves } from '../upstream/retry-policy.js';
import { batchChunk, checkBatchAnswer, chunkBatchGroup, settleBatchChunk, type BatchChunk, type BatchGroup } from './batch.js';
import { fillCaches, readCaches, type CacheTiers } from './cache-tiers.js';
import { RoundWaits, type InFlight, type SharedCall } from './coalesce.js';
import type { ExecutionListener } from './listener.js';
import { RoundTally } from './tally.js';
import { ResultStore, type HeaderForwarder, type MemoEntry, type OperationStats } from './state.js';
import type { Lookup } from './walk.js';

/** What a round needs from the running gateway. */
export interface RoundDeps extends CacheTiers {
  readonly clients: ReadonlyMap<string, SourceClient>;
  readonly listener: ExecutionListener;
  readonly maxSubrequests: number;
  /** Calls in flight in this process, for coalescing and background refreshes (one per executor). */
  readonly inFlight: InFlight;
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
  readonly signal?: AbortSignal;
}

/** Raised before sending when a round would take the operation over its subrequest limit. */
export class SubrequestLimitError extends Error {
  constructor(readonly limit: number) {
    super(`this operation needs more than ${limit} subrequests (limits.max_subrequests); ask for less data per query`);
  }
}

const NULL_VALUE: UpstreamOutcome = { kind: 'ok', body: null };
/** What a waiter gets if the call it waited for ended without an outcome (a bug; never seen in tests). */
const LOST: UpstreamOutcome = failure({ code: 'UPSTREAM_UNREACHABLE', source: 'gateway', message: 'the shared subrequest ended without an answer', detail: 'coalesced call lost' });
const ignore = (): void => undefined;

/**
 * Runs one round (SPEC.md "Rounds"): resolves every lookup to its subrequest, merges identical ones
 * (the request memo, L1), answers what L2 and memcached hold (execute/cache-tiers.ts), then sends
 * what is left in one go: each @batch group as one request per chunk, every other lookup as one
 * request, concurrently; what another request already has in flight is waited for instead
 * (execute/coalesce.ts). Each call fills the caches with what came back; stale entries that
 * answered get one background refresh. Records every lookup's outcome in the store.
 */
export async function runRound(lookups: readonly Lookup[], state: RequestState, deps: RoundDeps): Promise<void> {
  const tally = new RoundTally();
  const fresh: MemoEntry[] = [];
  const attached: Array<[Lookup, MemoEntry]> = [];
  for (const lookup of lookups) {
    const fetch = lookup.entry.blueprint.fetch!;
    const coordinate = lookup.entry.blueprint.coordinate;
    const args = argsOf(lookup.entry, state);
    const parent = lookup.parent as Record<string, unknown>;
    const values = (p: Placeholder): unknown => (p.kind === 'parent' ? parent[fetch.parentKeys.get(p.name)!] : p.kind === 'args' ? args[p.name] : undefined);
    const path = resolvePathTemplate(fetch.template, values);
    const rawKey = fetch.batch ? parent[fetch.batch.keyJsonKey] : undefined;
    if (path === null || (fetch.batch && (rawKey === null || rawKey === undefined))) {
      state.store.set(lookup.parent, lookup.entry.fieldNode, NULL_VALUE);
      continue;
    }
    const key = `${fetch.source.name}:${path}${state.forwarder.for(fetch.source).keySuffix}`;
    let memo = state.memo.get(key);
    if (memo) {
      tally.dedupeEvent(coordinate, fetch.source.name);
      if (fetch.cache) tally.cacheEvent(coordinate, fetch.source.name, 'l1', true);
    } else {
      memo = { key, coordinate, fetch, path, batchKey: fetch.batch ? templateValueString(rawKey) : undefined, args, outcome: undefined, call: undefined, leader: undefined };
      state.memo.set(key, memo);
      fresh.push(memo);
      if (fetch.cache) tally.cacheEvent(coordinate, fetch.source.name, 'l1', false);
    }
    attached.push([lookup, memo]);
  }

  const stale: MemoEntry[] = [];
  const fromNetwork = await readCaches(fresh, deps, tally, stale);
  if (stale.length > 0) refreshInBackground(stale, state.forwarder, deps);
  tally.flush(deps.listener);
  await send(fromNetwork, state, deps, tally);
  tally.flush(deps.listener);
  for (const [lookup, memo] of attached) state.store.set(lookup.parent, lookup.entry.fieldNode, memo.outcome!);
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
  };
  void send(renew, state, deps, tally)
    .catch(ignore)
    .finally(() => {
      for (const m of renew) refreshing.delete(m.key);
      tally.flush(deps.listener);
    });
}

/**
 * Sends a round's remaining lookups. A lookup of a coalescing source whose key is already in flight
 * for another request waits for that call (not counted in this request's stats); the others go out
 * as this request's subrequests, and those of coalescing sources become shared calls others may join.
 */
async function send(entries: MemoEntry[], state: RequestState, deps: RoundDeps, tally: RoundTally): Promise<void> {
  state.signal?.throwIfAborted();
  const waits = new RoundWaits(deps.inFlight);
  const joined: MemoEntry[] = [];
  const singles: MemoEntry[] = [];
  // Groups per field (its fetch blueprint), then per resolved batch path and forwarded headers;
  // the inner key is '' in the common case of a path without {args.*} and no forwarded headers.
  const groupsByField = new Map<object, Map<string, BatchGroup>>();
  for (const m of entries) {
    if (m.fetch.source.coalesce) {
      const call = deps.inFlight.join(m);
      if (call) {
        waits.wait(call, true);
        joined.push(m);
        tally.lookupEvent(m.coordinate, m.fetch.source.name, 'coalesced');
        continue;
      }
    }
    const batch = m.fetch.batch;
    if (!batch || m.batchKey === undefined) {
      singles.push(m);
      continue;
    }
    const headers = state.forwarder.for(m.fetch.source);
    const variant = batch.hasArgs ? String(resolvePathTemplate(batch.template, (p) => (p.kind === 'args' ? m.args[p.name] : undefined), '')) : '';
    const groupKey = headers.keySuffix === '' ? variant : `${variant}${headers.keySuffix}`;
    let groups = groupsByField.get(m.fetch);
    if (!groups) {
      groups = new Map();
      groupsByField.set(m.fetch, groups);
    }
    let group = groups.get(groupKey);
    if (!group) {
      group = { coordinate: m.coordinate, fetch: m.fetch, batch, headers, args: m.args, keys: new Map() };
      groups.set(groupKey, group);
    }
    const waiting = group.keys.get(m.batchKey);
    if (waiting) waiting.push(m);
    else group.keys.set(m.batchKey, [m]);
  }
  const chunks: BatchChunk[] = [];
  for (const groups of groupsByField.values()) for (const g of groups.values()) chunks.push(...chunkBatchGroup(g));
  const planned = singles.length + chunks.length;
  if (state.stats.subrequests + planned > deps.maxSubrequests) throw new SubrequestLimitError(deps.maxSubrequests);
  // Every shared call is registered before the first await, so a request arriving meanwhile joins it.
  const own: Array<Promise<void>> = [];
  for (const m of singles) {
    if (!m.fetch.source.coalesce) {
      own.push(sendSingle(m, undefined, state, deps));
      continue;
    }
    const call = deps.inFlight.lead([m]);
    call.done = sendSingle(m, call, state, deps).catch(ignore);
    waits.wait(call, false);
  }
  for (const c of chunks) {
    if (!c.group.fetch.source.coalesce) {
      own.push(sendChunk(c, undefined, state, deps));
      continue;
    }
    const call = deps.inFlight.lead(chunkMemos(c));
    call.done = sendChunk(c, call, state, deps).catch(ignore);
    waits.wait(call, false);
  }
  await waits.settle(own, state.signal);
  for (const m of joined) m.outcome = m.leader!.outcome ?? LOST;
}

function chunkMemos(chunk: BatchChunk): MemoEntry[] {
  const memos: MemoEntry[] = [];
  for (const key of chunk.keys) memos.push(...chunk.group.keys.get(key)!);
  return memos;
}

/** Sends one single fetch (as a shared call when `call` is given) and stores its answer in the caches. */
async function sendSingle(m: MemoEntry, call: SharedCall | undefined, state: RequestState, deps: RoundDeps): Promise<void> {
  const sub: Subrequest = { source: m.fetch.source.name, coordinate: m.coordinate, path: m.path, headers: state.forwarder.for(m.fetch.source).headers, mayResend: true };
  m.outcome = await request(sub, { state, signal: call ? call.signal : state.signal }, deps);
  if (call) deps.inFlight.settle(call);
  fillCaches([m], deps);
}

/**
 * Sends one @batch chunk (as a shared call when `call` is given); a failed chunk may be sent again
 * once as two halves (upstream/retry-policy.ts). Stores the keys' answers in the caches.
 */
async function sendChunk(chunk: BatchChunk, call: SharedCall | undefined, state: RequestState, deps: RoundDeps): Promise<void> {
  const { group } = chunk;
  const by: RequestBy = { state, signal: call ? call.signal : state.signal };
  const sendOne = (c: BatchChunk, mayResend: boolean) =>
    request(
      { source: group.fetch.source.name, coordinate: group.coordinate, path: c.path, headers: group.headers.headers, batchSize: c.keys.length, mayResend, judge: (o) => checkBatchAnswer(c, o) },
      by,
      deps,
    );
  const answer = await sendOne(chunk, true);
  if (answer.kind === 'error' && shouldSplitChunk(answer.error, chunk.keys.length) && state.stats.subrequests + 2 <= deps.maxSubrequests) {
    const halves = splitInHalves(chunk.keys).map((keys) => batchChunk(group, keys));
    await Promise.all(halves.map(async (half) => settleBatchChunk(half, await sendOne(half, false))));
  } else {
    settleBatchChunk(chunk, answer);
  }
  if (call) deps.inFlight.settle(call);
  fillCaches(call ? call.memos : chunkMemos(chunk), deps);
}

/** Who a subrequest is sent for: the request whose stats count it, and the signal that cancels it. */
interface RequestBy {
  readonly state: RequestState;
  readonly signal: AbortSignal | undefined;
}

/** One GET to send: to which source, for which field, and how its answer is judged. */
interface Subrequest {
  readonly source: string;
  readonly coordinate: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Keys in the request for a @batch chunk; undefined for a single fetch. */
  readonly batchSize?: number;
  readonly mayResend: boolean;
  /** Turns a well-formed HTTP answer into what the lookup makes of it; identity when absent. */
  readonly judge?: (outcome: UpstreamOutcome) => UpstreamOutcome;
}

/**
 * Sends one GET and reports it to the listener; every attempt is a counted subrequest. `judge`
 * turns a well-formed HTTP answer into what the lookup makes of it (a batch answer that is not an
 * array is an error), so metrics count what the keys see. With `mayResend`, a reset connection
 * is sent once more (upstream/retry-policy.ts) if max_subrequests allows.
 */
async function request(sub: Subrequest, by: RequestBy, deps: RoundDeps): Promise<UpstreamOutcome> {
  const { source, coordinate, path, headers, batchSize, mayResend, judge } = sub;
  const client = deps.clients.get(source)!;
  const { state, signal } = by;
  const attempt = async (): Promise<UpstreamOutcome> => {
    state.stats.subrequests++;
    if (batchSize !== undefined) state.stats.batches++;
    const t0 = performance.now();
    const answer = await client.send({ method: 'GET', path, headers, signal });
    const outcome = judge ? judge(answer) : answer;
    deps.listener.onSubrequest?.({
      coordinate,
      source,
      batchSize,
      durationMs: performance.now() - t0,
      errorCode: outcome.kind === 'error' ? outcome.error.code : undefined,
    });
    return outcome;
  };
  const first = await attempt();
  if (!mayResend || first.kind !== 'error' || !shouldResend(first.error) || state.stats.subrequests >= deps.maxSubrequests) return first;
  return attempt();
}

function argsOf(entry: PlanEntry, state: RequestState): Record<string, unknown> {
  let args = state.args.get(entry);
  if (!args) {
    args = entry.fieldDef.args.length ? getArgumentValues(entry.fieldDef, entry.fieldNode, state.variables as Record<string, unknown>) : {};
    state.args.set(entry, args);
  }
  return args;
}
