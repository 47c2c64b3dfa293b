/**
 * `npm run test:fuzz -- --cases N --seed S`: the property suite (suite.ts) for longer than `npm
 * test` runs it. Prints the cases run and the time; on a failure, fast-check's report (the seed
 * and path that replay it, the shrunk case, what differs) and exit code 1.
 */
import { parseArgs } from 'node:util';
import { runPropertySuite } from './suite.js';

const { values } = parseArgs({
  options: { cases: { type: 'string', default: '1000' }, seed: { type: 'string' } },
});
const cases = Number(values.cases);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
if (!Number.isInteger(cases) || cases < 1 || !Number.isInteger(seed)) {
  console.error('usage: npm run test:fuzz -- --cases N --seed S');
  process.exit(2);
}
console.log(`property suite: ${cases} cases from seed ${seed}`);
try {
  const result = await runPropertySuite({ cases, seed });
  console.log(`${result.cases} passed, 0 failed (${(result.ms / 1000).toFixed(1)} s)`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  console.log(`0 passed, 1 failed (seed ${seed})`);
  process.exit(1);
}
