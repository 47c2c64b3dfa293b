/**
 * Process entry of the machine-speed probe (speed-probe.ts), run pinned to one core:
 *   node dist/bench/driver/speed-probe-cli.js
 * Prints one line `BENCH_SPEED <µs per operation>`.
 */
import { measureSpeed, SPEED_LINE } from './speed-probe.js';

process.stdout.write(`${SPEED_LINE}${measureSpeed().toFixed(3)}\n`);
