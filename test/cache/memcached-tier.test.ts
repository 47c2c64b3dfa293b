/**
 * The memcached tier against a real memcached process and against servers that misbehave
 * (stopped, black hole, closing connections, garbage). Every call must resolve within the
 * tier's deadline, count its failure, and never reject or leave an unhandled rejection.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import memjs from 'memjs';
import { memcachedKey } from '../../gateway/cache/cache-key.js';
import { createMemcachedTier, type MemcachedFailureKind, type MemcachedOperation } from '../../gateway/cache/memcached.js';
import type { MemcachedTier } from '../../gateway/cache/tier.js';
import type { CacheEntry } from '../../gateway/cache/entry.js';
import type { MemcachedConfig } from '../../gateway/config/types.js';
import {
  startBlackholeServer,
  startClosingServer,
  startGarbageServer,
  startLatencyProxy,
  startMemcached,
  listItems,
  type FakeServer,
  type RunningMemcached,
} from '../support/memcached.js';
import { loopTurns, pollUntil } from '../support/wait.js';

const TIMEOUT_MS = 200;
/**
 * Slack on top of the deadline for a loaded 2-core machine. Without the deadline a black hole never
 * answers (the test's own timeout catches that), so the bound only has to tell "at the deadline"
 * from "hung".
 */
const MARGIN_MS = 2_000;
/** A test that hangs (a call that never settles) fails after this instead of blocking the run. */
const TEST_TIMEOUT_MS = 15_000;

const unhandled: unknown[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

let prefixCounter = 0;
/** A key prefix no other test uses, so tests sharing one memcached never see each other's entries. */
const freshPrefix = (): string => `t${process.pid}-${++prefixCounter}:`;

function configFor(servers: string[], overrides: Partial<MemcachedConfig> = {}): MemcachedConfig {
  return {
    servers,
    timeoutMs: TIMEOUT_MS,
    keyPrefix: 'gqlgw-test:',
    failureThreshold: 3,
    cooldownMs: 600,
    maxValueBytes: 1000,
    ...overrides,
  };
}

interface Recorded {
  readonly failures: Array<[MemcachedFailureKind, MemcachedOperation]>;
  readonly skips: MemcachedOperation[];
}

/**
 * The tier seen as plain values with a ttl, as most tests here need: `setMany` stores each value
 * fetched now and fresh for `ttlSeconds`, `getMany` answers the values of the entries found.
 */
interface ValueTier {
  getMany(keys: readonly string[]): Promise<Map<string, unknown>>;
  setMany(entries: ReadonlyArray<{ key: string; value: unknown; ttlSeconds: number }>): void;
  close(): Promise<void>;
}

function freshEntry(value: unknown, ttlSeconds: number): CacheEntry {
  const freshUntil = Date.now() + ttlSeconds * 1000;
  return { value, missing: false, freshUntil, staleUntil: freshUntil };
}

function valuesOf(t: MemcachedTier): ValueTier {
  return {
    async getMany(keys) {
      const entries = await t.getMany(keys);
      return new Map([...entries].map(([key, entry]) => [key, entry.value]));
    },
    setMany(entries) {
      t.setMany(entries.map(({ key, value, ttlSeconds }) => ({ key, entry: freshEntry(value, ttlSeconds) })));
    },
    close: () => t.close(),
  };
}

const openTiers: MemcachedTier[] = [];
/** A clock for the circuit breaker that moves only when told to. */
class TestClock {
  private ms = Date.now();
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Creates a tier that is closed after the test, with its events recorded; `clock` drives its breaker. */
function tier(config: MemcachedConfig, clock?: TestClock): ValueTier & Recorded {
  const recorded: Recorded = { failures: [], skips: [] };
  const events = {
    onFailure: (kind: MemcachedFailureKind, operation: MemcachedOperation) => recorded.failures.push([kind, operation]),
    onSkip: (operation: MemcachedOperation) => recorded.skips.push(operation),
  };
  const created = createMemcachedTier(config, events, clock?.now);
  openTiers.push(created);
  return Object.assign(valuesOf(created), recorded);
}

/** Runs getMany and returns its result and how long it took. */
async function timedGet(t: ValueTier, keys: string[]): Promise<{ hits: Map<string, unknown>; ms: number }> {
  const started = performance.now();
  const hits = await t.getMany(keys);
  return { hits, ms: performance.now() - started };
}

afterEach(
  async () => {
    await Promise.all(openTiers.splice(0).map((t) => t.close()));
    assert.deepEqual(unhandled, [], 'no unhandled promise rejections');
  },
  { timeout: TEST_TIMEOUT_MS },
);

describe('memcached tier against a real memcached', () => {
  let mc: RunningMemcached;
  before(async () => {
    mc = await startMemcached();
  });
  after(async () => {
    await mc?.stop();
  });

  it('shares entries between two tier instances (two gateway processes)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const keyPrefix = freshPrefix();
    const writer = tier(configFor([mc.address], { keyPrefix }));
    const reader = tier(configFor([mc.address], { keyPrefix }));
    const otherDeployment = tier(configFor([mc.address], { keyPrefix: freshPrefix() }));

    assert.equal((await reader.getMany(['User:1'])).size, 0, 'cold cache');
    writer.setMany([
      { key: 'User:1', value: { id: '1', name: 'Ada', tags: ['x'] }, ttlSeconds: 60 },
      { key: 'User:404', value: null, ttlSeconds: 60 },
    ]);
    const hits = await pollUntil(
      () => reader.getMany(['User:1', 'User:404', 'User:2']),
      (m) => m.size === 2,
    );
    assert.deepEqual(hits.get('User:1'), { id: '1', name: 'Ada', tags: ['x'] });
    assert.ok(hits.has('User:404') && hits.get('User:404') === null, 'a cached null is a hit');
    assert.ok(!hits.has('User:2'));
    assert.equal((await otherDeployment.getMany(['User:1'])).size, 0, 'another key prefix sees nothing');
    for (const t of [writer, reader, otherDeployment]) assert.deepEqual(t.failures, []);
  });

  it('lets entries expire after their ttl', { timeout: TEST_TIMEOUT_MS }, async () => {
    const keyPrefix = freshPrefix();
    const t = tier(configFor([mc.address], { keyPrefix }));
    t.setMany([
      { key: 'short', value: 'soon gone', ttlSeconds: 1 },
      { key: 'long', value: 'stays', ttlSeconds: 60 },
    ]);
    const warm = await pollUntil(
      () => t.getMany(['short', 'long']),
      (m) => m.size === 2,
    );
    assert.equal(warm.get('short'), 'soon gone');
    const expired = await pollUntil(
      () => t.getMany(['short', 'long']),
      (m) => !m.has('short'),
    );
    assert.ok(!expired.has('short'), 'the 1 s entry expired');
    assert.equal(expired.get('long'), 'stays');
  });

  it('hashes keys that are too long or unsafe for memcached, so they still round-trip', { timeout: TEST_TIMEOUT_MS }, async () => {
    const keyPrefix = freshPrefix();
    const writer = tier(configFor([mc.address], { keyPrefix }));
    const reader = tier(configFor([mc.address], { keyPrefix }));
    const longKey = `Query.search:/search?q=${'x'.repeat(400)}`;
    const unsafeKey = 'User:1 with spaces, ünïcode and\nnewline';
    writer.setMany([
      { key: longKey, value: { n: 1 }, ttlSeconds: 60 },
      { key: unsafeKey, value: { n: 2 }, ttlSeconds: 60 },
    ]);
    const hits = await pollUntil(
      () => reader.getMany([longKey, unsafeKey]),
      (m) => m.size === 2,
    );
    assert.deepEqual(hits.get(longKey), { n: 1 });
    assert.deepEqual(hits.get(unsafeKey), { n: 2 });

    const stored = memcachedKey(keyPrefix, longKey);
    assert.ok(stored.length <= 250 && stored.startsWith(keyPrefix));
    const raw = memjs.Client.create(mc.address, { retries: 1, logger: { log: () => undefined } });
    try {
      const { value } = await raw.get(stored);
      assert.ok(value !== null, 'the entry lives under the hashed key');
    } finally {
      raw.close();
    }
    assert.deepEqual(writer.failures, []);
  });

  it('does not store values larger than maxValueBytes', { timeout: TEST_TIMEOUT_MS }, async () => {
    const keyPrefix = freshPrefix();
    const t = tier(configFor([mc.address], { keyPrefix, maxValueBytes: 1000 }));
    t.setMany([
      { key: 'big', value: 'y'.repeat(2000), ttlSeconds: 60 },
      { key: 'small', value: 'y'.repeat(500), ttlSeconds: 60 },
    ]);
    const hits = await pollUntil(
      () => t.getMany(['big', 'small']),
      (m) => m.has('small'),
    );
    assert.equal(hits.get('small'), 'y'.repeat(500));
    assert.ok(!hits.has('big'), 'the oversized value was not stored');
    const raw = memjs.Client.create(mc.address, { retries: 1, logger: { log: () => undefined } });
    try {
      assert.equal((await raw.get(memcachedKey(keyPrefix, 'big'))).value, null);
    } finally {
      raw.close();
    }
  });

  it('answers many keys of one round in one call', { timeout: TEST_TIMEOUT_MS }, async () => {
    const keyPrefix = freshPrefix();
    const t = tier(configFor([mc.address], { keyPrefix, timeoutMs: 1000 }));
    const keys = Array.from({ length: 300 }, (_, i) => `Post:${i}`);
    t.setMany(keys.map((key, i) => ({ key, value: { id: i }, ttlSeconds: 60 })));
    const hits = await pollUntil(
      () => t.getMany([...keys, 'Post:missing']),
      (m) => m.size === keys.length,
    );
    assert.equal(hits.size, keys.length);
    keys.forEach((key, i) => assert.deepEqual(hits.get(key), { id: i }));
    assert.deepEqual(t.failures, []);
  });

  it("asks for a round's keys together, not one round trip after another", { timeout: TEST_TIMEOUT_MS }, async () => {
    // Through a proxy adding 100 ms each way, 30 sequential gets would need 6 s; the deadline is 1 s.
    const keyPrefix = freshPrefix();
    const proxy = await startLatencyProxy(mc.address, 100);
    try {
      const direct = tier(configFor([mc.address], { keyPrefix }));
      const slow = tier(configFor([proxy.address], { keyPrefix, timeoutMs: 1000 }));
      const keys = Array.from({ length: 30 }, (_, i) => `Comment:${i}`);
      direct.setMany(keys.map((key) => ({ key, value: key, ttlSeconds: 60 })));
      await pollUntil(
        () => direct.getMany(keys),
        (m) => m.size === keys.length,
      );
      const { hits } = await timedGet(slow, keys);
      assert.equal(hits.size, keys.length, 'every key answered within one deadline');
      assert.deepEqual(slow.failures, []);
    } finally {
      await Promise.all(openTiers.splice(0).map((t) => t.close()));
      await proxy.stop();
    }
  });

  it('treats a value that this gateway did not write as a garbage miss', { timeout: TEST_TIMEOUT_MS }, async () => {
    const keyPrefix = freshPrefix();
    const t = tier(configFor([mc.address], { keyPrefix }));
    const raw = memjs.Client.create(mc.address, { retries: 1, logger: { log: () => undefined } });
    try {
      await raw.set(memcachedKey(keyPrefix, 'foreign'), '{"not":"marked"}', { expires: 60 });
    } finally {
      raw.close();
    }
    const hits = await t.getMany(['foreign']);
    assert.equal(hits.size, 0);
    assert.deepEqual(t.failures, [['garbage', 'get']]);
  });

  it('reads an entry of the previous format (no age) as a plain miss, not garbage', { timeout: TEST_TIMEOUT_MS }, async () => {
    const keyPrefix = freshPrefix();
    const t = tier(configFor([mc.address], { keyPrefix }));
    const raw = memjs.Client.create(mc.address, { retries: 1, logger: { log: () => undefined } });
    try {
      await raw.set(memcachedKey(keyPrefix, 'old'), 'gqlgw1\n{"id":1}', { expires: 60 });
    } finally {
      raw.close();
    }
    assert.equal((await t.getMany(['old'])).size, 0);
    assert.deepEqual(t.failures, []);
  });

  it('keeps an entry until its own staleUntil (whole seconds), carrying its times', { timeout: TEST_TIMEOUT_MS }, async () => {
    const keyPrefix = freshPrefix();
    const created = createMemcachedTier(configFor([mc.address], { keyPrefix }));
    openTiers.push(created);
    const now = Date.now();
    const entry: CacheEntry = { value: { id: 7 }, missing: false, freshUntil: now + 1000, staleUntil: now + 30_500 };
    const miss: CacheEntry = { value: null, missing: true, freshUntil: now + 5000, staleUntil: now + 5000 };
    const gone: CacheEntry = { value: 1, missing: false, freshUntil: now - 10, staleUntil: now - 5 };
    created.setMany([
      { key: 'e', entry },
      { key: 'm', entry: miss },
      { key: 'gone', entry: gone },
    ]);
    const hits = await pollUntil(
      () => created.getMany(['e', 'm', 'gone']),
      (m) => m.size === 2,
    );
    assert.deepEqual(hits.get('e'), entry);
    assert.deepEqual(hits.get('m'), miss);
    assert.ok(!hits.has('gone'), 'an entry past its staleUntil is not stored');
    const items = await listItems(mc.address);
    const exp = (key: string) => items.find((i) => i.key === memcachedKey(keyPrefix, key))?.exp;
    const nowS = Math.floor(Date.now() / 1000);
    assert.ok(Math.abs(exp('e')! - nowS - 31) <= 2, `kept ttl + stale (31 s), memcached says ${exp('e')! - nowS}`);
    assert.ok(Math.abs(exp('m')! - nowS - 5) <= 2, `a miss kept its missing seconds, memcached says ${exp('m')! - nowS}`);
  });

  it('misses while memcached is stopped, skips it after the threshold, and recovers by itself', { timeout: TEST_TIMEOUT_MS }, async () => {
    const own = await startMemcached();
    try {
      const keyPrefix = freshPrefix();
      const clock = new TestClock();
      const t = tier(configFor([own.address], { keyPrefix, failureThreshold: 3, cooldownMs: 600 }), clock);
      t.setMany([{ key: 'k', value: 1, ttlSeconds: 60 }]);
      assert.equal(
        (
          await pollUntil(
            () => t.getMany(['k']),
            (m) => m.size === 1,
          )
        ).get('k'),
        1,
      );

      await own.stop();
      for (let i = 0; i < 3; i++) {
        const { hits, ms } = await timedGet(t, ['k']);
        assert.equal(hits.size, 0, 'a dead memcached is a miss');
        assert.ok(ms < TIMEOUT_MS + MARGIN_MS, `call ${i} took ${ms} ms`);
      }
      assert.equal(t.failures.length, 3);
      assert.ok(
        t.failures.every(([kind, op]) => kind === 'error' && op === 'get'),
        JSON.stringify(t.failures),
      );

      const skipped = await timedGet(t, ['k']);
      assert.equal(skipped.hits.size, 0);
      assert.deepEqual(t.skips, ['get'], 'the open breaker skipped the call');
      assert.equal(t.failures.length, 3, 'the skipped call did not try the dead server');
      t.setMany([{ key: 'k', value: 2, ttlSeconds: 60 }]);
      assert.deepEqual(t.skips, ['get', 'set'], 'writes are skipped too');

      await own.restart();
      const other = tier(configFor([own.address], { keyPrefix }));
      other.setMany([{ key: 'k', value: 3, ttlSeconds: 60 }]);
      await pollUntil(
        () => other.getMany(['k']),
        (m) => m.size === 1,
      );
      assert.equal((await t.getMany(['k'])).size, 0, 'still cooling down');
      clock.advance(600);
      const back = await pollUntil(
        () => t.getMany(['k']),
        (m) => m.size === 1,
      );
      assert.equal(back.get('k'), 3, 'hits return after the cool-down without any reset');
      assert.equal(t.failures.length, 3, 'no new failures once memcached is back');
    } finally {
      await Promise.all(openTiers.splice(0).map((t) => t.close()));
      await own.stop();
    }
  });
});

describe('memcached tier against misbehaving servers', () => {
  const servers: FakeServer[] = [];
  afterEach(
    async () => {
      await Promise.all(openTiers.splice(0).map((t) => t.close()));
      await Promise.all(servers.splice(0).map((s) => s.stop()));
    },
    { timeout: TEST_TIMEOUT_MS },
  );

  /** Runs `threshold` calls against a bad server; each must be a prompt all-miss. */
  async function expectPromptMisses(t: ValueTier, calls: number): Promise<void> {
    for (let i = 0; i < calls; i++) {
      const { hits, ms } = await timedGet(t, ['a', 'b', 'c']);
      assert.equal(hits.size, 0);
      assert.ok(ms < TIMEOUT_MS + MARGIN_MS, `call ${i} took ${ms} ms (deadline ${TIMEOUT_MS})`);
    }
  }

  /** After the threshold, calls are skipped without a byte reaching the server. */
  async function expectSkipped(t: ValueTier & Recorded, server: FakeServer): Promise<void> {
    const bytesBefore = server.bytesReceived;
    const failuresBefore = t.failures.length;
    const hits = await t.getMany(['a', 'b', 'c']);
    assert.equal(hits.size, 0);
    assert.deepEqual(t.skips, ['get']);
    assert.equal(t.failures.length, failuresBefore, 'a skipped call fails nothing: it was never tried');
    await loopTurns(); // a write made by that call would have reached the server by now
    assert.equal(server.bytesReceived, bytesBefore, 'nothing was sent while the breaker is open');
  }

  it('a black hole (accepts, never answers): misses at the deadline, then skipped', { timeout: TEST_TIMEOUT_MS }, async () => {
    const hole = await startBlackholeServer();
    servers.push(hole);
    const t = tier(configFor([hole.address], { failureThreshold: 2, cooldownMs: 60_000 }));
    await expectPromptMisses(t, 2);
    assert.ok(hole.bytesReceived > 0, 'the requests reached the server');
    assert.deepEqual(t.failures, [
      ['timeout', 'get'],
      ['timeout', 'get'],
    ]);
    await expectSkipped(t, hole);
  });

  it('a server that closes every connection: misses at the deadline, then skipped', { timeout: TEST_TIMEOUT_MS }, async () => {
    const closing = await startClosingServer();
    servers.push(closing);
    const t = tier(configFor([closing.address], { failureThreshold: 2, cooldownMs: 60_000 }));
    await expectPromptMisses(t, 2);
    assert.ok(closing.connections >= 2, 'each failed call left its connection behind');
    assert.equal(t.failures.length, 2);
    assert.ok(
      t.failures.every(([kind]) => kind === 'timeout' || kind === 'error'),
      JSON.stringify(t.failures),
    );
    await expectSkipped(t, closing);
  });

  it('a server answering well-formed frames with junk values: garbage misses, then skipped', { timeout: TEST_TIMEOUT_MS }, async () => {
    const junk = await startGarbageServer('frames');
    servers.push(junk);
    const t = tier(configFor([junk.address], { failureThreshold: 2, cooldownMs: 60_000 }));
    await expectPromptMisses(t, 2);
    assert.deepEqual(t.failures, [
      ['garbage', 'get'],
      ['garbage', 'get'],
    ]);
    await expectSkipped(t, junk);
  });

  it('a server answering bytes that are not the protocol: misses, then skipped', { timeout: TEST_TIMEOUT_MS }, async () => {
    const junk = await startGarbageServer('bytes');
    servers.push(junk);
    const t = tier(configFor([junk.address], { failureThreshold: 2, cooldownMs: 60_000 }));
    await expectPromptMisses(t, 2);
    assert.equal(t.failures.length, 2);
    await expectSkipped(t, junk);
  });

  it('comes back after the cool-down: a probe goes out, and a failed probe reopens the breaker', { timeout: TEST_TIMEOUT_MS }, async () => {
    const hole = await startBlackholeServer();
    servers.push(hole);
    const clock = new TestClock();
    const t = tier(configFor([hole.address], { failureThreshold: 1, cooldownMs: 300 }), clock);
    await expectPromptMisses(t, 1);
    await expectSkipped(t, hole);
    clock.advance(300);
    const bytesBefore = hole.bytesReceived;
    await expectPromptMisses(t, 1); // the probe
    assert.ok(hole.bytesReceived > bytesBefore, 'the probe reached the server');
    assert.equal(t.failures.length, 2);
    assert.equal((await t.getMany(['a'])).size, 0);
    assert.deepEqual(t.skips, ['get', 'get'], 'the failed probe reopened the breaker at once');
  });

  it('setMany against a dead or silent server returns at once and never throws', { timeout: TEST_TIMEOUT_MS }, async () => {
    const hole = await startBlackholeServer();
    servers.push(hole);
    const deadPort = await startBlackholeServer();
    const deadAddress = deadPort.address;
    await deadPort.stop(); // nothing listens there any more
    for (const address of [hole.address, deadAddress]) {
      const t = tier(configFor([address], { failureThreshold: 100 }));
      for (let i = 0; i < 20; i++) {
        t.setMany([{ key: `w${i}`, value: { i }, ttlSeconds: 60 }]);
      }
      assert.equal(t.failures.length, 0, 'every setMany returned before its write had an outcome: it does not wait for the server');
      await pollUntil(
        async () => t.failures.length,
        (n) => n === 20,
        TIMEOUT_MS + MARGIN_MS + 500,
      );
      assert.equal(t.failures.length, 20, `every write failed quietly against ${address}`);
      assert.ok(t.failures.every(([, op]) => op === 'set'));
    }
  });

  it('close() does not hang on a server that never answers', { timeout: TEST_TIMEOUT_MS }, async () => {
    const hole = await startBlackholeServer();
    servers.push(hole);
    const t = valuesOf(createMemcachedTier(configFor([hole.address])));
    const pending = t.getMany(['a']);
    t.setMany([{ key: 'b', value: 1, ttlSeconds: 60 }]);
    const started = performance.now();
    await t.close();
    const ms = performance.now() - started;
    assert.ok(ms < TIMEOUT_MS + MARGIN_MS, `close took ${ms} ms`);
    assert.equal((await pending).size, 0);
    assert.equal((await t.getMany(['a'])).size, 0, 'a closed tier only misses');
    t.setMany([{ key: 'c', value: 1, ttlSeconds: 60 }]);
  });
});
