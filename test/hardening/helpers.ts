/** Small helpers shared by the hardening tests. */
import assert from 'node:assert/strict';
import type { GraphQLResult } from '../support/gateway.js';
import { parsePromText, sumOf } from '../support/prom-text.js';

export type ResultError = NonNullable<GraphQLResult['errors']>[number];

/** The one error at `path`; fails the test when there are none or several. */
export function errorAt(body: GraphQLResult, path: ReadonlyArray<string | number>): ResultError {
  const found = (body.errors ?? []).filter((e) => JSON.stringify(e.path) === JSON.stringify(path));
  assert.equal(found.length, 1, `one error at ${JSON.stringify(path)}; errors: ${JSON.stringify(body.errors)}`);
  return found[0]!;
}

/** The only error of a response that has no `data` (a request error), with its code. */
export function requestError(body: unknown): ResultError {
  const b = body as GraphQLResult | undefined;
  assert.ok(b && typeof b === 'object', `a JSON body, got ${JSON.stringify(body)}`);
  assert.equal('data' in b, false, `a request error has no data: ${JSON.stringify(b)}`);
  assert.equal(b.errors?.length, 1, `one error: ${JSON.stringify(b.errors)}`);
  return b.errors![0]!;
}

/**
 * The value of one Prometheus sample, e.g.
 * metricValue(text, 'gqlgw_upstream_errors_total', { source: 'users', code: 'UPSTREAM_TIMEOUT' }):
 * the sum over all series of `name` whose labels include the given ones (0 when none).
 */
export function metricValue(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number {
  return sumOf(parsePromText(text), name, { ...labels });
}

/** Waits until `check()` is true, polling every 10 ms, for at most `ms`; returns whether it became true. */
export async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}
