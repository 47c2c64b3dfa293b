import { GraphQLError, Kind, parse } from 'graphql';
import { CODE, persistedQueryError } from '../errors.js';
import { LRUCache } from 'lru-cache';
import { sha256Hex } from '../config/persisted-documents.js';

/**
 * Which document text a request runs, from its `query` and `extensions.persistedQuery`
 * (docs/hardening.md; docs/hardening.md "Persisted documents"). Both entrances ask this
 * one function (the operation path's first step, operation.ts), so they take and refuse the same requests:
 *
 * - Automatic persisted queries (Apollo's protocol): `{"extensions":{"persistedQuery":{"version":1,
 *   "sha256Hash":"<hex>"}}}` without `query` runs the stored document, or fails with 400
 *   PERSISTED_QUERY_NOT_FOUND (message `PersistedQueryNotFound`, which Apollo clients look for) so
 *   the client retries with `query` + hash; that retry stores the text (after checking its hash:
 *   400 PERSISTED_QUERY_HASH_MISMATCH otherwise). Stored texts are bounded in count and bytes.
 * - Trusted documents (`persisted_documents`) are found by the same hash before the APQ store.
 * - `only_persisted = true`: only trusted documents run, by hash or by a text whose hash is in the
 *   file; nothing is stored; everything else is 400 PERSISTED_QUERY_REQUIRED.
 */
export interface PersistedDocuments {
  /** The text to run: `query` itself, a stored text, or undefined when the request has neither (yoga then says what is missing). Throws a coded GraphQLError. */
  resolve(params: { readonly query?: unknown; readonly extensions?: unknown }): string | undefined;
}

export interface PersistedOptions {
  readonly trusted: ReadonlyMap<string, string> | undefined;
  readonly onlyPersisted: boolean;
}

/**
 * The operation names of the trusted documents (their metrics always keep their own `operation`
 * label: observability/operation-labels.ts). A text that does not parse names nothing here; it is
 * refused when first used.
 */
export function trustedOperationNames(trusted: ReadonlyMap<string, string> | undefined): string[] {
  const names: string[] = [];
  for (const text of trusted?.values() ?? []) {
    try {
      for (const d of parse(text, { noLocation: true }).definitions)
        if (d.kind === Kind.OPERATION_DEFINITION && d.name) names.push(d.name.value);
    } catch {
      // Not a document: no name to keep.
    }
  }
  return names;
}

/** Bounds of the APQ store: distinct documents, and their text in total. */
export const APQ_MAX_DOCUMENTS = 1000;
export const APQ_MAX_TEXT_CHARS = 8 * 1024 * 1024;

export function createPersistedDocuments(options: PersistedOptions): PersistedDocuments {
  const { trusted, onlyPersisted } = options;
  const stored = new LRUCache<string, string>({
    max: APQ_MAX_DOCUMENTS,
    maxSize: APQ_MAX_TEXT_CHARS,
    sizeCalculation: (text) => Math.max(1, text.length),
  });
  return {
    resolve({ query, extensions }) {
      const hash = persistedHash(extensions);
      if (hash === undefined) {
        if (onlyPersisted && (typeof query !== 'string' || !trusted?.has(sha256Hex(query)))) throw required();
        return typeof query === 'string' ? query : undefined;
      }
      if (typeof query === 'string') {
        if (sha256Hex(query) !== hash) {
          throw refusal(
            CODE.PERSISTED_QUERY_HASH_MISMATCH,
            'The persisted query hash (extensions.persistedQuery.sha256Hash) is not the SHA-256 of the query sent with it.',
          );
        }
        if (trusted?.has(hash)) return query;
        if (onlyPersisted) throw required();
        stored.set(hash, query);
        return query;
      }
      const text = trusted?.get(hash) ?? (onlyPersisted ? undefined : stored.get(hash));
      if (text !== undefined) return text;
      if (onlyPersisted) throw required();
      throw refusal(CODE.PERSISTED_QUERY_NOT_FOUND, 'PersistedQueryNotFound');
    },
  };
}

/**
 * The hash of `extensions.persistedQuery`, lower-cased; undefined without one. A persistedQuery that
 * is not `{version: 1, sha256Hash: <64 hex digits>}` is 400 PERSISTED_QUERY_INVALID.
 */
function persistedHash(extensions: unknown): string | undefined {
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  const persisted = (extensions as { persistedQuery?: unknown }).persistedQuery;
  if (persisted === undefined || persisted === null) return undefined;
  const { version, sha256Hash } = persisted as { version?: unknown; sha256Hash?: unknown };
  if (typeof persisted !== 'object' || version !== 1 || typeof sha256Hash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(sha256Hash)) {
    throw refusal(CODE.PERSISTED_QUERY_INVALID, 'extensions.persistedQuery must be {"version": 1, "sha256Hash": "<64 hex digits>"}.');
  }
  return sha256Hash.toLowerCase();
}

function required(): GraphQLError {
  return refusal(
    CODE.PERSISTED_QUERY_REQUIRED,
    'This gateway only runs persisted documents ([gateway] only_persisted = true): send extensions.persistedQuery.sha256Hash of a trusted document.',
  );
}

const refusal = persistedQueryError;
