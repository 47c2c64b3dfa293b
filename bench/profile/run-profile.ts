/**
 * The CPU profile of one gqlgw variant: the real CLI process started with
 * `node --cpu-prof dist/gateway/cli.js serve ...`, verified, warmed up and loaded for one
 * 16-connection cell, then stopped with SIGTERM (the CLI exits cleanly, and V8 writes the
 * profile). The profile covers start-up, warm-up and the cell; start-up frames are set apart by
 * categorize.ts, and the CPU per query comes from /proc over the cell alone.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { verifyServer } from '../driver/verify.js';
import { runWrk } from '../driver/wrk.js';
import type { StartedProcess } from '../driver/processes.js';
import type { ProfileResult, Settings } from '../results.js';
import { startRow, type RowSpec } from '../rows.js';
import { BENCH_OUT_DIR } from '../shared/paths.js';
import { summarizeProfile, type CpuProfile } from './categorize.js';

export const PROFILE_DIR = join(BENCH_OUT_DIR, 'profile');

export async function profileGateway(row: RowSpec, backend: StartedProcess, settings: Settings): Promise<ProfileResult> {
  if (row.variant === undefined) throw new Error(`${row.id} is not a gqlgw row`);
  const dir = join(PROFILE_DIR, row.id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const gateway = await startRow(row, backend.url, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=1000']);
  let queries: number;
  let rps: number;
  let cpuSeconds: number;
  try {
    const verification = await verifyServer(gateway.url, backend.url);
    if (!verification.ok) throw new Error(`wrong answer: ${verification.reason}`);
    await runWrk(gateway.url, 16, settings.warmupSec, verification.body);
    const cpu0 = gateway.cpuSeconds();
    const load = await runWrk(gateway.url, 16, settings.durationSec, verification.body);
    cpuSeconds = gateway.cpuSeconds() - cpu0;
    queries = load.responses;
    rps = load.rps;
  } finally {
    await gateway.stop(20_000);
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no .cpuprofile in ${dir}: the gateway did not exit cleanly on SIGTERM`);
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  return {
    rowId: row.id,
    connections: 16,
    queries,
    rps,
    cpuSeconds,
    cpuMicrosPerQuery: queries > 0 ? (cpuSeconds * 1e6) / queries : Number.NaN,
    summary: summarizeProfile(profile),
    profileFile: join(dir, file),
  };
}
