/**
 * execute/send/result-store.ts: where a request's lookups put their outcomes for the writer and the
 * shaper. Reads in claim order take the next claim without hashing; every other read (out of
 * order, a repeated parent, a parent never claimed) must still find the right slot, and a checked
 * claim must refuse a (parent, field) claimed before, however it was claimed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { ResultStore } from '../../gateway/execute/send/result-store.js';
import type { FieldOutcome, UpstreamOutcome } from '../../gateway/upstream/outcome.js';

const [authorNode, tagsNode] = (parse('{ author tags }').definitions[0] as OperationDefinitionNode).selectionSet.selections as FieldNode[];
const ok = (body: unknown): { outcome: UpstreamOutcome } => ({ outcome: { kind: 'ok', body } });
const bodyOf = (o: FieldOutcome | undefined): unknown => (o?.kind === 'ok' ? o.body : o);

describe('result store', () => {
  test('reads in claim order, out of order, and again each find their own slot', () => {
    const store = new ResultStore();
    const parents = Array.from({ length: 50 }, (_, i) => ({ i }));
    for (const p of parents) store.claimNew(p, authorNode!, ok(`a${p.i}`));
    for (const p of parents) assert.equal(bodyOf(store.get(p, authorNode!)), `a${p.i}`, 'in order');
    for (const p of [...parents].reverse()) assert.equal(bodyOf(store.get(p, authorNode!)), `a${p.i}`, 'reversed');
    for (const p of [parents[7]!, parents[3]!, parents[4]!, parents[5]!, parents[49]!, parents[0]!])
      assert.equal(bodyOf(store.get(p, authorNode!)), `a${p.i}`, 'jumps, then in order from there');
  });

  test('a parent never claimed, or another field of a claimed parent, reads nothing', () => {
    const store = new ResultStore();
    const [a, b, stranger] = [{}, {}, {}];
    store.claimNew(a, authorNode!, ok('A'));
    store.claimNew(b, authorNode!, ok('B'));
    assert.equal(store.get(stranger, authorNode!), undefined);
    assert.equal(store.get(a, tagsNode!), undefined);
    assert.equal(bodyOf(store.get(a, authorNode!)), 'A');
    assert.equal(bodyOf(store.get(b, authorNode!)), 'B');
  });

  test('a checked claim refuses a parent claimed before, unchecked or checked, before and after reads', () => {
    const store = new ResultStore();
    const [a, b, c] = [{}, {}, {}];
    store.claimNew(a, authorNode!, ok('A'));
    assert.equal(store.claim(a, authorNode!, ok('again')), false, 'claimed unchecked before');
    assert.equal(store.claim(b, authorNode!, ok('B')), true);
    assert.equal(store.claim(b, authorNode!, ok('again')), false, 'claimed checked before');
    store.claimNew(c, authorNode!, ok('C')); // appended after the index was made: it must be in it
    assert.equal(store.claim(c, authorNode!, ok('again')), false, 'claimed after the index was made');
    assert.equal(store.claim(a, tagsNode!, ok('tags of a')), true, 'another field of the same parent is its own claim');
    assert.deepEqual(
      [a, b, c, a].map((p) => bodyOf(store.get(p, authorNode!))),
      ['A', 'B', 'C', 'A'],
      'the first claim of each parent is the one read, also for a parent read twice',
    );
    assert.equal(bodyOf(store.get(a, tagsNode!)), 'tags of a');
  });

  test('a slot answered after its claim is read with its outcome', () => {
    const store = new ResultStore();
    const p = {};
    const slot: { outcome: UpstreamOutcome | undefined } = { outcome: undefined };
    store.claimNew(p, authorNode!, slot);
    assert.equal(store.get(p, authorNode!), undefined, 'not answered yet');
    slot.outcome = { kind: 'not-found' };
    assert.deepEqual(store.get(p, authorNode!), { kind: 'not-found' });
  });
});
