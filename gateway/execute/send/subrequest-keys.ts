import type { FetchBlueprint } from '../../blueprint/types.js';

/** A batch lookup's single-fetch path and its memo and cache key. */
export interface KnownKey {
  readonly path: string;
  readonly key: string;
}

interface FieldKeys {
  /** Whether the field's path is a function of its batch key alone (see `eligible`). */
  readonly eligible: boolean;
  readonly byKey: Map<string, KnownKey>;
}

/**
 * At most this many keys are kept per field; past it the field's keys are dropped and built anew
 * (a bound on memory, not an LRU: a working set larger than this only loses the speed-up).
 */
const MAX_KEYS_PER_FIELD = 10_000;

/**
 * The memo and cache keys of @batch lookups, built once per distinct key value per process rather
 * than once per lookup. A key is a new string per lookup otherwise (`users:/users/37`), and every
 * `Map` it meets (the request memo, L2) must hash it and compare it character by character; a key
 * kept here is the same string object request after request, hashed once, equal by identity.
 * (docs/performance.md).
 *
 * Only for fields whose single-fetch path is a function of the batch key alone (BatchBlueprint
 * `keyAlone`: the @fetch path's only placeholder is its `{parent.…}` key), the method is GET, and the
 * source forwards no headers (the key would carry the caller's header hash). The memo semantics do
 * not change: the kept strings are exactly what the lookup would have built.
 */
export class SubrequestKeys {
  private readonly fields = new Map<FetchBlueprint, FieldKeys>();
  /** The field asked last and its keys: a round asks for one field's keys one after another. */
  private lastFetch: FetchBlueprint | undefined;
  private lastField: FieldKeys | undefined;

  /** The kept key of `batchKey` for `fetch`; undefined when it is not kept yet or the field is not eligible. */
  known(fetch: FetchBlueprint, batchKey: string): KnownKey | undefined {
    if (fetch !== this.lastFetch) {
      this.lastFetch = fetch;
      this.lastField = this.fields.get(fetch);
    }
    return this.lastField?.byKey.get(batchKey);
  }

  /** Keeps `path` and `key` for later lookups of the same batch key, when the field is eligible. */
  remember(fetch: FetchBlueprint, batchKey: string, path: string, key: string): void {
    let field = this.fields.get(fetch);
    if (!field) {
      field = { eligible: eligible(fetch), byKey: new Map() };
      this.fields.set(fetch, field);
      if (fetch === this.lastFetch) this.lastField = field;
    }
    if (!field.eligible) return;
    if (field.byKey.size >= MAX_KEYS_PER_FIELD) field.byKey.clear();
    field.byKey.set(batchKey, { path, key });
  }
}

/** Whether the memo key of `fetch` depends on its batch key alone (see SubrequestKeys). */
function eligible(fetch: FetchBlueprint): boolean {
  return fetch.batch?.keyAlone === true && fetch.method === 'GET' && !fetch.source.perCaller;
}
