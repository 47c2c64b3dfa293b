/**
 * util/canceller.ts: the gateway's AbortSignal. Listeners are called once, in the order added,
 * only if still there at the abort; one added twice is kept once; one added after the abort is
 * never called. The same must hold while it keeps a few listeners in an array and once it keeps
 * many in a Set, and across the switch between the two.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Canceller } from '../../gateway/util/canceller.js';

/** `count` listeners that record their number into `calls` when called. */
function listeners(count: number, calls: number[]): Array<() => void> {
  return Array.from({ length: count }, (_, i) => () => calls.push(i));
}

describe('Canceller', () => {
  for (const count of [3, 8, 9, 40]) {
    test(`${count} listeners: removed ones are not called, the rest once each in the order added`, () => {
      const calls: number[] = [];
      const all = listeners(count, calls);
      const c = new Canceller();
      for (const l of all) c.addEventListener('abort', l);
      c.addEventListener('abort', all[0]!); // a second add keeps it once
      assert.equal(c.listenerCount, count);
      const removed = new Set([0, Math.floor(count / 2), count - 1]);
      for (const i of removed) c.removeEventListener('abort', all[i]!);
      c.removeEventListener('abort', all[0]!); // removing twice changes nothing
      c.removeEventListener('abort', () => {}); // nor does removing a stranger
      assert.equal(c.listenerCount, count - removed.size);
      c.abort(new Error('gone'));
      const expected = all.map((_, i) => i).filter((i) => !removed.has(i));
      assert.deepEqual(calls, expected);
      assert.equal(c.aborted, true);
      assert.equal((c.reason as Error).message, 'gone');
      assert.equal(c.listenerCount, 0);
      c.abort(new Error('again'));
      assert.deepEqual(calls, expected, 'a second abort calls nobody');
      c.addEventListener('abort', all[1]!);
      assert.equal(c.listenerCount, 0, 'a listener added after the abort is not kept');
    });
  }

  test('a connection-like signal: many requests come and go one or two at a time, and only the last ones are called', () => {
    const calls: number[] = [];
    const c = new Canceller(10);
    const all = listeners(2000, calls);
    for (let i = 0; i < all.length; i += 2) {
      c.addEventListener('abort', all[i]!);
      c.addEventListener('abort', all[i + 1]!);
      c.removeEventListener('abort', all[i]!);
      if (i < all.length - 2) c.removeEventListener('abort', all[i + 1]!);
    }
    assert.equal(c.listenerCount, 1);
    c.abort(undefined);
    assert.deepEqual(calls, [1999]);
  });

  test('past maxListeners it warns once', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const c = new Canceller(2);
      for (const l of listeners(5, [])) c.addEventListener('abort', l);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(warnings.filter((m) => m.includes('abort listener leak')).length, 1, warnings.join('\n'));
    } finally {
      process.off('warning', onWarning);
    }
  });
});
