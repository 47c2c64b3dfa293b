/**
 * Process entry of the open-loop driver:
 *   node dist/bench/driver/open-loop-cli.js URL RATE DURATION_SEC WARMUP_SEC EXPECTED_BODY_FILE
 * Prints one line `BENCH_OPEN {LoadResult JSON}`.
 */
import { readFileSync } from 'node:fs';
import { runOpenLoop } from './open-loop.js';

const [url, rate, duration, warmup, expectedFile] = process.argv.slice(2);
if (url === undefined || rate === undefined || duration === undefined || warmup === undefined || expectedFile === undefined) {
  process.stderr.write('usage: open-loop-cli.js URL RATE DURATION_SEC WARMUP_SEC EXPECTED_BODY_FILE\n');
  process.exit(2);
}
const result = await runOpenLoop({
  url,
  ratePerSec: Number(rate),
  durationSec: Number(duration),
  warmupSec: Number(warmup),
  expectedBody: readFileSync(expectedFile, 'utf8'),
});
process.stdout.write(`BENCH_OPEN ${JSON.stringify(result)}\n`);
