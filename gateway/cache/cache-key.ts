import { createHash } from 'node:crypto';

/**
 * Every cache key is built here (issue 34: one module): the memo and cache key of a lookup, the
 * generation key of an invalidated prefix, and the memcached key either is stored under.
 */

/** What a memo key is made of: the request a lookup sends, and how its field reads the answer. */
export interface KeyedRequest {
  readonly source: string;
  readonly method: string;
  readonly path: string;
  readonly body: string | undefined;
}

/**
 * The memo key of a lookup (the request memo, coalescing, L2 and memcached; docs/caching.md): a
 * GET is `{source}:{path}`, its read suffix (FetchBlueprint `keySuffix`: `|@response` for
 * `response: true`, `|{select}` with a `select`) and the forwarded-headers hash; a read with
 * another method (never cached) is keyed by its method and body too, so only identical requests
 * are deduped. @invalidate builds the keys it deletes here as well, so they are exactly the keys
 * reads fill. `readSuffix` is how the field reads the answer (its
 * `response` mode and `select`): fields that read one answer in two ways may share its request,
 * never its entry (SPEC "Exact data in both directions"). With `readSuffix` '' it is the key of the
 * request alone, what fields sharing one call have alike (execute/send/select-sharing.ts). Every memo
 * key is composed here.
 */
export function memoKey(request: KeyedRequest, readSuffix: string, headersSuffix: string): string {
  return request.method === 'GET'
    ? `${request.source}:${request.path}${readSuffix}${headersSuffix}`
    : `${request.source}:${request.method} ${request.path} ${request.body ?? ''}${readSuffix}${headersSuffix}`;
}

/**
 * The key suffix of a caller's forwarded header values (`forward_headers`): `#h=` and a hash of the
 * (name, value or null) pairs, so callers with other values never share an entry.
 */
export function forwardedKeySuffix(pairs: ReadonlyArray<readonly [string, string | null]>): string {
  return `#h=${createHash('sha256').update(JSON.stringify(pairs)).digest('base64url').slice(0, 32)}`;
}

/**
 * `{source}:` + a @fetch path template up to its first placeholder, optional part or `?`: every
 * cache key of that fetch starts so (a reload drops them when the fetch changed).
 */
export function fetchKeyPrefix(source: string, templateText: string): string {
  const end = templateText.search(/[{?[]/);
  return `${source}:${end < 0 ? templateText : templateText.slice(0, end)}`;
}

/**
 * The key of the generation of a path prefix of a source (`@invalidate(prefix: true)`,
 * cache/generations.ts). A lookup key has `:` right after the source name and a generation key
 * `#gen:`, so the two never meet.
 */
export function generationKey(source: string, prefix: string): string {
  return `${source}#gen:${prefix}`;
}

/** memcached refuses keys longer than this many bytes. */
export const MEMCACHED_MAX_KEY_BYTES = 250;

/**
 * Marks a hashed key. No key is ever stored raw when it contains this text, so a hashed key can
 * never be equal to a raw one.
 */
const HASHED_MARK = '#h1:';

/** Printable ASCII without space: safe in both the binary and the text protocol. */
const SAFE_KEY = /^[\x21-\x7e]+$/;

/** Longest prefix that still fits in front of a hashed key (mark + 64 hex digits). */
const MAX_PREFIX_BEFORE_HASH = MEMCACHED_MAX_KEY_BYTES - HASHED_MARK.length - 64;

/**
 * The memcached key under which the cache key `key` is stored for the deployment `prefix`.
 *
 * Contract: pure and deterministic, so every gateway process computes the same memcached key for
 * the same (prefix, key) pair. The result is at most 250 bytes of printable ASCII without spaces.
 * - `prefix + key` is used as it is when it already satisfies that and does not contain `#h1:`;
 * - otherwise it is `prefix + '#h1:' + sha256hex(prefix + key)`, where the prefix is left out
 *   when it is itself unsafe or too long to fit (the hash still covers it, so deployments stay
 *   apart).
 * Distinct (prefix + key) strings therefore map to distinct memcached keys, up to sha256 collisions.
 */
export function memcachedKey(prefix: string, key: string): string {
  const full = prefix + key;
  if (full.length <= MEMCACHED_MAX_KEY_BYTES && SAFE_KEY.test(full) && !full.includes(HASHED_MARK)) {
    return full; // printable ASCII: length in characters equals length in bytes
  }
  const digest = createHash('sha256').update(full, 'utf8').digest('hex');
  const keepPrefix = prefix.length <= MAX_PREFIX_BEFORE_HASH && (prefix === '' || SAFE_KEY.test(prefix));
  return (keepPrefix ? prefix : '') + HASHED_MARK + digest;
}
