import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TickOrder } from '../../gateway/live/tick-order.js';

interface Group {
  readonly partition: string;
  readonly keysKey: string;
  readonly id: number;
}

test('a tick cuts its groups into slices of whole batch chunks per partition, never between groups of one key', () => {
  const order = new TickOrder<Group>();
  const groups: Group[] = [];
  // Partition A: 230 keys, key 120 watched by two selections; partition B: 130 keys.
  const add = (partition: string, keysKey: string): number => groups.push({ partition, keysKey, id: groups.length });
  for (let k = 0; k < 230; k++) add('A', `k${k}`);
  add('A', 'k120');
  for (let k = 0; k < 130; k++) add('B', `k${k}`);
  groups.forEach((g) => order.add(g));

  const slices = order.slices(100, 50, () => true);
  const keysPer = (slice: readonly Group[], p: string): number =>
    new Set(slice.filter((g) => g.partition === p).map((g) => g.keysKey)).size;
  assert.deepEqual(
    slices.map((s) => [keysPer(s, 'A'), keysPer(s, 'B')]),
    [
      [100, 0],
      [100, 0],
      [30, 100],
      [0, 30],
    ],
  );
  // Chunks of 50 per partition and slice: ceil(230 / 50) + ceil(130 / 50) = 8, as for the whole tick at once.
  const chunks = slices.reduce((n, s) => n + Math.ceil(keysPer(s, 'A') / 50) + Math.ceil(keysPer(s, 'B') / 50), 0);
  assert.equal(chunks, 8);
  const withK120 = slices.filter((s) => s.some((g) => g.partition === 'A' && g.keysKey === 'k120'));
  assert.equal(withK120.length, 1, 'both groups of key 120 are in one slice');
  assert.equal(slices.flat().length, groups.length, 'every group once');

  // `take` leaves groups out; deleted groups are gone; a webhook's key finds its groups in every partition.
  order.delete(groups[0]!);
  assert.equal(order.slices(1000, 50, (g) => g.id % 2 === 0).flat().length, 180);
  assert.deepEqual(
    [...order.withKeys('k5')].map((g) => g.partition),
    ['A', 'B'],
  );
  assert.deepEqual(
    [...order.withKeys('k0')].map((g) => g.partition),
    ['B'],
  );
});
