import { NO_KEY, keyString, resolvePathTemplate, type PathRefusal } from '../../../directives/template.js';
import { CODE } from '../../errors.js';
import { refusedOutcome } from './fetch-path.js';
import { readDotted, type DottedReader } from '../../../directives/dotted.js';
import { renderBodyTemplate, type BodyTemplate } from '../../../directives/body-template.js';
import type { BatchBlueprint, FetchBlueprint } from '../../blueprint/types.js';
import type { Abortable } from '../../util/canceller.js';
import type { DeadlineScope } from '../../upstream/deadline.js';
import { NOT_FOUND, failure, notFoundAsHttpError, type UpstreamOutcome } from '../../upstream/outcome.js';
import { keyMayCause, shouldSplitChunk, splitInHalves } from '../../upstream/retry-policy.js';
import { fillCaches } from './cache-tiers.js';
import type { CacheTiers } from '../../cache/tier.js';
import type { InFlight, SharedCall } from './coalesce.js';
import { affords } from './budget.js';
import type { Dispatch, DispatchContext, Sender } from './dispatch.js';
import type { ForwardedHeaders } from './forwarded-headers.js';
import type { MemoEntry } from './memo-entry.js';
import { appended } from '../../util/appended.js';
import { chargeSharers, chunkBytes } from './share-bytes.js';

/** What a chunk's life needs from the running gateway (execute/send/request-context.ts RoundDeps has it). */
export interface ChunkDeps extends CacheTiers {
  readonly dispatch: Dispatch;
  readonly inFlight: InFlight;
}

/**
 * Something a batch answer did that is probably a mistake in the schema, shown in debug mode in the
 * response's `extensions.warnings`: its items matched none of the keys asked.
 */
export interface BatchWarning {
  readonly code: typeof CODE.BATCH_MATCHED_NOTHING;
  readonly message: string;
  readonly coordinate: string;
  readonly match: string;
  /** Up to 10 keys asked, and up to 10 `match` values the items carried (string form). */
  readonly keysAsked: readonly string[];
  readonly keysSeen: readonly string[];
  /** The fields of the first item, to spot a misspelt `match`. */
  readonly itemFields: readonly string[];
}

/** Whether the fields of a group or chunk collect every item of a key (one-to-many): all, none, or some. */
export type OneToMany = 'none' | 'all' | 'some';

/**
 * The keys one round of one request needs for one batch (docs/caching.md):
 * every @batch field whose BatchBlueprint `shareKey` is the same (source, method, path, body,
 * select, match, repeat), for one resolved batch path without keys and one partition of forwarded
 * header values. Sent as one request per chunk of at most `max` distinct keys, `max` being the
 * smallest of the fields'.
 */
export interface BatchGroup {
  /** The field that made the group: first in the query document; its coordinate names the calls. */
  readonly coordinate: string;
  readonly fetch: FetchBlueprint;
  readonly batch: BatchBlueprint;
  readonly headers: ForwardedHeaders;
  readonly args: Readonly<Record<string, unknown>>;
  /**
   * Who may share this group's chunks with other requests' (execute/send/batch-collector.ts): the share
   * key, the resolved variant and the forwarded-header partition; the one place that decides it.
   */
  readonly partition: string;
  /** The request whose lookups these are. */
  readonly sender: Sender;
  readonly warnings: BatchWarning[] | undefined;
  /** Distinct keys (string form), in the order first asked (appended.ts: most groups have one). */
  keys: string[];
  /** The memo entry that asked each key first: `entries[i]` waits for `keys[i]`. */
  entries: MemoEntry[];
  /**
   * Only when the batch key does not decide the memo entry (BatchBlueprint `keyAlone` false, or a
   * second field joined): each key's position in `keys`, and the entries that asked a key after
   * its first (by the first). Otherwise the request memo already gives each key one entry.
   */
  positions: Map<string, number> | undefined;
  sharing: Map<MemoEntry, MemoEntry[]> | undefined;
  max: number;
  oneToMany: OneToMany;
  /** Some field of the group has @cache. */
  cached: boolean;
}

/** One request's part of a chunk: its keys are `keys[start..end)` (and entries in `more`). */
export interface ChunkBlock {
  readonly sender: Sender;
  readonly warnings: BatchWarning[] | undefined;
  readonly start: number;
  readonly end: number;
}

/** At most `max` distinct keys sent as one request: of one group, or of several requests' groups. */
export interface BatchChunk {
  /** The first group in it: the source, batch, headers and argument values every group in it shares. */
  readonly group: BatchGroup;
  readonly keys: string[];
  /** The first memo entry waiting for each key: `entries[i]` for `keys[i]`. */
  readonly entries: MemoEntry[];
  /** The other entries waiting for a key, by that key's first entry; undefined when there are none. */
  more: Map<MemoEntry, MemoEntry[]> | undefined;
  /** Each key's position, once a second group's keys joined (batch-collector.ts). */
  positions: Map<string, number> | undefined;
  max: number;
  oneToMany: OneToMany;
  cached: boolean;
  /** The requests it counts for, in the order their keys joined. */
  readonly blocks: ChunkBlock[];
  /** The request path and POST body, resolved when it is sent (with `{keys}`). */
  path: string;
  body: string | undefined;
}

/** Stands for the keys when only a batch path's `{args.*}` matter (grouping by argument values). */
const VARIANT_KEYS: readonly unknown[] = ['_'];

/** A field collects every item of a key: a list field whose key is not a list. */
function collectsAll(fetch: FetchBlueprint): boolean {
  return fetch.isList && !fetch.batch!.listKeys;
}

function joinOneToMany(a: OneToMany, b: OneToMany): OneToMany {
  return a === b ? a : 'some';
}

/**
 * A round's @batch lookups of one request gathered into groups: per share key, then per resolved
 * batch path without keys and per forwarded headers. The inner key is '' in the common case of a
 * path without {args.*} and a source that forwards no headers.
 */
export class BatchGroups {
  /** The first group, alone until a second one is made: most rounds have one group, and no map. */
  private only: BatchGroup | undefined;
  private onlyShare = '';
  private onlyKey = '';
  /** Every group by share key, then by group key; made with the second group. */
  private byShare: Map<string, Map<string, BatchGroup>> | undefined;
  /** The group the last entry went to, its field and group key: a round's entries of one field come together. */
  private last: BatchGroup | undefined;
  private lastFetch: FetchBlueprint | undefined;
  private lastKey = '';

  constructor(
    private readonly sender: Sender,
    private readonly warnings: BatchWarning[] | undefined,
  ) {}

  /**
   * Adds a memo entry of a @batch field with a batch key to its group; false (nothing added) when
   * a null `{args.*}` in the path part of the @batch path leaves no path to send.
   */
  add(m: MemoEntry): boolean {
    const headers = m.forwarded;
    const batch = m.fetch.batch!;
    const variant = batch.hasArgs ? batchVariant(batch, m.args) : '';
    if (variant === null) return false;
    const groupKey = headers.keySuffix === '' ? variant : `${variant}${headers.keySuffix}`;
    const last = this.last;
    const group = last !== undefined && this.lastFetch === m.fetch && this.lastKey === groupKey ? last : this.group(m, groupKey, headers);
    if (m.fetch !== group.fetch && group.positions === undefined) {
      // A second field shares the group: its entries for a key are not the first field's.
      group.positions = positionsOf(group.keys);
      group.sharing = new Map();
    }
    const key = m.batchKey!;
    const { positions } = group;
    const at = positions?.get(key);
    if (at === undefined) {
      positions?.set(key, group.keys.length);
      group.keys = appended(group.keys, key);
      group.entries = appended(group.entries, m);
      return true;
    }
    const first = group.entries[at]!;
    const sharing = group.sharing!;
    const more = sharing.get(first);
    if (more) more.push(m);
    else sharing.set(first, [m]);
    return true;
  }

  /** The group of `m`'s batch for `groupKey`, made when new; remembered as the last one used. */
  private group(m: MemoEntry, groupKey: string, headers: ForwardedHeaders): BatchGroup {
    const batch = m.fetch.batch!;
    let group = this.find(batch.shareKey, groupKey);
    if (!group) {
      group = {
        coordinate: m.coordinate,
        fetch: m.fetch,
        batch,
        headers,
        args: m.args,
        // The share key itself when nothing else tells groups apart: the blueprint's string, hashed once
        // per process, not a fresh one per request (a share key is JSON text, so it never ends in ` …`).
        partition: groupKey === '' ? batch.shareKey : `${batch.shareKey} ${groupKey}`,
        sender: this.sender,
        warnings: this.warnings,
        keys: [],
        entries: [],
        positions: batch.keyAlone ? undefined : new Map(),
        sharing: batch.keyAlone ? undefined : new Map(),
        max: batch.max,
        oneToMany: collectsAll(m.fetch) ? 'all' : 'none',
        cached: m.fetch.cache !== undefined,
      };
      this.keep(batch.shareKey, groupKey, group);
    } else if (m.fetch !== group.fetch) {
      if (batch.max < group.max) group.max = batch.max;
      group.oneToMany = joinOneToMany(group.oneToMany, collectsAll(m.fetch) ? 'all' : 'none');
      group.cached ||= m.fetch.cache !== undefined;
    }
    this.last = group;
    this.lastFetch = m.fetch;
    this.lastKey = groupKey;
    return group;
  }

  private find(share: string, groupKey: string): BatchGroup | undefined {
    if (this.byShare) return this.byShare.get(share)?.get(groupKey);
    return this.only !== undefined && this.onlyShare === share && this.onlyKey === groupKey ? this.only : undefined;
  }

  private keep(share: string, groupKey: string, group: BatchGroup): void {
    if (this.only === undefined) {
      this.only = group;
      this.onlyShare = share;
      this.onlyKey = groupKey;
      return;
    }
    this.byShare ??= new Map([[this.onlyShare, new Map([[this.onlyKey, this.only]])]]);
    let groups = this.byShare.get(share);
    if (!groups) {
      groups = new Map();
      this.byShare.set(share, groups);
    }
    groups.set(groupKey, group);
  }

  /** Every group's chunks, in the order the groups were made (by share key, then group key). */
  chunks(): BatchChunk[] {
    if (!this.byShare) return this.only ? chunkBatchGroup(this.only) : [];
    const chunks: BatchChunk[] = [];
    for (const groups of this.byShare.values()) for (const g of groups.values()) chunks.push(...chunkBatchGroup(g));
    return chunks;
  }
}

/** Every memo entry waiting for the chunk's keys (the chunk's own list when no key is shared). */
export function chunkEntries(chunk: BatchChunk): readonly MemoEntry[] {
  const { more } = chunk;
  if (more === undefined || more.size === 0) return chunk.entries;
  const all: MemoEntry[] = [];
  for (const first of chunk.entries) {
    all.push(first);
    const others = more.get(first);
    if (others) all.push(...others);
  }
  return all;
}

/** How one chunk is sent: what cancels it, under which deadlines, as which shared call. */
export interface ChunkSending {
  readonly signal: Abortable | undefined;
  readonly deadlines: DeadlineScope | undefined;
  /** Set when the chunk is a shared call other requests may wait for (execute/send/coalesce.ts). */
  readonly call?: SharedCall;
}

/**
 * A chunk's whole life (docs/caching.md): sends it; when it failed in a way worth splitting
 * (upstream/retry-policy.ts) and the budget of every request it counts for has room for two more,
 * sends it again as two halves, concurrently, each under a deadline of its own; settles every key
 * from the answers (a failed chunk or half fails only its own keys); ends its shared call, whatever
 * happened, so its keys are never joinable again; then fills the caches with what came back.
 * Every call counts for each request with a key in it (its `blocks`). A chunk of several requests
 * (docs/hardening.md "Isolation") is read under their byte budgets together and charged to each
 * for its own share (execute/send/share-bytes.ts); when it fails, it is never split: each request sends
 * its own keys again when a key may have caused it (execute/send/isolate.ts).
 */
export async function sendChunk(chunk: BatchChunk, sending: ChunkSending, deps: ChunkDeps): Promise<void> {
  const { signal, call } = sending;
  try {
    const senders = sendersOf(chunk);
    const bytes = chunkBytes(senders);
    const ctx: DispatchContext = { for: senders, signal, deadlines: sending.deadlines, call, bytes };
    const answer = await dispatchChunk(chunk, ctx, deps, true);
    const shared = senders.length > 1 || call?.joined === true;
    if (shared && answer.kind === 'error') {
      const outcome = sharedFailure(answer, chunk);
      if (call && sharedFaults.has(outcome)) call.faulted(outcome);
      settleBatchChunk(chunk, outcome);
    } else if (answer.kind === 'error' && shouldSplitChunk(answer.error, chunk.keys.length) && affords(ctx.for, 2)) {
      const halves = splitBatchChunk(chunk);
      await Promise.all(
        halves.map(async (half) => {
          const later: DispatchContext = { for: sendersOf(half), signal, deadlines: undefined, call };
          settleBatchChunk(half, await dispatchChunk(half, later, deps, false));
        }),
      );
    } else {
      settleBatchChunk(chunk, answer);
    }
    if (bytes) chargeSharers(chunkEntries(chunk), senders, bytes, chunk.group.coordinate);
  } finally {
    if (call) deps.inFlight.settle(call);
  }
  if (chunk.cached) fillCaches(chunkEntries(chunk), deps);
}

/** The failures of chunks shared across requests that a key may have caused: each request resends its own keys (execute/send/isolate.ts). */
const sharedFaults = new WeakSet<UpstreamOutcome>();

/** Whether `outcome` is a shared chunk's failure that one of its keys may have caused (see sendChunk). */
export function isSharedFault(outcome: UpstreamOutcome | undefined): boolean {
  return outcome !== undefined && outcome.kind === 'error' && sharedFaults.has(outcome);
}

/**
 * The failure of a chunk holding keys of several requests, as its keys see it: its detail names no
 * key (the keys are other callers'), and one that a key may have caused is marked, so that each
 * request sends its own keys again apart (never split here: a half would still mix requests).
 */
function sharedFailure(answer: UpstreamOutcome & { kind: 'error' }, chunk: BatchChunk): UpstreamOutcome {
  const { method } = chunk.group.batch;
  const detail = `${method} ${chunk.group.batch.template.text} (a batch of ${chunk.keys.length} keys shared with other requests)`;
  const outcome: UpstreamOutcome = { kind: 'error', error: { ...answer.error, detail } };
  if (keyMayCause(answer.error, chunk.keys.length)) sharedFaults.add(outcome);
  return outcome;
}

/** The requests a chunk counts for, each once. */
function sendersOf(chunk: BatchChunk): Sender[] {
  const { blocks } = chunk;
  if (blocks.length === 1) return [blocks[0]!.sender];
  const senders: Sender[] = [];
  for (const b of blocks) if (!senders.includes(b.sender)) senders.push(b.sender);
  return senders;
}

/** One request of a chunk (or of a split half, which is never sent again). */
function dispatchChunk(chunk: BatchChunk, ctx: DispatchContext, deps: ChunkDeps, mayResend: boolean): Promise<UpstreamOutcome> {
  const { group } = chunk;
  const refused = resolveChunk(chunk);
  if (refused) return Promise.resolve(refusedOutcome(refused, group.coordinate, group.fetch.source.name));
  return deps.dispatch(
    {
      source: group.fetch.source.name,
      coordinate: group.coordinate,
      method: group.batch.method,
      path: chunk.path,
      body: chunk.body,
      headers: group.headers.headers,
      batchSize: chunk.keys.length,
      mayResend,
      judge: (o) => checkBatchAnswer(chunk, o),
    },
    ctx,
  );
}

/**
 * Resolves the chunk's path and body for its keys. A group's path always resolves: lookups whose
 * batch path is null never join a group (round.ts), and groups share a chunk only with the same
 * resolved variant.
 */
function resolveChunk(chunk: BatchChunk): PathRefusal | undefined {
  const { group, entries } = chunk;
  const values = new Array<unknown>(entries.length);
  for (let i = 0; i < entries.length; i++) values[i] = entries[i]!.batchKeyValue;
  const path = resolvePathTemplate(group.batch.template, { parent: undefined, args: group.args, keys: values, key: NO_KEY });
  if (path === null) throw new Error(`internal: the @batch path of ${group.coordinate} resolved to null for a group`);
  chunk.body = group.batch.body && renderBatchBody(group.batch.body, group.args, values, group.batch.bodyWire);
  // Keys that would make a path segment `.`, `..` or empty: the chunk is never sent.
  if (typeof path !== 'string') return path;
  chunk.path = path;
  return undefined;
}

/** What tells apart batch groups of one field whose `{args.*}` differ: the path and body without keys; null when a null `{args.*}` in the path part leaves no path. */
function batchVariant(batch: BatchBlueprint, args: Readonly<Record<string, unknown>>): string | null {
  const path = resolvePathTemplate(batch.template, { parent: undefined, args, keys: VARIANT_KEYS, key: NO_KEY });
  if (typeof path !== 'string') return null; // a refused argument: as null, the keys' single fetches were checked
  return batch.body ? `${path} ${renderBatchBody(batch.body, args, VARIANT_KEYS, batch.bodyWire)}` : path;
}

/** Splits a group into chunks of at most its `max` keys. */
function chunkBatchGroup(group: BatchGroup): BatchChunk[] {
  const { keys, entries, max } = group;
  if (keys.length <= max) return [groupChunk(group, keys, entries)];
  const chunks: BatchChunk[] = [];
  for (let i = 0; i < keys.length; i += max) chunks.push(groupChunk(group, keys.slice(i, i + max), entries.slice(i, i + max)));
  return chunks;
}

/** A chunk of one group's keys, `entries` holding each key's first memo entry. */
function groupChunk(group: BatchGroup, keys: string[], entries: MemoEntry[]): BatchChunk {
  const block: ChunkBlock = { sender: group.sender, warnings: group.warnings, start: 0, end: keys.length };
  return {
    group,
    keys,
    entries,
    more: group.sharing,
    positions: undefined,
    max: group.max,
    oneToMany: group.oneToMany,
    cached: group.cached,
    blocks: [block],
    path: '',
    body: undefined,
  };
}

/**
 * Adds the keys of `block` (one request's chunk) to `into` when all of them fit under the smaller
 * `max` of the two; a key already in `into` is asked once, its entries waiting with the first.
 * False, and nothing changed, when they do not all fit: so a request counts as many calls as it
 * would alone.
 */
export function mergeChunk(into: BatchChunk, block: BatchChunk): boolean {
  const max = Math.min(into.max, block.max);
  if (into.keys.length >= max) return false;
  const positions = (into.positions ??= positionsOf(into.keys));
  let added = 0;
  for (const k of block.keys) if (!positions.has(k)) added++;
  if (into.keys.length + added > max) return false;
  const start = into.keys.length;
  for (let i = 0; i < block.keys.length; i++) {
    const key = block.keys[i]!;
    const entry = block.entries[i]!;
    const others = block.more?.get(entry);
    const at = positions.get(key);
    if (at === undefined) {
      positions.set(key, into.keys.length);
      into.keys.push(key);
      into.entries.push(entry);
      if (others) addMore(into, entry, others);
    } else {
      addMore(into, into.entries[at]!, others ? [entry, ...others] : [entry]);
    }
  }
  into.max = max;
  into.oneToMany = joinOneToMany(into.oneToMany, block.oneToMany);
  into.cached ||= block.cached;
  const b = block.blocks[0]!;
  into.blocks.push({ sender: b.sender, warnings: b.warnings, start, end: into.keys.length });
  return true;
}

function addMore(chunk: BatchChunk, first: MemoEntry, entries: readonly MemoEntry[]): void {
  chunk.more ??= new Map();
  const list = chunk.more.get(first);
  if (list) list.push(...entries);
  else chunk.more.set(first, [...entries]);
}

/** A failed chunk's keys as two chunks of half as many (upstream/retry-policy.ts decides when). */
export function splitBatchChunk(chunk: BatchChunk): [BatchChunk, BatchChunk] {
  const [k1, k2] = splitInHalves(chunk.keys);
  const [e1, e2] = splitInHalves(chunk.entries);
  return [halfOf(chunk, k1, e1, 0), halfOf(chunk, k2, e2, k1.length)];
}

/** The part of `chunk` from key `from` on, for exactly these keys; it counts for the requests with a key in it. */
function halfOf(chunk: BatchChunk, keys: string[], entries: MemoEntry[], from: number): BatchChunk {
  const to = from + keys.length;
  const blocks: ChunkBlock[] = [];
  for (const b of chunk.blocks) {
    const inside = b.start === b.end ? from === 0 : b.start < to && b.end > from;
    if (inside)
      blocks.push({ sender: b.sender, warnings: b.warnings, start: Math.max(b.start, from) - from, end: Math.min(b.end, to) - from });
  }
  return { ...chunk, keys, entries, positions: undefined, blocks, path: '', body: undefined };
}

/**
 * A batch body: `{keys}` is the keys' array, `{args.a.b}` the field's argument values (an input
 * object renders with its fields' wire names, as in a single fetch's body: execute/send/body.ts).
 */
export function renderBatchBody(
  template: BodyTemplate,
  args: Readonly<Record<string, unknown>>,
  keys: readonly unknown[],
  wires?: BatchBlueprint['bodyWire'],
): string {
  return renderBodyTemplate(template, (p) => {
    if (p.kind === 'keys') return keys;
    if (p.kind !== 'args') return undefined;
    const value = readDotted(args, p.path);
    const wire = wires?.get(p);
    return wire && value !== null && value !== undefined ? wire(value) : value;
  });
}

/**
 * The chunk's answer as the keys see it: an error stays an error; a 404, or an item list (the body,
 * or its `select` path) that is not a JSON array, becomes an error of the whole chunk; the item
 * array stays ok. A `select` path missing from the body is an answer without items.
 */
export function checkBatchAnswer(chunk: BatchChunk, outcome: UpstreamOutcome): UpstreamOutcome {
  const source = chunk.group.fetch.source.name;
  if (outcome.kind === 'not-found')
    return notFoundAsHttpError(source, { method: chunk.group.batch.method, path: chunk.path }, 'a batch request');
  if (outcome.kind !== 'ok') return outcome;
  const select = chunk.group.batch.select;
  const items = select ? (readDotted(outcome.body, select) ?? []) : outcome.body;
  if (!Array.isArray(items)) {
    const where = select ? `"${select.join('.')}" of its answer` : 'its answer';
    return failure({
      code: CODE.UPSTREAM_BAD_RESPONSE,
      source,
      message: `source "${source}" answered a batch request with something other than a JSON array (${where})${selectHint(items, select)}`,
      detail: `${chunk.group.batch.method} ${chunk.path}`,
      cause: 'shape',
    });
  }
  return select ? { kind: 'ok', body: items } : outcome;
}

/**
 * When the value that should be the item array is an object holding exactly one array-valued key:
 * the `select` that reads it (a batch answered `{"users": [...]}` without `select: "users"`).
 */
function selectHint(value: unknown, select: readonly string[] | undefined): string {
  if (value === null || typeof value !== 'object') return '';
  let only: string | undefined;
  for (const key of Object.keys(value)) {
    if (!Array.isArray((value as Record<string, unknown>)[key])) continue;
    if (only !== undefined) return '';
    only = key;
  }
  // A name from the source's body: only a plain identifier of a sane length is repeated to the client.
  if (only === undefined || !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(only)) return '';
  const path = [...(select ?? []), only].join('.');
  return `: it is an object whose one array is under "${only}"; add select: "${path}" to the @batch`;
}

const SHOWN = 10;

/**
 * Settles every memo entry of a chunk from the chunk's answer (as checkBatchAnswer judged it): the
 * answer becomes one outcome per key (keyOutcomes), and only then each entry waiting for a key takes
 * that key's outcome. When the entries of a key differ in one-to-many (`oneToMany` 'some'), the key's
 * outcome is its item list and each entry takes its own value of it (entryValue). An answer whose
 * items matched none of the keys adds a warning for every request in the chunk that collects them
 * (debug).
 */
export function settleBatchChunk(chunk: BatchChunk, answer: UpstreamOutcome): void {
  const { entries, more } = chunk;
  const outcomes = keyOutcomes(chunk.keys, chunk.group.batch.readMatch, chunk.oneToMany, answer);
  const each = chunk.oneToMany === 'some';
  for (let i = 0; i < entries.length; i++) {
    const first = entries[i]!;
    const outcome = outcomes[i]!;
    first.outcome = each ? entryValue(first, outcome) : outcome;
    const others = more?.get(first);
    if (others) for (const m of others) m.outcome = each ? entryValue(m, outcome) : outcome;
  }
  if (answer.kind !== 'ok') return;
  const body = answer.body as unknown[];
  if (outcomes.matched === 0 && body.length > 0) {
    for (const b of chunk.blocks) if (b.warnings) b.warnings.push(matchedNothing(chunk, body, chunk.keys.slice(b.start, b.end)));
  }
}

/** One outcome per key, in key order (the DataLoader contract), and how many keys an item matched. */
export type KeyOutcomes = UpstreamOutcome[] & { matched: number };

/**
 * What a chunk's answer (as checkBatchAnswer judged it: an error, or the item array) gives each of
 * its `keys`, in key order, as a value. An error is every key's outcome. Otherwise items go to the
 * key whose string form equals the string form of their dotted `match` field, in any order; items
 * for keys not asked are dropped. With `oneToMany` 'none' the first item of a key wins and a key with
 * no item is not-found; otherwise a key's outcome is the list of all its items (empty when none).
 */
export function keyOutcomes(keys: readonly string[], match: DottedReader, oneToMany: OneToMany, answer: UpstreamOutcome): KeyOutcomes {
  const outcomes = new Array<UpstreamOutcome>(keys.length) as KeyOutcomes;
  outcomes.matched = 0;
  if (answer.kind !== 'ok') {
    outcomes.fill(answer);
    return outcomes;
  }
  const body = answer.body as unknown[];
  if (oneToMany === 'none') {
    // Batch APIs mostly answer in the order asked: while they do, the next item's key is the next
    // key asked and nothing is looked up; from the first item out of that order on, the keys'
    // positions are looked up in a map.
    let next = 0;
    let at: Map<string, number> | undefined;
    for (const item of body) {
      const key = keyString(match(item));
      if (key === undefined) continue;
      let i: number | undefined;
      if (at === undefined && keys[next] === key) {
        i = next++;
      } else {
        at ??= positionsOf(keys);
        i = at.get(key);
      }
      if (i === undefined || outcomes[i] !== undefined) continue; // the first item of a key wins
      outcomes[i] = { kind: 'ok', body: item };
      outcomes.matched++;
    }
    for (let i = 0; i < keys.length; i++) if (outcomes[i] === undefined) outcomes[i] = NOT_FOUND;
    return outcomes;
  }
  const items = matchBatchItems(body, match, new Set(keys));
  outcomes.matched = items.size;
  for (let i = 0; i < keys.length; i++) outcomes[i] = { kind: 'ok', body: items.get(keys[i]!) ?? [] };
  return outcomes;
}

/**
 * The value of a key's outcome for one entry of a key whose entries differ in one-to-many: a field
 * that collects every item takes the key's item list, any other the first item (not-found when none).
 */
function entryValue(m: MemoEntry, outcome: UpstreamOutcome): UpstreamOutcome {
  if (outcome.kind !== 'ok' || collectsAll(m.fetch)) return outcome;
  const items = outcome.body as unknown[];
  return items.length > 0 ? { kind: 'ok', body: items[0] } : NOT_FOUND;
}

/** Each key's position in `keys`. */
function positionsOf(keys: readonly string[]): Map<string, number> {
  const at = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) at.set(keys[i]!, i);
  return at;
}

/** Every item of each wanted key, by the string form of its `match` value, in answer order. */
function matchBatchItems(body: readonly unknown[], match: DottedReader, wanted: ReadonlySet<string>): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const item of body) {
    const key = keyString(match(item));
    if (key === undefined || !wanted.has(key)) continue;
    const list = out.get(key);
    if (list) list.push(item);
    else out.set(key, [item]);
  }
  return out;
}

/** The warning of one request of a chunk whose items matched no key: it names only `own`, that request's keys. */
function matchedNothing(chunk: BatchChunk, body: readonly unknown[], own: readonly string[]): BatchWarning {
  const { batch, coordinate } = chunk.group;
  const seen: string[] = [];
  for (const item of body) {
    const k = keyString(batch.readMatch(item));
    if (k !== undefined && seen.length < SHOWN) seen.push(k);
  }
  const first = body.find((i) => i !== null && typeof i === 'object' && !Array.isArray(i));
  return {
    code: CODE.BATCH_MATCHED_NOTHING,
    message: `@batch on ${coordinate}: none of the ${body.length} items answered matched any of the ${chunk.keys.length} keys asked by match "${batch.match}"`,
    coordinate,
    match: batch.match,
    keysAsked: own.slice(0, SHOWN),
    keysSeen: seen,
    itemFields: first ? Object.keys(first).slice(0, 20) : [],
  };
}
