/**
 * The noise flag: a simple machine-speed check around every cell. This machine's cores run at
 * two paces about 1.6× apart, switching within seconds and invisible in /proc/stat
 * (docs/performance.md "Method"), so a cell measured on a slowed core reads as a slower server.
 * The check runs a fixed piece of Node work (JSON.parse + stringify of the blog's 100 posts,
 * 100 ms) in a process pinned to each core while nothing of the bench runs, and a cell is noisy
 * when the check before or after it found a core over SLOW_FACTOR × its usual time: the 20th
 * percentile of that core's checks so far in the run. Nothing is corrected or measured again; the
 * report marks the noisy cells.
 *
 *   node dist/bench/driver/noise.js probe    prints `BENCH_SPEED <µs per operation>`
 */
import { fileURLToPath } from 'node:url';
import { backendPost } from '../shared/data.js';
import { distEntry } from '../shared/paths.js';
import { LOAD_CORE, pinnedCommand, pinning, runForLine, SERVER_CORE, type StartedProcess } from './processes.js';
import { percentile } from './stats.js';

export const SLOW_FACTOR = 1.25;

/** µs per operation of the fixed work over `ms` (after a 30 ms warm-up). */
export function measureSpeed(ms = 100): number {
  const text = JSON.stringify(Array.from({ length: 100 }, (_, i) => backendPost(i + 1)));
  const run = (limit: number): number => {
    const start = performance.now();
    let ops = 0;
    for (; performance.now() - start < limit; ops += 16) for (let i = 0; i < 16; i++) JSON.stringify(JSON.parse(text));
    return ((performance.now() - start) * 1000) / ops;
  };
  run(30);
  return run(ms);
}

/** Every check of one run, per core; `check()` says whether a core is slowed now. */
export class NoiseCheck {
  private readonly seen: number[][] = [[], []];

  /** Records a reading of each core; true when one is over SLOW_FACTOR × its usual time. */
  observe(readings: readonly number[]): boolean {
    const slowed = readings.map((value, core) => {
      const seen = this.seen[core]!;
      seen.push(value);
      const sorted = [...seen].sort((a, b) => a - b);
      return value > SLOW_FACTOR * percentile(sorted, 20);
    });
    return slowed.includes(true);
  }

  /** Waits until `busy` are idle (a cell's last requests drained), then checks both cores; false when unpinned. */
  async check(busy: readonly StartedProcess[]): Promise<boolean> {
    if (!pinning()) return false;
    for (let tries = 0; tries < 20; tries++) {
      const before = busy.map((p) => p.cpuSeconds());
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (busy.every((p, i) => p.cpuSeconds() - before[i]! < 0.01)) break;
    }
    const probe = (core: number): Promise<number> =>
      runForLine(
        `speed check on core ${core}`,
        ...pinnedCommand(core, process.execPath, [distEntry('driver/noise.js'), 'probe']),
        'BENCH_SPEED ',
      ).then(Number);
    return this.observe(await Promise.all([probe(SERVER_CORE), probe(LOAD_CORE)]));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'probe') {
  process.stdout.write(`BENCH_SPEED ${measureSpeed().toFixed(3)}\n`);
}
