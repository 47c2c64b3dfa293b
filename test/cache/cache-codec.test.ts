/** The pure parts of the shared tier: memcached key hashing, the value envelope, the breaker. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memcachedKey } from '../../gateway/cache/cache-key.js';
import { decodeCacheValue, encodeCacheValue } from '../../gateway/cache/cache-value.js';
import { CircuitBreaker } from '../../gateway/cache/circuit-breaker.js';

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

describe('cache value envelope', () => {
  it('round-trips JSON values, null included', () => {
    for (const value of [null, 0, 'text', { a: [1, { b: 'ü' }] }, [true, false]]) {
      const encoded = encodeCacheValue(value);
      assert.ok(encoded);
      assert.deepEqual(decodeCacheValue(encoded.bytes), { ok: true, value });
      assert.equal(encoded.jsonBytes, Buffer.byteLength(JSON.stringify(value)));
    }
  });

  it('refuses what JSON cannot hold and recognises foreign or broken bytes', () => {
    assert.equal(encodeCacheValue(undefined), undefined);
    const cycle: { self?: unknown } = {};
    cycle.self = cycle;
    assert.equal(encodeCacheValue(cycle), undefined);
    assert.equal(encodeCacheValue(10n), undefined);
    for (const bytes of [
      Buffer.from('{"a":1}'),
      Buffer.from('gqlgw1\n{"a":'),
      Buffer.from('gqlgw2\n{}'),
      Buffer.concat([Buffer.from('gqlgw1\n"'), Buffer.from([0xff, 0xfe]), Buffer.from('"')]),
      Buffer.alloc(0),
    ]) {
      assert.deepEqual(decodeCacheValue(bytes), { ok: false }, bytes.toString());
    }
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
