import { createLocalJWKSet, errors, importJWK, type JSONWebKeySet, type JWK, type JWTVerifyGetKey } from 'jose';
import type { AuthConfig } from '../config/types.js';

/** Why the keys could not be had; never a token or a claim. */
export class KeySetUnavailable extends Error {}

/** The most bytes a fetched key set may have (docs/hardening.md): past it the fetch fails. */
export const KEY_SET_MAX_BYTES = 1024 * 1024;
/** After a failed fetch, no new fetch is made for this long (docs/hardening.md). */
export const KEY_SET_RETRY_AFTER_FAILURE_MS = 10_000;

/**
 * The keys tokens are verified with (docs/observability.md). A file's key set is fixed at start-up.
 * A URL's is fetched on first use and kept; a token naming a `kid` it does not hold refetches it,
 * at most once per `jwks_refetch_interval_s` (the first fetch is no refetch), with every request
 * that waits meanwhile sharing the one fetch. A failed fetch keeps the keys held before, and for
 * the next 10 s no fetch is made at all: tokens meanwhile are checked against the keys held, or
 * refused when none are (a key set that answers 500 or HTML cannot be made to storm). A fetched
 * key set is read up to 1 MB.
 */
export class KeySet {
  private keys: JWTVerifyGetKey | undefined;
  private fetching: Promise<JWTVerifyGetKey> | undefined;
  /** performance.now() of the last refetch for an unknown kid; -Infinity: none yet. */
  private lastRefetch = -Infinity;
  /** performance.now() of the last failed fetch and its reason; -Infinity: none yet. */
  private lastFailure = -Infinity;
  private failure: KeySetUnavailable | undefined;
  /** Key-set fetches made (for the log line and tests' sake: what reached the identity provider). */
  fetches = 0;

  constructor(private readonly config: AuthConfig) {
    if (config.jwks.kind === 'file') this.keys = keysOf(config.jwks.keys as JSONWebKeySet);
  }

  /** The keys held now, fetching them first when none are held yet. */
  current(): JWTVerifyGetKey | Promise<JWTVerifyGetKey> {
    return this.keys ?? this.fetch();
  }

  /**
   * After a token named a kid the keys lack: fresh keys when a refetch is allowed now (undefined:
   * not allowed, the token's key stays unknown).
   */
  refetch(): Promise<JWTVerifyGetKey> | undefined {
    if (this.config.jwks.kind === 'file') return undefined;
    if (this.fetching) return this.fetching;
    const now = performance.now();
    if (now - this.lastRefetch < this.config.jwksRefetchIntervalS * 1000) return undefined;
    this.lastRefetch = now;
    return this.fetch();
  }

  private fetch(): Promise<JWTVerifyGetKey> {
    if (this.fetching) return this.fetching;
    if (performance.now() - this.lastFailure < KEY_SET_RETRY_AFTER_FAILURE_MS) return Promise.reject(this.failure);
    const { jwks, jwksTimeoutMs } = this.config;
    const url = (jwks as { url: string }).url;
    this.fetches++;
    this.fetching = fetchKeySet(url, jwksTimeoutMs)
      .then(
        (set) => {
          this.keys = keysOf(set);
          return this.keys;
        },
        (err: unknown) => {
          this.lastFailure = performance.now();
          this.failure = err instanceof KeySetUnavailable ? err : new KeySetUnavailable('the key set could not be read');
          throw this.failure;
        },
      )
      .finally(() => {
        this.fetching = undefined;
      });
    return this.fetching;
  }
}

async function fetchKeySet(url: string, timeoutMs: number): Promise<JSONWebKeySet> {
  let body: unknown;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' }, redirect: 'error' });
    if (!res.ok) {
      await res.body?.cancel();
      throw new KeySetUnavailable(`the key set answered HTTP ${res.status}`);
    }
    body = JSON.parse(await cappedText(res));
  } catch (err) {
    if (err instanceof KeySetUnavailable) throw err;
    throw new KeySetUnavailable(`the key set could not be fetched (${(err as Error).name})`);
  }
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { keys?: unknown }).keys))
    throw new KeySetUnavailable('the key set is not a JSON Web Key Set');
  return body as JSONWebKeySet;
}

/** The body as text, refused past KEY_SET_MAX_BYTES whatever Content-Length says. */
async function cappedText(res: Response): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > KEY_SET_MAX_BYTES) {
    await res.body?.cancel();
    throw new KeySetUnavailable(`the key set is larger than ${KEY_SET_MAX_BYTES} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  for (let read = await reader?.read(); read && !read.done; read = await reader!.read()) {
    size += read.value.byteLength;
    if (size > KEY_SET_MAX_BYTES) {
      await reader!.cancel();
      throw new KeySetUnavailable(`the key set is larger than ${KEY_SET_MAX_BYTES} bytes`);
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Key selection over a key set: jose's local key set for the asymmetric algorithms, and for an HMAC
 * token (`HS256`…, accepted only when `[auth] algorithms` lists it) the set's `oct` key of its
 * `kid`, which jose's local set does not select.
 */
function keysOf(set: JSONWebKeySet): JWTVerifyGetKey {
  const local = createLocalJWKSet(set);
  const secrets = set.keys.filter((k: JWK) => k.kty === 'oct');
  if (secrets.length === 0) return local;
  return async (header, token) => {
    if (!header.alg?.startsWith('HS')) return local(header, token);
    const jwk = secrets.find(
      (k) => (header.kid === undefined ? secrets.length === 1 : k.kid === header.kid) && (!k.alg || k.alg === header.alg),
    );
    if (!jwk) throw new errors.JWKSNoMatchingKey();
    return importJWK(jwk, header.alg);
  };
}
