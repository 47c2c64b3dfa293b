/**
 * Closed-loop load with wrk (Debian package `wrk`), pinned to the load core. Every response is
 * checked inside wrk: a Lua `response` hook compares the status and the whole body, byte for byte,
 * with the expected body of the request it answers, and counts mismatches; `done` prints the
 * counts and latency percentiles as JSON.
 *
 * wrk sends one exchange, the same request every time, from one thread; workloads of several
 * exchanges (one per key) run in driver/closed-loop.ts's keyed loop.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadResult } from '../results.js';
import { REQUEST_HEADERS } from '../shared/data.js';
import { BENCH_OUT_DIR, BENCH_SRC_DIR } from '../shared/paths.js';
import { LOAD_CORE, pinnedCommand, runForLine } from './processes.js';

export const WRK_MISSING_MESSAGE =
  'wrk is not installed. The benchmark drives closed-loop load with wrk (Debian package "wrk").\n' +
  'Install it with:  apt-get install -y wrk   (run apt-get update first on a fresh machine), then rerun npm run bench.';

/** The installed wrk's version line; throws WRK_MISSING_MESSAGE when wrk is not on PATH. */
export function checkWrk(): string {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined) throw new Error(WRK_MISSING_MESSAGE);
  return `${probe.stdout ?? ''}${probe.stderr ?? ''}`.split('\n')[0]?.replace(/\s*Copyright.*$/, '') ?? '';
}

/** What wrk sends and the exact body the answer must be. */
export interface Exchange {
  readonly request: string;
  readonly expected: string;
}

/** A Lua string literal of printable-ASCII `text` (JSON's escapes are Lua's for it). */
function lua(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new Error(`wrk script: not printable ASCII: ${text.slice(0, 80)}`);
  return JSON.stringify(text);
}

/** The data file of check.lua: the exchanges, the request headers and where to write the first wrong answer. */
export function wrkData(exchanges: readonly Exchange[], samplePath: string): string {
  const list = (texts: readonly string[]): string => `{${texts.map(lua).join(',\n')}}`;
  const headers = Object.entries(REQUEST_HEADERS).map(([k, v]) => `[${lua(k)}] = ${lua(v)}`);
  return `requests = ${list(exchanges.map((e) => e.request))}
expected = ${list(exchanges.map((e) => e.expected))}
headers = {${headers.join(', ')}}
sample_path = ${lua(samplePath)}
`;
}

let scriptCounter = 0;

/** Runs wrk against `url` for `durationSec` with `connections` (one thread), checking every body against the one exchange's. */
export async function runWrk(url: string, connections: number, durationSec: number, exchanges: readonly Exchange[]): Promise<LoadResult> {
  if (exchanges.length !== 1) throw new Error(`wrk sends one exchange, not ${exchanges.length}: use driver/closed-loop.ts`);
  mkdirSync(BENCH_OUT_DIR, { recursive: true });
  const id = `${process.pid}-${scriptCounter++}`;
  const dataPath = join(BENCH_OUT_DIR, `wrk-${id}.lua`);
  const samplePath = join(BENCH_OUT_DIR, `wrk-${id}.wrong.txt`);
  writeFileSync(dataPath, wrkData(exchanges, samplePath));
  const wrkArgs = ['-t1', `-c${connections}`, `-d${durationSec}s`, '--timeout', '10s', '-s', join(BENCH_SRC_DIR, 'driver/check.lua'), url];
  const line = await runForLine(
    'wrk',
    ...pinnedCommand(LOAD_CORE, 'env', [`BENCH_WRK_DATA=${dataPath}`, 'wrk', ...wrkArgs]),
    'BENCH_WRK ',
  ).finally(() => rmSync(dataPath, { force: true }));
  const r = JSON.parse(line) as Record<string, number>;
  const sample = existsSync(samplePath) ? readFileSync(samplePath, 'utf8') : undefined;
  rmSync(samplePath, { force: true });
  const wrongSample = sample ?? (r.errors! > 0 ? `${r.errors} socket errors or timeouts` : undefined);
  const seconds = r.duration_us! / 1e6;
  return {
    responses: r.requests!,
    durationSec: seconds,
    rps: r.requests! / seconds,
    avgMs: r.mean_us! / 1000,
    p50Ms: r.p50_us! / 1000,
    p99Ms: r.p99_us! / 1000,
    maxMs: r.max_us! / 1000,
    wrong: r.wrong! + r.errors!,
    wrongSample,
  };
}
