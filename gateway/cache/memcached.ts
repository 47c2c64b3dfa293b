import { createRequire } from 'node:module';
import type memjs from 'memjs';
import type { MemcachedConfig } from '../config/types.js';
import { memcachedKey } from './cache-key.js';
import { decodeCacheEntry, encodeCacheEntry } from './cache-value.js';
import { keepMs, type CacheEntry } from './entry.js';
import { CircuitBreaker } from './circuit-breaker.js';
import type { MemcachedTier } from './tier.js';

/**
 * The memcached tier (memjs, binary protocol).
 *
 * Contract (on top of MemcachedTier):
 * - Keys are `keyPrefix + key`, hashed when too long or unsafe (see cache-key.ts); entries are
 *   stored with their times (see cache-value.ts), so two gateway processes with the same prefix
 *   share entries and their age.
 * - getMany sends every distinct key of the call at once on the pooled connection (pipelined:
 *   memjs 1.3 has no multi-get, but concurrent gets on one socket are written back to back and
 *   answered in one round trip), all under one deadline of `timeoutMs`. A key that fails, is late,
 *   or holds bytes that do not decode is a miss; hits that did arrive before the deadline are
 *   returned. It never rejects.
 * - setMany returns at once and never throws: the entries are encoded synchronously, values whose
 *   JSON exceeds `maxValueBytes` and entries already past their `staleUntil` are dropped, each is
 *   kept until its keeping time (entry.ts keepMs; whole seconds, rounded up), and the writes go out in the
 *   background under the same deadline. Their failures are counted, never surfaced.
 * - deleteMany sends every delete of the call at once under the same deadline and resolves when
 *   all answered (a key that was not there counts as deleted) or the deadline passed: true when
 *   every delete was answered, false when the call failed, was late or was skipped. It never
 *   rejects; a failure is counted like any other call (operation `delete`).
 * - Every getMany/setMany/deleteMany call that goes out is one outcome for the circuit breaker: after
 *   `failureThreshold` failed calls in a row, calls are skipped (instant misses, dropped writes)
 *   for `cooldownMs`, then one probe call goes out and its outcome closes or reopens it.
 * - After a call that timed out or failed the connection is thrown away (socket destroyed,
 *   memjs's pending callbacks failed with the same kind) and the next call opens a fresh one:
 *   memjs can otherwise keep a call pending forever when the server closes the connection, or
 *   keep junk in its read buffer.
 * - close() waits for calls in flight (each bounded by `timeoutMs`), then destroys the sockets;
 *   it never waits on the server. Calls after close() are misses / no-ops.
 */

export const MEMCACHED_FAILURE_KINDS = ['timeout', 'error', 'garbage'] as const;
export type MemcachedFailureKind = (typeof MEMCACHED_FAILURE_KINDS)[number];
export const MEMCACHED_OPERATIONS = ['get', 'set', 'delete'] as const;
export type MemcachedOperation = (typeof MEMCACHED_OPERATIONS)[number];

/**
 * Optional observers, for metrics and logs. Called synchronously; an observer that throws is
 * ignored. One event per getMany/setMany call, not per key.
 */
export interface MemcachedTierEvents {
  /**
   * A call failed: `timeout` (no complete answer within timeoutMs), `error` (connection refused,
   * reset, or an error status), `garbage` (an answer that is not a value this gateway wrote).
   * A call with several problems reports the first of timeout, error, garbage.
   */
  onFailure?(kind: MemcachedFailureKind, operation: MemcachedOperation): void;
  /** The circuit breaker is open: the call was skipped without touching the network. */
  onSkip?(operation: MemcachedOperation): void;
}

type MemjsClient = memjs.Client<string | Buffer, Buffer | null>;

/**
 * Given to memjs's pending callbacks when this tier destroys a connection itself: `reason` is the
 * failure of the call that made it do so (those calls fail with it), or `closed` for close().
 */
class DiscardedConnection extends Error {
  constructor(readonly reason: 'timeout' | 'error' | 'closed') {
    super(`memcached connection discarded by the gateway (${reason})`);
  }
}

/** What setMany returns when nothing went out. */
const WRITTEN: Promise<void> = Promise.resolve();

/** memcached reads expiry times above 30 days as Unix timestamps. */
const MAX_RELATIVE_TTL_SECONDS = 60 * 60 * 24 * 30;

/** Memjs's own deadline is only a backstop behind ours, so ours always fires first. */
function backstopSeconds(timeoutMs: number): number {
  return (timeoutMs * 1.5 + 100) / 1000;
}

/** memjs, loaded when the first client is opened: a gateway without [cache.memcached] never loads it. */
let memjsModule: typeof memjs | undefined;

function openClient(config: MemcachedConfig): MemjsClient {
  memjsModule ??= createRequire(import.meta.url)('memjs') as typeof memjs;
  const seconds = backstopSeconds(config.timeoutMs);
  return memjsModule.Client.create<string | Buffer, Buffer | null>(config.servers.join(','), {
    retries: 1, // memjs counts attempts: 1 means a single try, no retry delay
    failover: false,
    timeout: seconds,
    conntimeout: seconds,
    keepAlive: true,
    logger: { log: () => undefined },
  });
}

/** Destroys every socket of a client at once and fails its pending callbacks with `reason`. */
function destroyClient(client: MemjsClient, reason: DiscardedConnection['reason']): void {
  const discarded = new DiscardedConnection(reason);
  for (const server of client.servers) {
    try {
      server.error(discarded);
    } catch {
      // a memjs internal error while tearing down changes nothing: the client is dropped anyway
    }
  }
}

/** How one memcached call ended: answered, failed, or still unanswered at the deadline. */
type MemcachedReply<T> =
  { readonly status: 'ok'; readonly value: T } | { readonly status: 'failed'; readonly error: unknown } | { readonly status: 'late' };

/**
 * Starts `count` callback-style memjs calls at once and resolves when all have answered or when
 * `deadlineMs` has passed, whichever is first; unanswered calls are `late`. Never rejects.
 */
function callAllWithDeadline<I, T>(
  items: readonly I[],
  deadlineMs: number,
  start: (item: I, done: (error: unknown, value: T) => void) => void,
): Promise<MemcachedReply<T>[]> {
  const count = items.length;
  return new Promise((resolve) => {
    const outcomes: MemcachedReply<T>[] = new Array<MemcachedReply<T>>(count).fill({ status: 'late' });
    let pending = count;
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcomes);
    };
    const timer = setTimeout(finish, deadlineMs);
    for (const [index, item] of items.entries()) {
      let answered = false;
      const done = (error: unknown, value: T): void => {
        if (answered || settled) return;
        answered = true;
        outcomes[index] = error ? { status: 'failed', error } : { status: 'ok', value };
        if (--pending === 0) finish();
      };
      try {
        start(item, done);
      } catch (error) {
        done(error, undefined as T);
      }
    }
    if (count === 0) finish();
  });
}

/**
 * Folds a call's outcomes into its failure kind (the first of timeout, error, garbage), undefined
 * for success, or `closed` when only close() cut it short (which is neither).
 */
function classify(outcomes: ReadonlyArray<MemcachedReply<unknown>>, garbage: boolean): MemcachedFailureKind | 'closed' | undefined {
  let error = false;
  let closed = false;
  for (const outcome of outcomes) {
    if (outcome.status === 'late') return 'timeout';
    if (outcome.status !== 'failed') continue;
    const reason = outcome.error instanceof DiscardedConnection ? outcome.error.reason : undefined;
    if (reason === 'closed') closed = true;
    else if (reason === 'timeout' || /timed out/i.test(String((outcome.error as Error | undefined)?.message))) {
      return 'timeout';
    } else error = true;
  }
  if (error) return 'error';
  if (garbage) return 'garbage';
  return closed ? 'closed' : undefined;
}

/** One tier's state: the pooled connection (opened on first use), its breaker, observers and calls in flight. */
interface TierState {
  readonly config: MemcachedConfig;
  readonly events: MemcachedTierEvents;
  readonly breaker: CircuitBreaker;
  readonly inFlight: Set<Promise<unknown>>;
  client: MemjsClient | undefined;
  closed: boolean;
}

/** A write as it goes out: the stored key, the encoded entry and its keeping time. */
interface MemcachedWrite {
  readonly key: string;
  readonly bytes: Buffer;
  readonly ttlSeconds: number;
}

/**
 * Creates the tier; no connection is opened until the first call. Throws only for a config with
 * no servers (memjs would silently fall back to an environment variable or localhost). `clock` is
 * the circuit breaker's clock (its cool-down).
 */
export function createMemcachedTier(
  config: MemcachedConfig,
  events: MemcachedTierEvents = {},
  clock: () => number = Date.now,
): MemcachedTier {
  if (config.servers.length === 0) throw new Error('[cache.memcached] servers must list at least one "host:port"');
  const state: TierState = {
    config,
    events,
    breaker: new CircuitBreaker(config.failureThreshold, config.cooldownMs, clock),
    inFlight: new Set(),
    client: undefined,
    closed: false,
  };

  return {
    async getMany(keys) {
      if (state.closed || keys.length === 0) return new Map();
      if (skipped(state, 'get')) return new Map();
      try {
        return await track(state, fetchMany(state, keys));
      } catch {
        return new Map(); // memjs may throw synchronously (opening a client): a miss, never a rejection
      }
    },

    setMany(entries) {
      try {
        if (state.closed || entries.length === 0) return WRITTEN;
        const writes = encodeWrites(config, entries);
        if (writes.length === 0) return WRITTEN;
        if (skipped(state, 'set')) return WRITTEN;
        return track(state, storeMany(state, writes)).catch(() => undefined);
      } catch {
        // a write is best effort: nothing may reach the response
        return WRITTEN;
      }
    },

    async deleteMany(keys) {
      try {
        if (state.closed || keys.length === 0) return keys.length === 0;
        if (skipped(state, 'delete')) return false;
        return await track(state, removeMany(state, [...new Set(keys.map((key) => memcachedKey(config.keyPrefix, key)))]));
      } catch {
        return false; // memjs may throw synchronously (opening a client): not deleted, never a rejection
      }
    },

    async close() {
      if (state.closed) return;
      state.closed = true;
      await Promise.allSettled([...state.inFlight]); // each bounded by timeoutMs
      if (state.client) destroyClient(state.client, 'closed');
      state.client = undefined;
    },
  };
}

function emit(fire: () => void): void {
  try {
    fire();
  } catch {
    // observers must not break the tier
  }
}

/** The breaker is open: the call is skipped (reported to onSkip) and true is returned. */
function skipped(state: TierState, operation: MemcachedOperation): boolean {
  if (state.breaker.tryPass()) return false;
  emit(() => state.events.onSkip?.(operation));
  return true;
}

function currentClient(state: TierState): MemjsClient {
  return (state.client ??= openClient(state.config));
}

/**
 * Reports a call's outcome to the breaker and the observers. A timeout or an error also drops
 * the connection (other calls still on it fail with the same kind); garbage in well-formed
 * answers leaves the protocol stream in step, so the connection is kept.
 */
function report(state: TierState, used: MemjsClient, kind: ReturnType<typeof classify>, operation: MemcachedOperation): void {
  if (kind === undefined) {
    state.breaker.success();
    return;
  }
  if (kind === 'closed') return;
  state.breaker.failure();
  emit(() => state.events.onFailure?.(kind, operation));
  if (kind === 'garbage') return;
  if (state.client === used) state.client = undefined;
  destroyClient(used, kind);
}

/** Keeps the call in the tier's calls in flight until it settles (close() waits for them). */
function track<T>(state: TierState, promise: Promise<T>): Promise<T> {
  state.inFlight.add(promise);
  void promise.finally(() => state.inFlight.delete(promise)).catch(() => undefined);
  return promise;
}

/** The entries worth writing, encoded: those past their keeping time or over maxValueBytes are left out. */
function encodeWrites(config: MemcachedConfig, entries: Parameters<MemcachedTier['setMany']>[0]): MemcachedWrite[] {
  const writes: MemcachedWrite[] = [];
  const now = Date.now();
  for (const { key, entry } of entries) {
    const ms = keepMs(entry, now);
    if (!(ms > 0)) continue;
    const ttlSeconds = Math.min(Math.ceil(ms / 1000), MAX_RELATIVE_TTL_SECONDS);
    const encoded = encodeCacheEntry(entry);
    if (!encoded || encoded.jsonBytes > config.maxValueBytes) continue;
    writes.push({ key: memcachedKey(config.keyPrefix, key), bytes: encoded.bytes, ttlSeconds });
  }
  return writes;
}

async function fetchMany(state: TierState, keys: readonly string[]): Promise<Map<string, CacheEntry>> {
  const hits = new Map<string, CacheEntry>();
  const byStoredKey = new Map<string, string[]>();
  for (const key of keys) {
    const stored = memcachedKey(state.config.keyPrefix, key);
    const originals = byStoredKey.get(stored);
    if (originals) originals.push(key);
    else byStoredKey.set(stored, [key]);
  }
  const storedKeys = [...byStoredKey.keys()];
  const used = currentClient(state);
  const outcomes = await callAllWithDeadline<string, Buffer | null>(storedKeys, state.config.timeoutMs, (stored, done) =>
    used.get(stored, (error, value) => done(error, value)),
  );
  let garbage = false;
  outcomes.forEach((outcome, i) => {
    const stored = storedKeys[i];
    if (outcome.status !== 'ok' || outcome.value === null || stored === undefined) return;
    const decoded = decodeCacheEntry(outcome.value);
    if (decoded.kind !== 'entry') {
      if (decoded.kind === 'garbage') garbage = true;
      return;
    }
    for (const key of byStoredKey.get(stored) ?? []) hits.set(key, decoded.entry);
  });
  report(state, used, classify(outcomes, garbage), 'get');
  return hits;
}

async function storeMany(state: TierState, writes: readonly MemcachedWrite[]): Promise<void> {
  const used = currentClient(state);
  const outcomes = await callAllWithDeadline<MemcachedWrite, boolean | null>(writes, state.config.timeoutMs, (write, done) =>
    used.set(write.key, write.bytes, { expires: write.ttlSeconds }, (error, ok) => done(error, ok)),
  );
  report(state, used, classify(outcomes, false), 'set');
}

async function removeMany(state: TierState, keys: readonly string[]): Promise<boolean> {
  const used = currentClient(state);
  const outcomes = await callAllWithDeadline<string, boolean | null>(keys, state.config.timeoutMs, (key, done) =>
    used.delete(key, (error, ok) => done(error, ok)),
  );
  const kind = classify(outcomes, false);
  report(state, used, kind, 'delete');
  return kind === undefined;
}
