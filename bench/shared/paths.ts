/** Where things are, resolved from this compiled module (dist/bench/shared/paths.js). */
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';

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
