/**
 * upstream/admission.ts: at most `limit` requests run, the rest wait in arrival order; a waiter
 * whose deadline aborts leaves the queue (rejecting with the deadline's reason) without taking or
 * losing a place; the queue stays correct across many waiters.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Admission } from '../../gateway/upstream/admission.js';
import { Deadline } from '../../gateway/upstream/deadline.js';

/** How `p` stands once every pending microtask has run (admission settles its waiters synchronously, never on a timer). */
const settledIn = async (p: Promise<unknown>): Promise<'resolved' | 'rejected' | 'pending'> =>
  Promise.race([
    p.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    new Promise<'pending'>((r) => setImmediate(() => r('pending'))),
  ]);

describe('admission to a source pool', () => {
  test('runs up to the limit at once, then first come first served', async () => {
    const d = new Deadline(10_000, undefined);
    const gate = new Admission(2);
    assert.equal(gate.enter(d), undefined);
    assert.equal(gate.enter(d), undefined);
    const order: string[] = [];
    const third = gate.enter(d)!.then(() => order.push('third'));
    const fourth = gate.enter(d)!.then(() => order.push('fourth'));
    assert.equal(await settledIn(third), 'pending');
    gate.release();
    await third;
    assert.equal(await settledIn(fourth), 'pending');
    gate.release();
    await fourth;
    assert.deepEqual(order, ['third', 'fourth']);
    gate.release();
    gate.release();
    assert.equal(gate.enter(d), undefined, 'both places free again');
    d.release();
  });

  test('a waiter whose deadline aborts leaves the queue and the next one gets the place', async () => {
    const long = new Deadline(10_000, undefined);
    const caller = new AbortController();
    const leaving = new Deadline(10_000, caller.signal);
    const gate = new Admission(1);
    assert.equal(gate.enter(long), undefined);
    const left = gate.enter(leaving)!;
    const next = gate.enter(long)!;
    caller.abort(new Error('client went away'));
    await assert.rejects(left, /client went away/);
    assert.equal(await settledIn(next), 'pending', 'the abort gave no place away');
    gate.release();
    assert.equal(await settledIn(next), 'resolved');
    assert.equal(long.listenerCount, 0, 'the waiter given the place left the deadline it waited under');
    gate.release();
    assert.equal(gate.enter(long), undefined);
    long.release();
    leaving.release();
  });

  test('a timed-out waiter rejects with the deadline; an already aborted deadline never waits', async () => {
    const gate = new Admission(1);
    const hold = new Deadline(10_000, undefined);
    assert.equal(gate.enter(hold), undefined);
    const short = new Deadline(10, undefined);
    await assert.rejects(gate.enter(short)!, /deadline passed/);
    assert.equal(short.timedOut, true);
    await assert.rejects(gate.enter(short)!, /deadline passed/);
    hold.release();
  });

  test('thousands of waiters, half of them leaving, are all served in order', async () => {
    const gate = new Admission(1);
    const keep = new Deadline(10_000, undefined);
    assert.equal(gate.enter(keep), undefined);
    const served: number[] = [];
    const waits: Array<Promise<unknown>> = [];
    const callers: AbortController[] = [];
    const own: Deadline[] = [];
    for (let i = 0; i < 3000; i++) {
      const c = new AbortController();
      callers.push(c);
      const d = i % 2 === 0 ? keep : new Deadline(10_000, c.signal);
      if (d !== keep) own.push(d);
      waits.push(
        gate.enter(d)!.then(
          () => served.push(i),
          () => undefined,
        ),
      );
    }
    for (let i = 1; i < 3000; i += 2) callers[i]!.abort();
    for (let i = 0; i < 1500; i++) {
      gate.release();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(waits);
    assert.deepEqual(
      served,
      Array.from({ length: 1500 }, (_, i) => i * 2),
    );
    keep.release();
    for (const d of own) d.release();
  });
});
