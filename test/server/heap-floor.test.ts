/**
 * The production launch line's heap floor (README "Running in production", docs/performance.md
 * "The heap floor", "The young generation"): `node --initial-old-space-size=128 --max-semi-space-size=64 …/cli.js serve`. What it does to the tail
 * is measured by `npm run bench`, which starts every Node process with it; that it reaches every
 * worker of `--workers N` is asserted in test/scale/workers.test.ts, which starts with
 * NODE_FLAGS. Here: the flags live in one place, bench/rows.ts NODE_FLAGS, and `npm start` and the
 * README's launch line say the same.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { NODE_FLAGS } from '../../bench/rows.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FLAGS = NODE_FLAGS.join(' ');

test('the bench starts every Node process with the heap floor, npm start runs the example with it, and the README shows it', () => {
  assert.ok(
    /^--initial-old-space-size=\d+ --max-semi-space-size=\d+$/.test(FLAGS),
    `bench/rows.ts NODE_FLAGS: the heap floor, the young generation: ${FLAGS}`,
  );
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.match(pkg.scripts.start ?? '', new RegExp(`node ${FLAGS} dist/examples/start\\.js`));
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  assert.ok(readme.includes(`node ${FLAGS} node_modules/gqlgw/dist/gateway/cli.js serve`), 'README shows the production launch line');
});
