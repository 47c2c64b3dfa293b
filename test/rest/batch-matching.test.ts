/**
 * Batch matching (gateway/execute/batch.ts), table-driven: items to keys by the string form of a
 * dotted `match`, one-to-many collection, keys not asked dropped, non-scalar match values ignored.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchBatchItems } from '../../gateway/execute/batch.js';

interface Row {
  readonly name: string;
  readonly items: readonly unknown[];
  readonly match: readonly string[];
  readonly wanted: readonly string[];
  readonly oneToMany?: boolean;
  readonly want: Record<string, unknown>;
}

const a1 = { id: 1, name: 'a' };
const a1again = { id: '1', name: 'a again' };
const b2 = { id: '2', name: 'b' };
const nested1 = { owner: { id: 1 }, n: 'x' };
const nested2 = { owner: { id: 2 }, n: 'y' };
const nested1b = { owner: { id: '1' }, n: 'z' };

const rows: Row[] = [
  { name: 'numbers match string keys, any order', items: [b2, a1], match: ['id'], wanted: ['1', '2'], want: { '1': a1, '2': b2 } },
  { name: 'first item of a key wins on a single field', items: [a1, a1again], match: ['id'], wanted: ['1'], want: { '1': a1 } },
  {
    name: 'one-to-many collects every item in answer order',
    items: [a1, b2, a1again],
    match: ['id'],
    wanted: ['1', '2'],
    oneToMany: true,
    want: { '1': [a1, a1again], '2': [b2] },
  },
  { name: 'keys not asked are dropped', items: [a1, b2], match: ['id'], wanted: ['2'], want: { '2': b2 } },
  { name: 'dotted match', items: [nested2, nested1], match: ['owner', 'id'], wanted: ['1', '2'], want: { '1': nested1, '2': nested2 } },
  {
    name: 'dotted match, one-to-many',
    items: [nested1, nested2, nested1b],
    match: ['owner', 'id'],
    wanted: ['1'],
    oneToMany: true,
    want: { '1': [nested1, nested1b] },
  },
  { name: 'a wrong match key matches nothing', items: [a1, b2], match: ['userId'], wanted: ['1', '2'], want: {} },
  {
    name: 'non-objects, nulls, objects and lists as match values are skipped',
    items: [null, 3, 'x', [a1], { id: null }, { id: { v: 1 } }, { id: [1] }, a1],
    match: ['id'],
    wanted: ['1'],
    want: { '1': a1 },
  },
  { name: 'booleans compare by string form', items: [{ id: true }], match: ['id'], wanted: ['true'], want: { true: { id: true } } },
];

for (const row of rows) {
  test(`batch matching: ${row.name}`, () => {
    const got = matchBatchItems(row.items, row.match, new Set(row.wanted), row.oneToMany === true);
    assert.deepEqual(Object.fromEntries(got), row.want);
  });
}
