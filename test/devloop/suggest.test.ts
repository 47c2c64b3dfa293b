/** directives/suggest.ts: the one "did you mean" helper (edit distance at most 2, or a prefix). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closestName, didYouMean, editDistance } from '../../directives/suggest.js';

test('edit distance counts insertions, deletions, substitutions and neighbour swaps', () => {
  assert.equal(editDistance('fetch', 'fetch'), 0);
  assert.equal(editDistance('fetc', 'fetch'), 1);
  assert.equal(editDistance('userz', 'users'), 1);
  assert.equal(editDistance('ftech', 'fetch'), 1, 'a swap of neighbours is one edit');
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('abcdef', 'uvwxyz', 2), 3, 'stops past the limit');
});

test('the closest name within distance 2, a prefix, or a different case; nothing otherwise', () => {
  const directives = ['from', 'fetch', 'batch', 'cache', 'invalidate'];
  assert.equal(closestName('fetc', directives), 'fetch');
  assert.equal(closestName('Batch', directives), 'batch', 'case only');
  assert.equal(closestName('invalid', directives), 'invalidate', 'a prefix further than 2 edits');
  assert.equal(closestName('debug', ['host', 'port', 'debug_headers']), 'debug_headers');
  assert.equal(closestName('forward_header', ['url', 'forward_headers', 'timeout_ms']), 'forward_headers');
  assert.equal(closestName('source', ['gateway', 'sources', 'cache']), 'sources');
  assert.equal(closestName('zzz', directives), undefined);
  assert.equal(closestName('usr', ['posts', 'users']), 'users', 'two edits, whatever the length (SPEC: at most 2)');
  assert.equal(closestName('id', ['ids', 'to']), 'ids', 'one edit beats two');
  assert.equal(closestName('fetch', ['fetch']), undefined, 'the name itself is no suggestion');
  assert.equal(closestName('cach', ['catch', 'cache']), 'catch', 'ties go to the first listed');
});

test('didYouMean formats the suggestion as the user would type it', () => {
  assert.equal(
    didYouMean('authorID', ['authorId', 'author'], (n) => `{parent.${n}}`),
    '; did you mean "{parent.authorId}"?',
  );
  assert.equal(didYouMean('userz', ['users', 'posts']), '; did you mean "users"?');
  assert.equal(didYouMean('qqq', ['users']), '');
});
