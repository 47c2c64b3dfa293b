/**
 * The order the bench measures rows in (bench/rows.ts MEASURE_ORDER): every row once, the rows of
 * each throughput target back to back, every second run backwards, so a drift of the machine during
 * a run moves both sides of a ratio alike.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TARGETS } from '../../bench/report/targets.js';
import { MEASURE_ORDER, ROWS, ROW_IDS, measureOrder } from '../../bench/rows.js';

describe('bench measure order', () => {
  it('holds every row exactly once', () => {
    assert.deepEqual([...MEASURE_ORDER].sort(), [...ROW_IDS].sort());
  });

  it("puts each throughput target's rows next to each other, with nothing but another row of the same group between", () => {
    const throughput = TARGETS.filter((t) => t.kind === 'throughput');
    assert.ok(throughput.length >= 4);
    for (const t of throughput) {
      const a = MEASURE_ORDER.indexOf(t.row);
      const b = MEASURE_ORDER.indexOf(t.peer);
      const between = MEASURE_ORDER.slice(Math.min(a, b) + 1, Math.max(a, b));
      // Only rows compared with the same gqlgw row may sit between (the ceiling between gqlgw batch and graphql-jit).
      const sameGroup = new Set(throughput.filter((o) => o.row === t.row).flatMap((o) => [o.row, o.peer]));
      assert.ok(
        between.every((id) => sameGroup.has(id)),
        `${t.row} and ${t.peer} are measured apart (${between.join(', ')} between)`,
      );
    }
  });

  it('measures the selected rows in that order in odd runs and backwards in even runs', () => {
    const selected = ROWS.filter((r) => ['floor', 'gqlgw-batch', 'jit-dataloader', 'ceiling'].includes(r.id));
    const given = selected.map((r) => r.id);
    assert.deepEqual(
      measureOrder(selected, 1).map((r) => r.id),
      ['gqlgw-batch', 'ceiling', 'jit-dataloader', 'floor'],
    );
    assert.deepEqual(
      measureOrder(selected, 2).map((r) => r.id),
      ['floor', 'jit-dataloader', 'ceiling', 'gqlgw-batch'],
    );
    assert.deepEqual(
      measureOrder(selected, 3).map((r) => r.id),
      ['gqlgw-batch', 'ceiling', 'jit-dataloader', 'floor'],
    );
    assert.deepEqual(
      selected.map((r) => r.id),
      given,
      'the selection itself is left as it was',
    );
  });
});
