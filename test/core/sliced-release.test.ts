/**
 * The waiters of a chunk shared across requests are answered a slice at a time
 * (gateway/util/sliced-release.ts): up to RELEASE_ALL_UP_TO at once, else RELEASE_SLICE per
 * event-loop turn, in the order they began to wait.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RELEASE_ALL_UP_TO, RELEASE_SLICE, SlicedRelease } from '../../gateway/util/sliced-release.js';

/** Releases `n` waiters and gives, for each, the event-loop turn (0 = the release's own) it was answered in. */
async function turnsOf(n: number): Promise<number[]> {
  const release = new SlicedRelease();
  const turns: number[] = new Array<number>(n).fill(-1);
  let turn = 0;
  const waited = Array.from({ length: n }, (_, i) => release.waiter().then(() => (turns[i] = turn)));
  // The turn counter is scheduled first, so that in each turn it moves before the next slice goes.
  let ticking = true;
  const tick = (): void => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  release.release();
  await Promise.all(waited);
  ticking = false;
  return turns;
}

describe('sliced release', () => {
  test(`up to ${RELEASE_ALL_UP_TO} waiters are all answered in the release's own turn`, async () => {
    assert.deepEqual(await turnsOf(RELEASE_ALL_UP_TO), new Array<number>(RELEASE_ALL_UP_TO).fill(0));
  });

  test(`more are answered ${RELEASE_SLICE} per turn, in the order they began to wait`, async () => {
    const n = RELEASE_ALL_UP_TO + 1 + 2 * RELEASE_SLICE;
    const turns = await turnsOf(n);
    assert.deepEqual(turns.slice(0, RELEASE_SLICE), new Array<number>(RELEASE_SLICE).fill(0));
    for (let i = 1; i < n; i++) assert.ok(turns[i]! >= turns[i - 1]!, `waiter ${i} was answered before waiter ${i - 1}`);
    const perTurn = new Map<number, number>();
    for (const t of turns) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
    for (const count of perTurn.values()) assert.ok(count <= RELEASE_SLICE, `a turn answered ${count} waiters`);
    assert.ok(perTurn.size >= Math.ceil(n / RELEASE_SLICE), `answered over ${perTurn.size} turns`);
  });

  test('a waiter that comes after the release is answered at once', async () => {
    const release = new SlicedRelease();
    release.release();
    let answered = false;
    await release.waiter().then(() => (answered = true));
    assert.equal(answered, true);
  });
});
