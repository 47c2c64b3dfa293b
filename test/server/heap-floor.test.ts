/**
 * The production launch line's heap floor (README "Running in production", docs/performance.md
 * "The heap floor"): `node --initial-old-space-size=128 …/cli.js serve`. What it does to the tail
 * is measured by `npm run bench`, which starts every Node process with it; that it reaches every
 * worker of `--workers N` is asserted in test/scale/workers.test.ts. Here: the line is the same
 * everywhere it is written.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { NODE_FLAGS } from '../../bench/rows.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const HEAP_FLOOR = '--initial-old-space-size=128';

test('the bench starts every Node process with the heap floor, npm start runs the example with it, and the README shows it', () => {
  assert.deepEqual(NODE_FLAGS, [HEAP_FLOOR], 'bench/rows.ts NODE_FLAGS');
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.match(pkg.scripts.start ?? '', new RegExp(`node ${HEAP_FLOOR} dist/examples/start\\.js`));
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  assert.ok(readme.includes(`node ${HEAP_FLOOR} node_modules/gqlgw/dist/gateway/cli.js serve`), 'README shows the production launch line');
  assert.ok(
    readFileSync(path.join(ROOT, 'test/scale/workers.test.ts'), 'utf8').includes(`'${HEAP_FLOOR}'`),
    'the workers test starts with the same line',
  );
});
