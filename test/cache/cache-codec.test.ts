/** The pure parts of the cache tiers: memcached key hashing, the entry envelope and ages, L2's keeping, the breaker. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memcachedKey } from '../../gateway/cache/cache-key.js';
import { decodeCacheEntry, encodeCacheEntry } from '../../gateway/cache/cache-value.js';
import { entryState, missingEntry, valueEntry } from '../../gateway/cache/entry.js';
import { CircuitBreaker } from '../../gateway/cache/circuit-breaker.js';
import { L2Cache } from '../../gateway/cache/l2.js';

const SAFE = /^[\x21-\x7e]{1,250}$/;

describe('memcachedKey', () => {
  it('keeps short printable keys as prefix + key', () => {
    assert.equal(memcachedKey('gw:', 'User:1'), 'gw:User:1');
  });

  it('hashes long, spaced, non-ASCII or control-character keys into a safe key of at most 250 bytes', () => {
    for (const key of ['x'.repeat(248), 'x'.repeat(1000), 'a b', 'ünï', 'a\nb', 'a\u0000b', '']) {
      const stored = memcachedKey('gw:', key);
      if (key === '') {
        assert.equal(stored, 'gw:');
        continue;
      }
      assert.match(stored, SAFE, JSON.stringify(key));
      assert.ok(stored.startsWith('gw:#h1:'), stored);
      assert.equal(stored, memcachedKey('gw:', key), 'deterministic');
    }
    assert.equal(memcachedKey('gw:', 'x'.repeat(247)), `gw:${'x'.repeat(247)}`, 'exactly 250 bytes fits');
  });

  it('gives distinct keys distinct results, and never lets a raw key equal a hashed one', () => {
    const hashed = memcachedKey('gw:', 'a b');
    const lookalike = hashed.slice('gw:'.length);
    assert.notEqual(memcachedKey('gw:', lookalike), hashed);
    assert.notEqual(memcachedKey('gw:', 'a b'), memcachedKey('gw:', 'a  b'));
    assert.notEqual(memcachedKey('one:', 'a b'), memcachedKey('two:', 'a b'));
  });

  it('keeps the hash of an unsafe or very long prefix apart without using the prefix raw', () => {
    const stored = memcachedKey('p'.repeat(300), 'k');
    assert.match(stored, SAFE);
    assert.notEqual(stored, memcachedKey('p'.repeat(301), 'k'));
    assert.match(memcachedKey('my prefix:', 'k'), SAFE);
  });
});

describe('cache entry envelope', () => {
  const times = { freshUntil: 1_767_000_000_000, staleUntil: 1_767_000_030_000 };

  it('round-trips values (null included) and remembered misses with their times', () => {
    for (const value of [null, 0, 'text', { a: [1, { b: 'ü' }] }, [true, false]]) {
      const entry = { value, missing: false, ...times };
      const encoded = encodeCacheEntry(entry);
      assert.ok(encoded);
      assert.deepEqual(decodeCacheEntry(encoded.bytes), { kind: 'entry', entry });
      assert.equal(encoded.jsonBytes, Buffer.byteLength(JSON.stringify(value)), 'the value cap counts the JSON alone');
    }
    const miss = { value: null, missing: true, freshUntil: times.freshUntil, staleUntil: times.freshUntil };
    const encoded = encodeCacheEntry(miss)!;
    assert.equal(encoded.bytes.toString(), `gqlgw2 ${times.freshUntil} ${times.freshUntil} m\nnull`);
    assert.deepEqual(decodeCacheEntry(encoded.bytes), { kind: 'entry', entry: miss });
  });

  it('refuses what JSON cannot hold and recognises foreign or broken bytes; the old format is outdated, not garbage', () => {
    const entry = (value: unknown) => ({ value, missing: false, ...times });
    assert.equal(encodeCacheEntry(entry(undefined)), undefined);
    const cycle: { self?: unknown } = {};
    cycle.self = cycle;
    assert.equal(encodeCacheEntry(entry(cycle)), undefined);
    assert.equal(encodeCacheEntry(entry(10n)), undefined);
    assert.equal(encodeCacheEntry({ value: 1, missing: false, freshUntil: 10, staleUntil: 5 }), undefined, 'stale before fresh');
    for (const bytes of [
      Buffer.from('{"a":1}'),
      Buffer.from('gqlgw2 1 2 v\n{"a":'),
      Buffer.from('gqlgw2\n{}'),
      Buffer.from('gqlgw2 2 1 v\n{}'),
      Buffer.from('gqlgw2 1 2 x\n{}'),
      Buffer.from('gqlgw2 1 2 m\n{"a":1}'),
      Buffer.from(`gqlgw2 1 2 v${' '.repeat(80)}\n{}`),
      Buffer.concat([Buffer.from('gqlgw2 1 2 v\n"'), Buffer.from([0xff, 0xfe]), Buffer.from('"')]),
      Buffer.alloc(0),
    ]) {
      assert.deepEqual(decodeCacheEntry(bytes), { kind: 'garbage' }, bytes.toString());
    }
    assert.deepEqual(decodeCacheEntry(Buffer.from('gqlgw1\n{"a":1}')), { kind: 'outdated' });
  });
});

describe('cache entry ages', () => {
  it('is fresh for ttl, stale for stale more, then expired; misses last `missing` seconds; ttl 0 keeps no value', () => {
    const cache = { ttlSeconds: 2, staleSeconds: 3, missingSeconds: 4 };
    const e = valueEntry('v', cache, 1000)!;
    assert.deepEqual(e, { value: 'v', missing: false, freshUntil: 3000, staleUntil: 6000 });
    assert.equal(entryState(e, 2999), 'fresh');
    assert.equal(entryState(e, 3000), 'stale');
    assert.equal(entryState(e, 5999), 'stale');
    assert.equal(entryState(e, 6000), 'expired');
    assert.deepEqual(missingEntry(cache, 1000), { value: null, missing: true, freshUntil: 5000, staleUntil: 5000 });
    assert.equal(missingEntry({ ...cache, missingSeconds: 0 }, 1000), undefined);
    assert.equal(valueEntry('v', { ...cache, ttlSeconds: 0 }, 1000), undefined);
  });
});

describe('L2', () => {
  const cache = { ttlSeconds: 2, staleSeconds: 3, missingSeconds: 0 };

  it('serves an entry until its own staleUntil, then drops it; never stores one already past it', () => {
    const l2 = new L2Cache(10);
    const e = valueEntry('v', cache, 1000)!;
    l2.set('k', e, 1000);
    assert.equal(l2.get('k', 2999), e, 'fresh');
    assert.equal(l2.get('k', 5999), e, 'stale: still kept, the caller serves it stale');
    assert.equal(l2.get('k', 6000), undefined, 'at staleUntil it is gone');
    assert.equal(l2.get('k', 1000), undefined, 'and it was dropped, not only hidden at that time');
    l2.set('late', e, 6000);
    assert.equal(l2.get('late', 1000), undefined, 'an entry set at or after its staleUntil is not stored');
  });

  it('keeps at most max entries, dropping the least recently read; 0 keeps nothing', () => {
    const l2 = new L2Cache(2);
    const [a, b, c] = ['a', 'b', 'c'].map((v) => valueEntry(v, cache, 1000)!);
    l2.set('a', a!, 1000);
    l2.set('b', b!, 1000);
    assert.equal(l2.get('a', 1000), a, 'a is read: b is now the least recently used');
    l2.set('c', c!, 1000);
    assert.equal(l2.get('b', 1000), undefined);
    assert.equal(l2.get('a', 1000), a);
    assert.equal(l2.get('c', 1000), c);
    const off = new L2Cache(0);
    off.set('a', a!, 1000);
    assert.equal(off.enabled, false);
    assert.equal(off.get('a', 1000), undefined);
  });
});

describe('CircuitBreaker', () => {
  it('opens after threshold failures in a row, lets one probe through after the cool-down, and closes on success', () => {
    let now = 1000;
    const breaker = new CircuitBreaker(3, 500, () => now);
    breaker.failure();
    breaker.failure();
    breaker.success(); // resets the count
    breaker.failure();
    breaker.failure();
    assert.equal(breaker.tryPass(), true);
    breaker.failure();
    assert.equal(breaker.tryPass(), false, 'open after 3 in a row');
    now += 499;
    assert.equal(breaker.tryPass(), false);
    now += 1;
    assert.equal(breaker.tryPass(), true, 'the probe');
    assert.equal(breaker.tryPass(), false, 'one probe at a time');
    breaker.failure();
    now += 100;
    assert.equal(breaker.tryPass(), false, 'a failed probe reopens at once');
    now += 400;
    assert.equal(breaker.tryPass(), true);
    breaker.success();
    assert.equal(breaker.tryPass(), true);
    assert.equal(breaker.tryPass(), true, 'closed again');
  });

  it('replaces a probe that never reports back', () => {
    let now = 0;
    const breaker = new CircuitBreaker(1, 100, () => now);
    breaker.failure();
    now = 100;
    assert.equal(breaker.tryPass(), true);
    now = 150;
    assert.equal(breaker.tryPass(), false);
    now = 200;
    assert.equal(breaker.tryPass(), true);
  });
});
