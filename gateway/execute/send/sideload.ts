import { readDotted } from '../../../directives/dotted.js';
import { NO_KEY, keyString, resolvePathTemplate } from '../../../directives/template.js';
import type { FetchBlueprint, SideloadBlueprint, SideloadConsumer } from '../../blueprint/types.js';
import { memoKey } from '../../cache/cache-key.js';
import type { CacheTiers } from '../../cache/tier.js';
import type { UpstreamOutcome } from '../../upstream/outcome.js';
import { fillCaches } from './cache-tiers.js';
import { stampFromL2 } from './generations.js';
import { newMemoEntry, type MemoEntry } from './memo-entry.js';
import type { RequestState } from './request-context.js';

/**
 * Sideloads (docs/rest-shapes.md "Sideloads"; SPEC "Real APIs' manners"). When the answer of a field
 * with @sideload arrives, each object of the array at its `select` (kept by `when`) becomes, in the
 * request memo, the answer of its consumers' lookup of `path` with `{key}` = the object's `match`
 * value, under the very memo key that lookup resolves to (`sideloadKey`): the next round's lookups of
 * it are memo hits, with no call and no batch. An object without a match value, or whose path would
 * be refused, is left out; a key nobody asks stays in the memo unused; a key the array lacks is
 * looked up as usual. The memo key carries the request's forwarded-headers partition, so a sideload
 * answers only its own caller's lookups. A consuming field with @cache keeps the object in its tiers
 * when its lookup is answered so (`keepSideloaded`), for its ttl, under the same key.
 */

/** Keeps a sideloading field's whole answer on its memo entry, for `takeSideloads` after the round. */
export function keepAnswer(m: MemoEntry, outcome: UpstreamOutcome): void {
  if (m.fetch.sideloads && outcome.kind === 'ok') m.sideBody = outcome.body;
}

/**
 * After a round's calls: the side arrays of every sideloading entry the round made (answered by its
 * own call or by another request's call it joined) go into the request memo. Entries answered from a
 * cache tier keep only their value, so they sideload nothing.
 */
export function takeSideloads(created: readonly MemoEntry[], state: RequestState): void {
  for (const m of created) {
    const sideloads = m.fetch.sideloads;
    if (sideloads === undefined) continue;
    const body = m.sideBody ?? m.leader?.sideBody;
    if (body === undefined) continue;
    for (const sideload of sideloads) takeSideload(sideload, body, m, state);
  }
}

/** Reused for every resolution of a sideload path (resolution is synchronous). */
const input: { parent: unknown; args: Readonly<Record<string, unknown>>; keys: undefined; key: unknown } = {
  parent: undefined,
  args: Object.freeze({}),
  keys: undefined,
  key: NO_KEY,
};

function takeSideload(sideload: SideloadBlueprint, body: unknown, from: MemoEntry, state: RequestState): void {
  const items = readDotted(body, sideload.select);
  if (!Array.isArray(items)) return;
  const { when, readMatch, consumers } = sideload;
  for (const item of items) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) continue;
    if (when && keyString(when.read(item)) !== when.value) continue;
    const path = sideloadPath(sideload, readMatch(item));
    if (path === undefined) continue;
    for (const consumer of consumers) {
      const key = sideloadKey(consumer.fetch, path, from.forwarded.keySuffix);
      if (state.memo.has(key)) continue;
      state.memo.set(key, sideloadedEntry(key, path, consumer, { item, from }));
    }
  }
}

/** The path a match value answers; undefined for no scalar value, or one the template refuses. */
function sideloadPath(sideload: SideloadBlueprint, value: unknown): string | undefined {
  if (keyString(value) === undefined) return undefined;
  input.key = value;
  try {
    const path = resolvePathTemplate(sideload.template, input);
    return typeof path === 'string' ? path : undefined;
  } catch (err) {
    if (err instanceof URIError) return undefined; // a lone surrogate: no path, as a lookup would send none
    throw err;
  } finally {
    input.key = NO_KEY;
  }
}

/**
 * The memo (and cache) key of a consumer's single fetch of `path`, for the caller whose forwarded
 * headers have `forwardedSuffix`: exactly the key its own lookup of that path resolves to
 * (execute/ask/round.ts), so the two meet. The one place sideloads compose a memo key.
 */
export function sideloadKey(fetch: FetchBlueprint, path: string, forwardedSuffix: string): string {
  return memoKey({ source: fetch.source.name, method: 'GET', path, body: undefined }, fetch.keySuffix, forwardedSuffix);
}

/** The memo entry of `consumer`'s lookup of `path`, answered by `item` of the answer of `from`. */
function sideloadedEntry(
  key: string,
  path: string,
  consumer: SideloadConsumer,
  { item, from }: { item: object; from: MemoEntry },
): MemoEntry {
  // The key of its request alone, as round.ts composes it for the consumer's own lookup.
  const requestKey =
    consumer.fetch.keySuffix === ''
      ? key
      : memoKey({ source: consumer.fetch.source.name, method: 'GET', path, body: undefined }, '', from.forwarded.keySuffix);
  const entry = newMemoEntry(
    {
      key,
      requestKey,
      coordinate: consumer.coordinate,
      fetch: consumer.fetch,
      path,
      batchKey: undefined,
      batchKeyValue: undefined,
      args: from.args,
      body: undefined,
      forwarded: from.forwarded,
    },
    { kind: 'ok', body: item },
  );
  entry.sideloaded = true;
  return entry;
}

/**
 * A lookup of a field with `fetch` was answered by the sideloaded memo entry `m`: with @cache on that
 * field, the object is kept in its tiers under the entry's key for its ttl (once per entry), stamped
 * with the generations of its path's invalidation prefixes as a fetched value would be.
 */
export function keepSideloaded(m: MemoEntry, fetch: FetchBlueprint, tiers: CacheTiers): void {
  if (!fetch.cache) return;
  m.sideloaded = false;
  const kept: MemoEntry = { ...m, fetch, genKeys: undefined, generation: undefined };
  if (fetch.prefixRules.length > 0) stampFromL2(kept, tiers.l2);
  fillCaches([kept], tiers);
}
