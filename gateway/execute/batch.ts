import { resolvePathTemplate, encodeTemplateValue, templateValueString } from '../../directives/template.js';
import type { BatchBlueprint, FetchBlueprint } from '../blueprint/types.js';
import { failure, type UpstreamOutcome } from '../upstream/outcome.js';
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
  /** Distinct keys (string form) → the memo entries waiting for them. */
  readonly keys: Map<string, MemoEntry[]>;
}

export interface BatchChunk {
  readonly group: BatchGroup;
  readonly keys: readonly string[];
  readonly path: string;
}

/** Splits a group into chunks of at most `max` keys, each with its resolved request path. */
export function chunkBatchGroup(group: BatchGroup): BatchChunk[] {
  const all = [...group.keys.keys()];
  const chunks: BatchChunk[] = [];
  for (let i = 0; i < all.length; i += group.batch.max) chunks.push(batchChunk(group, all.slice(i, i + group.batch.max)));
  return chunks;
}

/** The chunk of `group` for exactly these keys (also used to re-send a failed chunk in parts). */
export function batchChunk(group: BatchGroup, keys: readonly string[]): BatchChunk {
  const encoded = keys.map(encodeTemplateValue).join(',');
  const path = resolvePathTemplate(group.batch.template, (p) => (p.kind === 'args' ? group.args[p.name] : undefined), encoded);
  return { group, keys, path: path ?? '' };
}

/**
 * The chunk's answer as the keys see it: an error stays an error; a 404 or a body that is not a
 * JSON array becomes an error of the whole chunk; an array stays ok.
 */
export function checkBatchAnswer(chunk: BatchChunk, outcome: UpstreamOutcome): UpstreamOutcome {
  const source = chunk.group.fetch.source.name;
  if (outcome.kind === 'not-found') {
    return failure({ code: 'UPSTREAM_HTTP_ERROR', source, message: `source "${source}" answered HTTP 404 to a batch request`, detail: `GET ${chunk.path} → 404`, status: 404 });
  }
  if (outcome.kind === 'ok' && !Array.isArray(outcome.body)) {
    return failure({ code: 'UPSTREAM_BAD_RESPONSE', source, message: `source "${source}" answered a batch request with something other than a JSON array`, detail: `GET ${chunk.path}`, cause: 'shape' });
  }
  return outcome;
}

/**
 * Settles every memo entry of a chunk from the chunk's answer: items go to the key whose string
 * form equals the string form of their `match` field, in any order; on a list field every item of
 * a key is collected (one-to-many), on a single field the first wins. Items for keys not asked are
 * dropped. A key with no item is not-found (an empty list for a list field). A failed chunk fails
 * only its own keys.
 */
export function settleBatchChunk(chunk: BatchChunk, outcome: UpstreamOutcome): void {
  const { group } = chunk;
  const answer = checkBatchAnswer(chunk, outcome);
  let settled: (key: string) => UpstreamOutcome;
  if (answer.kind !== 'ok') {
    settled = () => answer;
  } else {
    const items = matchBatchItems(answer.body as unknown[], group.batch.match, new Set(chunk.keys), group.fetch.isList);
    settled = (key) => {
      const v = items.get(key);
      if (v !== undefined) return { kind: 'ok', body: v };
      return group.fetch.isList ? { kind: 'ok', body: [] } : { kind: 'not-found' };
    };
  }
  for (const key of chunk.keys) {
    const o = settled(key);
    for (const entry of group.keys.get(key)!) entry.outcome = o;
  }
}

function matchBatchItems(body: unknown[], match: string, wanted: ReadonlySet<string>, isList: boolean): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const item of body) {
    if (item === null || typeof item !== 'object') continue;
    const raw = (item as Record<string, unknown>)[match];
    if (raw === null || raw === undefined) continue;
    const key = templateValueString(raw);
    if (!wanted.has(key)) continue;
    if (isList) {
      const list = out.get(key) as unknown[] | undefined;
      if (list) list.push(item);
      else out.set(key, [item]);
    } else if (!out.has(key)) {
      out.set(key, item);
    }
  }
  return out;
}
