/**
 * Batch matching (gateway/execute/send/batch.ts), table-driven: a chunk's answer as one outcome per key,
 * in key order (keyOutcomes): items to keys by the string form of a dotted `match`, one-to-many
 * collection, keys not asked dropped, non-scalar match values ignored, a failed answer every key's
 * outcome. The same table settles memo entries through settleBatchChunk: a chunk that asks its whole
 * group and a chunk that asks part of it, on a single field (items in the order asked settle their
 * keys without a lookup; any other order through a map of the chunk's keys) and a one-to-many one;
 * and a key whose entries differ in one-to-many, each taking its own value.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyOutcomes, settleBatchChunk, type BatchChunk, type BatchGroup } from '../../gateway/execute/send/batch.js';
import { dottedReader } from '../../directives/dotted.js';
import type { MemoEntry } from '../../gateway/execute/send/memo-entry.js';
import type { UpstreamOutcome } from '../../gateway/upstream/outcome.js';

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
  { name: 'in the order asked', items: [a1, b2], match: ['id'], wanted: ['1', '2'], want: { '1': a1, '2': b2 } },
  {
    name: 'in order, then a key missing, then out of order',
    items: [a1, { id: 4 }, { id: 3 }],
    match: ['id'],
    wanted: ['1', '2', '3', '4'],
    want: { '1': a1, '3': { id: 3 }, '4': { id: 4 } },
  },
  {
    name: 'in order, then a repeat of an answered key',
    items: [a1, b2, a1again, { id: 3 }],
    match: ['id'],
    wanted: ['1', '2', '3'],
    want: { '1': a1, '2': b2, '3': { id: 3 } },
  },
  { name: 'booleans compare by string form', items: [{ id: true }], match: ['id'], wanted: ['true'], want: { true: { id: true } } },
];

for (const row of rows) {
  test(`batch matching: ${row.name}`, () => {
    const answer: UpstreamOutcome = { kind: 'ok', body: row.items };
    const got = keyOutcomes(row.wanted, dottedReader(row.match), row.oneToMany === true ? 'all' : 'none', answer);
    assert.equal(got.length, row.wanted.length);
    assert.equal(got.matched, Object.keys(row.want).length);
    const found: Record<string, unknown> = {};
    row.wanted.forEach((k, i) => {
      const o = got[i]!;
      if (o.kind === 'ok' && !(Array.isArray(o.body) && o.body.length === 0)) found[k] = o.body;
      else assert.deepEqual(o, row.oneToMany ? { kind: 'ok', body: [] } : { kind: 'not-found' }, `key ${k} without an item`);
    });
    assert.deepEqual(found, row.want);
  });
}

test("batch matching: a failed answer is every key's outcome, in key order", () => {
  const failed: UpstreamOutcome = { kind: 'not-found', detail: 'stands for any outcome but ok' };
  const got = keyOutcomes(['1', '2', '3'], dottedReader(['id']), 'none', failed);
  assert.deepEqual([...got], [failed, failed, failed]);
  assert.equal(got.matched, 0);
});

test('settling a key whose entries differ in one-to-many: each takes its own value of its items', () => {
  const entry = (isList: boolean) => ({ outcome: undefined, fetch: { isList, batch: { listKeys: false } } }) as unknown as MemoEntry;
  const [list1, single1, list2, single2] = [entry(true), entry(false), entry(true), entry(false)];
  const group = { coordinate: 'T.f', fetch: { source: { name: 's' } }, batch: { readMatch: dottedReader(['id']), match: 'id' } };
  const chunk = {
    group,
    keys: ['1', '2'],
    entries: [list1, list2],
    more: new Map([
      [list1, [single1]],
      [list2, [single2]],
    ]),
    oneToMany: 'some',
    blocks: [],
  } as unknown as BatchChunk;
  settleBatchChunk(chunk, { kind: 'ok', body: [a1, a1again] });
  assert.deepEqual(list1.outcome, { kind: 'ok', body: [a1, a1again] });
  assert.deepEqual(single1.outcome, { kind: 'ok', body: a1 });
  assert.deepEqual(list2.outcome, { kind: 'ok', body: [] });
  assert.deepEqual(single2.outcome, { kind: 'not-found' });
});

/**
 * Settles the row's keys, each waited for by two memo entries (the second through the chunk's
 * `more`, as for a field whose batch key does not decide its entry), from the row's items. The
 * group also holds `otherKeys`, which another chunk asks: their entries must stay unsettled.
 */
function settled(row: Row, otherKeys: readonly string[]): Record<string, UpstreamOutcome | undefined> {
  const pairs = new Map<string, [MemoEntry, MemoEntry]>();
  for (const k of [...row.wanted, ...otherKeys]) pairs.set(k, [{ outcome: undefined } as MemoEntry, { outcome: undefined } as MemoEntry]);
  const group = {
    coordinate: 'T.f',
    fetch: { isList: row.oneToMany === true, source: { name: 's' } },
    batch: { listKeys: false, readMatch: dottedReader(row.match), match: row.match.join('.'), method: 'GET' },
    keys: [...pairs.keys()],
    entries: [...pairs.values()].map(([first]) => first),
  } as unknown as BatchGroup;
  const entries = row.wanted.map((k) => pairs.get(k)![0]);
  const chunk = {
    group,
    keys: [...row.wanted],
    entries,
    more: new Map([...pairs.values()].map(([first, second]) => [first, [second]])),
    oneToMany: row.oneToMany === true ? 'all' : 'none',
    blocks: [],
    path: '/t',
    body: undefined,
  } as unknown as BatchChunk;
  settleBatchChunk(chunk, { kind: 'ok', body: row.items });
  const out: Record<string, UpstreamOutcome | undefined> = {};
  for (const [k, [first, second]] of pairs) {
    assert.equal(first.outcome, second.outcome, `both entries of key ${k} settle alike`);
    out[k] = first.outcome;
  }
  return out;
}

for (const row of rows) {
  const expected = (): Record<string, UpstreamOutcome> => {
    const out: Record<string, UpstreamOutcome> = {};
    for (const k of row.wanted) {
      const v = row.want[k];
      out[k] = v !== undefined ? { kind: 'ok', body: v } : row.oneToMany ? { kind: 'ok', body: [] } : { kind: 'not-found' };
    }
    return out;
  };
  test(`settling a whole group: ${row.name}`, () => {
    assert.deepEqual(settled(row, []), expected());
  });
  test(`settling part of a group: ${row.name}`, () => {
    assert.deepEqual(settled(row, ['not-in-this-chunk']), { ...expected(), 'not-in-this-chunk': undefined });
  });
}
