/**
 * The property suite in `npm test`: a fixed seed and a budget of cases (docs/testing.md, "The
 * property suite"); `npm run test:fuzz -- --cases N --seed S` runs it longer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runPropertySuite } from './suite.js';

const SEED = 4545;
const CASES = 45;

test(`one answer whatever the optimisations: ${CASES} generated cases from seed ${SEED}`, async () => {
  const result = await runPropertySuite({ cases: CASES, seed: SEED });
  assert.ok(result.cases >= CASES, `ran ${result.cases} cases`);
});
