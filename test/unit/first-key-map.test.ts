/**
 * The two small containers of the request path's hot state (util/first-key-map.ts,
 * util/appended.ts): each must hold exactly what a Map or a pushed array would.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FirstKeyMap } from '../../gateway/util/first-key-map.js';
import { appended } from '../../gateway/util/appended.js';

test('FirstKeyMap answers every key as a Map would, the first one and those after it, by identity', () => {
  const keys = [{ n: 1 }, { n: 2 }, { n: 3 }];
  const map = new FirstKeyMap<object, string>();
  assert.equal(map.get(keys[0]!), undefined);
  keys.forEach((k, i) => map.add(k, `v${i}`));
  keys.forEach((k, i) => assert.equal(map.get(k), `v${i}`));
  assert.equal(map.get({ n: 1 }), undefined, 'an equal object is another key');
});

test('appended makes a one-element array from an empty one, then pushes onto the array it made', () => {
  const empty: number[] = [];
  const one = appended(empty, 1);
  assert.notEqual(one, empty);
  assert.deepEqual(empty, [], 'the empty array is left as it was');
  const two = appended(one, 2);
  assert.equal(two, one, 'later items go onto the same array');
  assert.deepEqual(two, [1, 2]);
});
