import { NO_KEY, keyString, resolvePathTemplate } from '../../directives/template.js';
import { readDotted, type DottedReader } from '../../directives/dotted.js';
import { renderBodyTemplate, type BodyTemplate } from '../../directives/body-template.js';
import type { BatchBlueprint, FetchBlueprint } from '../blueprint/types.js';
import { NOT_FOUND, failure, notFoundAsHttpError, type UpstreamOutcome } from '../upstream/outcome.js';
import { splitInHalves } from '../upstream/retry-policy.js';
import type { ForwardedHeaders, MemoEntry } from './state.js';

/**
 * The keys one @batch field needs in one round, for one resolved batch path and one set of
 * forwarded headers. Sent as one request per chunk of `max` distinct keys (SPEC.md "@batch").
 */
export interface BatchGroup {
  readonly coordinate: string;
  readonly fetch: FetchBlueprint;
  readonly batch: BatchBlueprint;
  readonly headers: ForwardedHeaders;
  readonly args: Readonly<Record<string, unknown>>;
  /** Distinct keys (string form), in the order first asked. */
  readonly keys: string[];
  /** The memo entry that asked each key first: `entries[i]` waits for `keys[i]`. */
  readonly entries: MemoEntry[];
  /**
   * Only when the batch key does not decide the memo entry (BatchBlueprint `keyAlone` false): each
   * key's position in `keys`, and the entries that asked a key after its first (by the first).
   * With `keyAlone` the request memo already gives each key one entry: nothing to look up.
   */
  readonly positions: Map<string, number> | undefined;
  readonly sharing: Map<MemoEntry, MemoEntry[]> | undefined;
}

export interface BatchChunk {
  readonly group: BatchGroup;
  readonly keys: readonly string[];
  /** The first memo entry waiting for each key: `entries[i]` for `keys[i]` (the others: `group.sharing`). */
  readonly entries: readonly MemoEntry[];
  readonly path: string;
  /** The JSON body of a POST batch, with `{keys}` as the array of the keys' original values. */
  readonly body: string | undefined;
}

/** Stands for the keys when only a batch path's `{args.*}` matter (grouping by argument values). */
const VARIANT_KEYS: readonly unknown[] = ['_'];

/**
 * A round's @batch lookups gathered into groups: per field (its fetch blueprint), then per resolved
 * batch path without keys and per forwarded headers. The inner key is '' in the common case of a
 * path without {args.*} and a source that forwards no headers.
 */
export class BatchGroups {
  private readonly byField = new Map<FetchBlueprint, Map<string, BatchGroup>>();
  /** The group the last entry went to, and its group key: a round's entries of one field come together. */
  private last: BatchGroup | undefined;
  private lastKey = '';

  /**
   * Adds a memo entry of a @batch field with a batch key to its group; false (nothing added) when
   * a null `{args.*}` in the path part of the @batch path leaves no path to send.
   */
  add(m: MemoEntry, headers: ForwardedHeaders): boolean {
    const batch = m.fetch.batch!;
    const variant = batch.hasArgs ? batchVariant(batch, m.args) : '';
    if (variant === null) return false;
    const groupKey = headers.keySuffix === '' ? variant : `${variant}${headers.keySuffix}`;
    const last = this.last;
    const group = last !== undefined && last.fetch === m.fetch && this.lastKey === groupKey ? last : this.group(m, groupKey, headers);
    const key = m.batchKey!;
    const { positions } = group;
    const at = positions?.get(key);
    if (at === undefined) {
      positions?.set(key, group.keys.length);
      group.keys.push(key);
      group.entries.push(m);
      return true;
    }
    const first = group.entries[at]!;
    const sharing = group.sharing!;
    const more = sharing.get(first);
    if (more) more.push(m);
    else sharing.set(first, [m]);
    return true;
  }

  /** The group of `m`'s field for `groupKey`, made when new; remembered as the last one used. */
  private group(m: MemoEntry, groupKey: string, headers: ForwardedHeaders): BatchGroup {
    let groups = this.byField.get(m.fetch);
    if (!groups) {
      groups = new Map();
      this.byField.set(m.fetch, groups);
    }
    let group = groups.get(groupKey);
    if (!group) {
      const batch = m.fetch.batch!;
      group = {
        coordinate: m.coordinate,
        fetch: m.fetch,
        batch,
        headers,
        args: m.args,
        keys: [],
        entries: [],
        positions: batch.keyAlone ? undefined : new Map(),
        sharing: batch.keyAlone ? undefined : new Map(),
      };
      groups.set(groupKey, group);
    }
    this.last = group;
    this.lastKey = groupKey;
    return group;
  }

  /** Every group's chunks, in the order the groups were made. */
  chunks(): BatchChunk[] {
    const chunks: BatchChunk[] = [];
    for (const groups of this.byField.values()) for (const g of groups.values()) chunks.push(...chunkBatchGroup(g));
    return chunks;
  }
}

/** Every memo entry waiting for the chunk's keys (the chunk's own list when no key is shared). */
export function chunkEntries(chunk: BatchChunk): readonly MemoEntry[] {
  const { sharing } = chunk.group;
  if (sharing === undefined || sharing.size === 0) return chunk.entries;
  const all: MemoEntry[] = [];
  for (const first of chunk.entries) {
    all.push(first);
    const more = sharing.get(first);
    if (more) all.push(...more);
  }
  return all;
}

/** Settles the key whose first entry is `first`: that entry and every other waiting for the key. */
function settleKey(group: BatchGroup, first: MemoEntry, outcome: UpstreamOutcome): void {
  first.outcome = outcome;
  const more = group.sharing?.get(first);
  if (more) for (const m of more) m.outcome = outcome;
}

/** What tells apart batch groups of one field whose `{args.*}` differ: the path and body without keys; null when a null `{args.*}` in the path part leaves no path. */
function batchVariant(batch: BatchBlueprint, args: Readonly<Record<string, unknown>>): string | null {
  const path = resolvePathTemplate(batch.template, { parent: undefined, args, keys: VARIANT_KEYS, key: NO_KEY });
  if (path === null) return null;
  return batch.body ? `${path} ${renderBatchBody(batch.body, args, VARIANT_KEYS)}` : path;
}

/** Splits a group into chunks of at most `max` keys, each with its resolved request path. */
function chunkBatchGroup(group: BatchGroup): BatchChunk[] {
  const { keys, entries } = group;
  const { max } = group.batch;
  if (keys.length <= max) return [batchChunk(group, keys, entries)];
  const chunks: BatchChunk[] = [];
  for (let i = 0; i < keys.length; i += max) chunks.push(batchChunk(group, keys.slice(i, i + max), entries.slice(i, i + max)));
  return chunks;
}

/** A failed chunk's keys as two chunks of half as many (upstream/retry-policy.ts decides when). */
export function splitBatchChunk(chunk: BatchChunk): [BatchChunk, BatchChunk] {
  const [k1, k2] = splitInHalves(chunk.keys);
  const [e1, e2] = splitInHalves(chunk.entries);
  return [batchChunk(chunk.group, k1, e1), batchChunk(chunk.group, k2, e2)];
}

/**
 * The chunk of `group` for exactly these keys, `entries` holding each key's first memo entry. A
 * group's path always resolves: lookups whose batch path is null never join a group (round.ts).
 */
function batchChunk(group: BatchGroup, keys: readonly string[], entries: readonly MemoEntry[]): BatchChunk {
  const values = new Array<unknown>(entries.length);
  for (let i = 0; i < entries.length; i++) values[i] = entries[i]!.batchKeyValue;
  const path = resolvePathTemplate(group.batch.template, { parent: undefined, args: group.args, keys: values, key: NO_KEY });
  if (path === null) throw new Error(`internal: the @batch path of ${group.coordinate} resolved to null for a group`);
  const body = group.batch.body && renderBatchBody(group.batch.body, group.args, values);
  return { group, keys, entries, path, body };
}

/** A batch body: `{keys}` is the keys' array, `{args.a.b}` the field's argument values. */
export function renderBatchBody(template: BodyTemplate, args: Readonly<Record<string, unknown>>, keys: readonly unknown[]): string {
  return renderBodyTemplate(template, (p) => (p.kind === 'keys' ? keys : p.kind === 'args' ? readDotted(args, p.path) : undefined));
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
      code: 'UPSTREAM_BAD_RESPONSE',
      source,
      message: `source "${source}" answered a batch request with something other than a JSON array (${where})`,
      detail: `${chunk.group.batch.method} ${chunk.path}`,
      cause: 'shape',
    });
  }
  return select ? { kind: 'ok', body: items } : outcome;
}

/**
 * Something a batch answer did that is probably a mistake in the schema, shown in debug mode in the
 * response's `extensions.warnings`: its items matched none of the keys asked.
 */
export interface BatchWarning {
  readonly code: 'BATCH_MATCHED_NOTHING';
  readonly message: string;
  readonly coordinate: string;
  readonly match: string;
  /** Up to 10 keys asked, and up to 10 `match` values the items carried (string form). */
  readonly keysAsked: readonly string[];
  readonly keysSeen: readonly string[];
  /** The fields of the first item, to spot a misspelt `match`. */
  readonly itemFields: readonly string[];
}

const SHOWN = 10;

/**
 * Settles every memo entry of a chunk from the chunk's answer (batchOutcomes): each key's first
 * entry and every other waiting for it.
 */
export function settleBatchChunk(chunk: BatchChunk, answer: UpstreamOutcome, warnings?: BatchWarning[]): void {
  const { group, entries } = chunk;
  const outcomes = batchOutcomes(chunk, answer, warnings);
  for (let i = 0; i < entries.length; i++) settleKey(group, entries[i]!, outcomes[i]!);
}

/**
 * One outcome per key of the chunk, in key order (DataLoader's contract), from the chunk's answer
 * as checkBatchAnswer judged it (an error, or the item array): a failed chunk fails only its own
 * keys; items go to the key of this chunk whose string form equals the string form of their
 * dotted `match` field, in any order; on a list field every item of a key is collected
 * (one-to-many), on a single field, and for each element of list keys, the first wins. Items for
 * keys not asked are dropped. A key with no item is not-found (an empty list for a one-to-many
 * field). With `warnings` (debug), an answer whose items matched none of the keys adds a warning.
 */
export function batchOutcomes(chunk: BatchChunk, answer: UpstreamOutcome, warnings?: BatchWarning[]): UpstreamOutcome[] {
  const { group, keys } = chunk;
  const outcomes = new Array<UpstreamOutcome>(keys.length);
  if (answer.kind !== 'ok') return outcomes.fill(answer);
  const body = answer.body as unknown[];
  const oneToMany = group.fetch.isList && !group.batch.listKeys;
  let matched = 0;
  if (!oneToMany) {
    // On a single field each matched item settles its key at once. Batch APIs mostly answer in the
    // order asked: while they do, the next item's key is the next key asked and nothing is looked
    // up; from the first item out of that order on, the keys' positions are looked up in a map.
    let next = 0;
    let at: Map<string, number> | undefined;
    for (const item of body) {
      const key = keyString(group.batch.readMatch(item));
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
      matched++;
    }
    for (let i = 0; i < keys.length; i++) outcomes[i] ??= NOT_FOUND;
  } else {
    const items = matchBatchItems(body, group.batch.readMatch, new Set(keys), true);
    matched = items.size;
    for (let i = 0; i < keys.length; i++) outcomes[i] = { kind: 'ok', body: items.get(keys[i]!) ?? [] };
  }
  if (warnings && matched === 0 && body.length > 0) warnings.push(matchedNothing(chunk, body));
  return outcomes;
}

/** Each key's position in `keys`. */
function positionsOf(keys: readonly string[]): Map<string, number> {
  const at = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) at.set(keys[i]!, i);
  return at;
}

/** Items by the string form of their `match` value, for the wanted keys only. */
export function matchBatchItems(
  body: readonly unknown[],
  match: DottedReader,
  wanted: { has(key: string): boolean },
  oneToMany: boolean,
): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const item of body) {
    const key = keyString(match(item));
    if (key === undefined || !wanted.has(key)) continue;
    if (oneToMany) {
      const list = out.get(key) as unknown[] | undefined;
      if (list) list.push(item);
      else out.set(key, [item]);
    } else if (!out.has(key)) {
      out.set(key, item);
    }
  }
  return out;
}

function matchedNothing(chunk: BatchChunk, body: readonly unknown[]): BatchWarning {
  const { batch, coordinate } = chunk.group;
  const seen: string[] = [];
  for (const item of body) {
    const k = keyString(batch.readMatch(item));
    if (k !== undefined && seen.length < SHOWN) seen.push(k);
  }
  const first = body.find((i) => i !== null && typeof i === 'object' && !Array.isArray(i));
  return {
    code: 'BATCH_MATCHED_NOTHING',
    message: `@batch on ${coordinate}: none of the ${body.length} items answered matched any of the ${chunk.keys.length} keys asked by match "${batch.match}"`,
    coordinate,
    match: batch.match,
    keysAsked: chunk.keys.slice(0, SHOWN),
    keysSeen: seen,
    itemFields: first ? Object.keys(first).slice(0, 20) : [],
  };
}
