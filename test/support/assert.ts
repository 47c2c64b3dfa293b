/** Assertions the tests share: each fails the test with a message that says what was missing. */
import assert from 'node:assert/strict';

/** `list[index]`, failing the test when the list is shorter. */
export function item<T>(list: readonly T[] | undefined, index: number): T {
  const value = list?.[index];
  assert.ok(value !== undefined, `expected an item at index ${index}, the list has ${list?.length ?? 0}: ${JSON.stringify(list)}`);
  return value;
}
