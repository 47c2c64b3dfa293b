import type { FetchBlueprint } from '../../blueprint/types.js';
import type { FieldOutcome, UpstreamOutcome } from '../../upstream/outcome.js';
import type { SharedCall } from './coalesce.js';
import type { CacheEntry } from '../../cache/entry.js';
import type { ForwardedHeaders } from './forwarded-headers.js';

/**
 * One subrequest-to-be of a request, identified by its memo key `{source}:{path}` (plus how the
 * field reads the answer, and a hash of the forwarded header values when the source forwards any). Identical lookups of a request share
 * one MemoEntry, whichever field, alias, parent or round asked: that is the dedupe of docs/reference.md.
 */
export interface MemoEntry {
  /** cache/cache-key.ts memoKey: the request, how the field reads its answer, the forwarded headers. */
  readonly key: string;
  /**
   * A single fetch's key of its request alone (memoKey without the read suffix; `key` itself when
   * the field reads the whole body): single fetches with the same one may share a call, each
   * reading its own part (execute/send/select-sharing.ts, coalesce.ts), never one another's value. A
   * @batch lookup shares by `key` only, and this is its `key`.
   */
  readonly requestKey: string;
  readonly coordinate: string;
  readonly fetch: FetchBlueprint;
  /** The resolved single-fetch path. */
  readonly path: string;
  /** The string form of the batch key, for @batch fields. */
  readonly batchKey: string | undefined;
  /** The batch key as the parent's JSON holds it (a number stays a number): what a POST batch body sends. */
  readonly batchKeyValue: unknown;
  /** The field's argument values, for `{args.*}` in a batch path. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The rendered JSON body of a non-GET read (`@fetch(method:, body:)`); part of the memo key. */
  readonly body: string | undefined;
  /** The headers forwarded to its source for the request that made it (their hash is in `key`). */
  readonly forwarded: ForwardedHeaders;
  outcome: UpstreamOutcome | undefined;
  /** The shared call this entry leads or waits for (coalescing sources only; execute/send/coalesce.ts). */
  call: SharedCall | undefined;
  /** Set when the entry waits for another request's call: the entry whose outcome it takes. */
  leader: MemoEntry | undefined;
  /**
   * The expired (or stale-served) cache entry with validators this lookup's refetch revalidates
   * (`revalidate = true`; execute/send/revalidate.ts); undefined for a plain fetch.
   */
  revalidate: CacheEntry | undefined;
  /**
   * An entry of a `@cache(stale:)` field the tiers still keep but no longer serve (expired): what
   * answers instead while the source is held (execute/send/cache-tiers.ts servedDuringHold).
   */
  fallback: CacheEntry | undefined;
  /** The generation keys of the invalidation prefixes of `path` (a @cache field of a source with prefix rules). */
  genKeys: readonly string[] | undefined;
  /** Their generations when looked up: what an entry must carry to answer, and what a fill stamps. */
  generation: string | undefined;
  /** A @sideload field's whole answer, whose side arrays fill the memo after the round (execute/send/sideload.ts). */
  sideBody?: unknown;
  /** Made from a sideload's object, not yet kept in a consuming @cache field's tiers (execute/send/sideload.ts). */
  sideloaded?: boolean;
}

/** What a memo entry is made of: its identity, MemoEntry's readonly fields of the same names (read, never kept). */
export type MemoEntryParts = Pick<
  MemoEntry,
  'key' | 'requestKey' | 'coordinate' | 'fetch' | 'path' | 'batchKey' | 'batchKeyValue' | 'args' | 'body' | 'forwarded'
>;

/**
 * The one way a memo entry is made: answered by `outcome` (a sideload's object) or not yet, leading
 * and waiting for no call, revalidating and falling back to nothing, with no generations read.
 */
export function newMemoEntry(parts: MemoEntryParts, outcome?: UpstreamOutcome): MemoEntry {
  return {
    key: parts.key,
    requestKey: parts.requestKey,
    coordinate: parts.coordinate,
    fetch: parts.fetch,
    path: parts.path,
    batchKey: parts.batchKey,
    batchKeyValue: parts.batchKeyValue,
    args: parts.args,
    body: parts.body,
    forwarded: parts.forwarded,
    outcome,
    call: undefined,
    leader: undefined,
    revalidate: undefined,
    fallback: undefined,
    genKeys: undefined,
    generation: undefined,
  };
}

/**
 * Where a claimed lookup's outcome is once it is answered: its memo entry (shared by every lookup it
 * answers), or a slot of its own (a list key's assembled value, a mutation field's answer).
 */
export interface OutcomeSlot {
  outcome: FieldOutcome | undefined;
}
