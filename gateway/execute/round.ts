import { getArgumentValues } from 'graphql';
import { resolvePathTemplate, templateValueString, type Placeholder } from '../../directives/template.js';
import type { L2Cache } from '../cache/l2.js';
import type { SharedCacheTier } from '../cache/tier.js';
import type { PlanEntry } from '../plan/types.js';
import type { SourceClient } from '../upstream/client.js';
import type { UpstreamOutcome } from '../upstream/outcome.js';
import { shouldResend, shouldSplitChunk, splitInHalves } from '../upstream/retry-policy.js';
import { batchChunk, checkBatchAnswer, chunkBatchGroup, settleBatchChunk, type BatchChunk, type BatchGroup } from './batch.js';
import type { ExecutionListener } from './listener.js';
import { RoundTally } from './tally.js';
import type { HeaderForwarder, MemoEntry, OperationStats, ResultStore } from './state.js';
import type { Lookup } from './walk.js';

/** What a round needs from the running gateway. */
export interface RoundDeps {
  readonly clients: ReadonlyMap<string, SourceClient>;
  readonly l2: L2Cache;
  readonly l3: SharedCacheTier | undefined;
  readonly listener: ExecutionListener;
  readonly maxSubrequests: number;
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

/**
 * Runs one round (SPEC.md "Rounds"): resolves every lookup to its subrequest, merges identical ones
 * (the request memo, L1), answers what L2 and the shared tier hold, then sends what is left in one
 * go: each @batch group as one request per chunk, every other lookup as one request, concurrently.
 * Fills the caches with what came back and records every lookup's outcome in the store.
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
      memo = { key, coordinate, fetch, path, batchKey: fetch.batch ? templateValueString(rawKey) : undefined, args, outcome: undefined };
      state.memo.set(key, memo);
      fresh.push(memo);
      if (fetch.cache) tally.cacheEvent(coordinate, fetch.source.name, 'l1', false);
    }
    attached.push([lookup, memo]);
  }

  const fromNetwork = await readCaches(fresh, deps, tally);
  tally.flush(deps.listener);
  await send(fromNetwork, state, deps);
  fillCaches(fromNetwork, deps);
  for (const [lookup, memo] of attached) state.store.set(lookup.parent, lookup.entry.fieldNode, memo.outcome!);
}

/** Answers fresh @cache lookups from L2, then asks the shared tier for all L2 misses at once. Returns what is left. */
async function readCaches(fresh: MemoEntry[], deps: RoundDeps, tally: RoundTally): Promise<MemoEntry[]> {
  const { l2, l3 } = deps;
  const l3Wanted: MemoEntry[] = [];
  for (const m of fresh) {
    if (!m.fetch.cache || m.fetch.cache.ttlSeconds <= 0) continue;
    const source = m.fetch.source.name;
    if (l2.enabled) {
      const v = l2.get(m.key);
      tally.cacheEvent(m.coordinate, source, 'l2', v !== undefined);
      if (v !== undefined) {
        m.outcome = { kind: 'ok', body: v };
        continue;
      }
    }
    if (l3) l3Wanted.push(m);
  }
  if (l3 && l3Wanted.length > 0) {
    const found = await l3.getMany(l3Wanted.map((m) => m.key));
    for (const m of l3Wanted) {
      const v = found.get(m.key);
      tally.cacheEvent(m.coordinate, m.fetch.source.name, 'l3', v !== undefined);
      if (v !== undefined) {
        m.outcome = { kind: 'ok', body: v };
        l2.set(m.key, v, m.fetch.cache!.ttlSeconds);
      }
    }
  }
  return fresh.filter((m) => m.outcome === undefined);
}

async function send(entries: MemoEntry[], state: RequestState, deps: RoundDeps): Promise<void> {
  state.signal?.throwIfAborted();
  const singles: MemoEntry[] = [];
  // Groups per field (its fetch blueprint), then per resolved batch path and forwarded headers;
  // the inner key is '' in the common case of a path without {args.*} and no forwarded headers.
  const groupsByField = new Map<object, Map<string, BatchGroup>>();
  for (const m of entries) {
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
  const work: Array<Promise<void>> = [];
  for (const m of singles) {
    const sub: Subrequest = { source: m.fetch.source.name, coordinate: m.coordinate, path: m.path, headers: state.forwarder.for(m.fetch.source).headers, mayResend: true };
    work.push(request(sub, state, deps).then((o) => {
      m.outcome = o;
    }));
  }
  for (const c of chunks) work.push(sendChunk(c, state, deps));
  await Promise.all(work);
}

/** Sends one @batch chunk; a failed chunk may be sent again once as two halves (upstream/retry-policy.ts). */
async function sendChunk(chunk: BatchChunk, state: RequestState, deps: RoundDeps): Promise<void> {
  const { group } = chunk;
  const sendOne = (c: BatchChunk, mayResend: boolean) =>
    request(
      { source: group.fetch.source.name, coordinate: group.coordinate, path: c.path, headers: group.headers.headers, batchSize: c.keys.length, mayResend, judge: (o) => checkBatchAnswer(c, o) },
      state,
      deps,
    );
  const answer = await sendOne(chunk, true);
  if (answer.kind === 'error' && shouldSplitChunk(answer.error, chunk.keys.length) && state.stats.subrequests + 2 <= deps.maxSubrequests) {
    const halves = splitInHalves(chunk.keys).map((keys) => batchChunk(group, keys));
    await Promise.all(halves.map(async (half) => settleBatchChunk(half, await sendOne(half, false))));
    return;
  }
  settleBatchChunk(chunk, answer);
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
async function request(sub: Subrequest, state: RequestState, deps: RoundDeps): Promise<UpstreamOutcome> {
  const { source, coordinate, path, headers, batchSize, mayResend, judge } = sub;
  const client = deps.clients.get(source)!;
  const attempt = async (): Promise<UpstreamOutcome> => {
    state.stats.subrequests++;
    if (batchSize !== undefined) state.stats.batches++;
    const t0 = performance.now();
    const answer = await client.get(path, headers, state.signal);
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

/** Stores what the network answered for @cache fields in L2 and the shared tier; never errors or nulls. */
function fillCaches(entries: MemoEntry[], deps: RoundDeps): void {
  const shared: Array<{ key: string; value: unknown; ttlSeconds: number }> = [];
  for (const m of entries) {
    const ttl = m.fetch.cache?.ttlSeconds ?? 0;
    if (ttl <= 0 || m.outcome?.kind !== 'ok' || m.outcome.body === null || m.outcome.body === undefined) continue;
    deps.l2.set(m.key, m.outcome.body, ttl);
    shared.push({ key: m.key, value: m.outcome.body, ttlSeconds: ttl });
  }
  if (deps.l3 && shared.length > 0) deps.l3.setMany(shared);
}

function argsOf(entry: PlanEntry, state: RequestState): Record<string, unknown> {
  let args = state.args.get(entry);
  if (!args) {
    args = entry.fieldDef.args.length ? getArgumentValues(entry.fieldDef, entry.fieldNode, state.variables as Record<string, unknown>) : {};
    state.args.set(entry, args);
  }
  return args;
}
