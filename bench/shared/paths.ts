/** Where things are, resolved from this compiled module (dist/bench/shared/paths.js). */
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));

/** The repository root. */
export const ROOT_DIR = resolve(here, '../../..');
/** bench/ sources: schema, tomls, README, RESULTS.md. */
export const BENCH_SRC_DIR = resolve(ROOT_DIR, 'bench');
/** Compiled bench modules (dist/bench). */
export const BENCH_DIST_DIR = resolve(here, '..');
/** Scratch output of a run (git-ignored): wrk scripts, profiles, raw JSON. */
export const BENCH_OUT_DIR = resolve(BENCH_SRC_DIR, 'out');

/** The compiled entry of a bench process, e.g. distEntry('peers/ceiling.js'). */
export function distEntry(relative: string): string {
  return resolve(BENCH_DIST_DIR, relative);
}

/** Where driver/alloc-meter.ts writes what it counted in process `pid`, when asked with SIGUSR2. */
export const allocFile = (pid: number): string => join(tmpdir(), `gqlgw-bench-alloc-${pid}.json`);
