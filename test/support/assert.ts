/** Assertions the tests share: each fails the test with a message that says what was missing. */
import assert from 'node:assert/strict';
import type { GraphQLResult } from './gateway.js';

export type ResultError = NonNullable<GraphQLResult['errors']>[number];

/** `list[index]`, failing the test when the list is shorter. */
export function item<T>(list: readonly T[] | undefined, index: number): T {
  const value = list?.[index];
  assert.ok(value !== undefined, `expected an item at index ${index}, the list has ${list?.length ?? 0}: ${JSON.stringify(list)}`);
  return value;
}

/** The one error at `path`; fails the test when there are none or several. */
export function errorAt(body: GraphQLResult, path: ReadonlyArray<string | number>): ResultError {
  const found = (body.errors ?? []).filter((e) => JSON.stringify(e.path) === JSON.stringify(path));
  assert.equal(found.length, 1, `one error at ${JSON.stringify(path)}; errors: ${JSON.stringify(body.errors)}`);
  return item(found, 0);
}

/** The only error of a response that has no `data` (a request error), with its code. */
export function requestError(body: unknown): ResultError {
  const b = body as GraphQLResult | undefined;
  assert.ok(b && typeof b === 'object', `a JSON body, got ${JSON.stringify(body)}`);
  assert.equal('data' in b, false, `a request error has no data: ${JSON.stringify(b)}`);
  assert.equal(b.errors?.length, 1, `one error: ${JSON.stringify(b.errors)}`);
  return item(b.errors, 0);
}
