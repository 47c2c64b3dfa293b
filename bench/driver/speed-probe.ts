/**
 * The machine-speed probe: how fast each core runs a fixed piece of Node work right before and
 * right after every server session, while nothing of the bench runs on it.
 *
 * Why: the project's machine is a VM whose cores run at two paces about 1.6× apart, switching
 * within seconds and sometimes staying slow for minutes (docs/performance.md "The machine's
 * pace"), and that is invisible from inside: /proc/stat's steal stays 0 and no other process
 * shows up on the core. A row measured during such a spell reads as a slower server, and
 * a ratio or a tail taken across it compares the machine's moods, not code. The probe cannot
 * correct that; it shows it, so RESULTS.md can name the sessions measured on a slowed machine.
 *
 * The work is what the servers under test do most: JSON.parse and JSON.stringify of the
 * backend's 100 posts, which also allocates (so a slowed memory system shows, not only a slowed
 * ALU). It runs in its own process pinned to the core (speed-probe-cli.ts), 300 ms in all: a
 * warm-up, then slices of 20 ms whose median µs per operation is the result, so a GC or one
 * preemption in one slice does not move it.
 */
import { POSTS } from '../shared/data.js';
import { distEntry } from '../shared/paths.js';
import { pinnedCommand, runForLine } from './processes.js';
import { median } from './stats.js';

const WARMUP_MS = 60;
const SLICE_MS = 20;
const SLICES = 12;

/** µs per operation (parse + stringify of the posts), the median of SLICES slices after a warm-up. */
export function measureSpeed(): number {
  const text = JSON.stringify(POSTS);
  let sink = 0;
  const run = (ms: number): number => {
    const start = performance.now();
    let ops = 0;
    let now = start;
    while (now - start < ms) {
      for (let i = 0; i < 16; i++) sink += JSON.stringify(JSON.parse(text)).length;
      ops += 16;
      now = performance.now();
    }
    return ((now - start) * 1000) / ops;
  };
  run(WARMUP_MS);
  const slices = Array.from({ length: SLICES }, () => run(SLICE_MS));
  if (sink === 0) throw new Error('unreachable: the probe produced nothing');
  return median(slices);
}

/** The line speed-probe-cli.ts prints. */
export const SPEED_LINE = 'BENCH_SPEED ';

/** Runs the probe on each core at once, each in its own pinned process; µs per operation by core. */
export async function probeCores(cores: readonly number[]): Promise<number[]> {
  return Promise.all(cores.map((core) => probeCore(core)));
}

async function probeCore(core: number): Promise<number> {
  const [command, args] = pinnedCommand(core, process.execPath, [distEntry('driver/speed-probe-cli.js')]);
  const value = Number(await runForLine(`speed probe on core ${core}`, command, args, SPEED_LINE));
  if (!(value > 0)) throw new Error(`speed probe on core ${core} printed ${value}`);
  return value;
}
