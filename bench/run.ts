/**
 * `npm run bench`: the whole benchmark in one run. See bench/README.md for what each row and
 * column is. Phases: closed loop (wrk at 16, 1 and 64 connections) for every row, run after run;
 * open loop at 50/80/100 % of each row's closed-loop maximum; CPU profiles of gqlgw (batch, batch + cache);
 * then bench/RESULTS.md. Settings: BENCH_DURATION, BENCH_RUNS, BENCH_SECONDARY, BENCH_WARMUP,
 * BENCH_PACE_WAIT, BENCH_PACE_BUDGET, BENCH_WAIT_IDLE, BENCH_QUICK=1, BENCH_ROWS=id,id, BENCH_RESULTS=path.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join, resolve, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BACKEND_DELAY_MS } from './backend.js';
import { backendRequestCount } from './driver/backend-stats.js';
import type { LoadResult } from './driver/cell.js';
import { coreBusyPct, readCoreTimes } from './driver/core-load.js';
import { LOAD_CORE, SERVER_CORE, pinnedCommand, pinning, pinSelf, runForLine, type StartedProcess } from './driver/processes.js';
import { measureAtUsualPace, PaceGate, type PaceWait } from './driver/pace-gate.js';
import { probeCores } from './driver/speed-probe.js';
import { verifyServer } from './driver/verify.js';
import { checkWrk, runWrk, warmUp, DEFAULT_WARMUP_SEC, WARMUP_SEGMENT_SEC } from './driver/wrk.js';
import { warmBackend } from './driver/backend-warmup.js';
import { gatewayTimings, scrapeMetrics } from './driver/metrics.js';
import { collectEnvironment, gatewayBuildFingerprint } from './environment.js';
import { profileGateway } from './profile/run-profile.js';
import { renderResults } from './report/render.js';
import {
  CLOSED_CONNECTIONS,
  OPEN_PERCENTS,
  type BenchResults,
  type CellKey,
  type CellRun,
  type CoreSpeeds,
  type RowResult,
  type Settings,
} from './results.js';
import { ROWS, ROW_IDS, NODE_FLAGS, measureOrder, startBackend, startRow, type RowSpec } from './rows.js';
import { BENCH_OUT_DIR, BENCH_SRC_DIR, ROOT_DIR, distEntry } from './shared/paths.js';
import { writeVariantSchemas } from './variants.js';

function envNumber(name: string, fallback: number, zeroAllowed = false): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zeroAllowed)) {
    throw new Error(`${name} must be a ${zeroAllowed ? 'non-negative' : 'positive'} number, got "${raw}"`);
  }
  return value;
}

function readSettings(): Settings {
  const quick = process.env.BENCH_QUICK === '1';
  const durationSec = Math.round(envNumber('BENCH_DURATION', quick ? 2 : 10));
  return {
    quick,
    durationSec,
    runs: Math.round(envNumber('BENCH_RUNS', quick ? 1 : 3)),
    secondaryDurationSec: Math.round(envNumber('BENCH_SECONDARY', quick ? 1 : Math.max(1, Math.round(durationSec * 0.3)))),
    warmupSec: Math.round(envNumber('BENCH_WARMUP', quick ? 1 : DEFAULT_WARMUP_SEC)),
    pinned: pinning(),
    backendDelayMs: BACKEND_DELAY_MS,
    paceWaitSec: envNumber('BENCH_PACE_WAIT', quick ? 0 : 60, true),
    paceBudgetSec: envNumber('BENCH_PACE_BUDGET', quick ? 0 : 600, true),
  };
}

function selectedRows(): RowSpec[] {
  const filter = process.env.BENCH_ROWS;
  if (filter === undefined || filter === '') return [...ROWS];
  const ids = filter.split(',').map((s) => s.trim());
  const unknown = ids.filter((id) => !(ROW_IDS as readonly string[]).includes(id));
  if (unknown.length > 0) throw new Error(`BENCH_ROWS: unknown row(s) ${unknown.join(', ')}; rows are ${ROW_IDS.join(', ')}`);
  return ROWS.filter((r) => ids.includes(r.id));
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

const fmt = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : '–');

/** Measures one cell: the load plus backend requests and CPU of server and backend around it. */
async function measure(
  server: StartedProcess,
  backend: StartedProcess,
  load: () => Promise<LoadResult>,
  metricsUrl?: string,
): Promise<CellRun> {
  const metrics0 = metricsUrl === undefined ? undefined : await scrapeMetrics(metricsUrl).catch(() => undefined);
  const requests0 = await backendRequestCount(backend.url);
  const cores0 = readCoreTimes();
  const server0 = server.cpuSeconds();
  const backend0 = backend.cpuSeconds();
  const t0 = performance.now();
  const result = await load();
  const wallSec = (performance.now() - t0) / 1000;
  const cores1 = readCoreTimes();
  const serverCpuPct = ((server.cpuSeconds() - server0) / wallSec) * 100;
  const requests1 = await backendRequestCount(backend.url);
  const metrics1 = metricsUrl === undefined || metrics0 === undefined ? undefined : await scrapeMetrics(metricsUrl).catch(() => undefined);
  return {
    ...result,
    gatewayTimings: metrics0 && metrics1 ? gatewayTimings(metrics0, metrics1, result.requestsSent ?? result.responses) : undefined,
    otherLoadOnServerCorePct: Math.max(0, coreBusyPct(cores0, cores1, SERVER_CORE) - serverCpuPct),
    subrequestsPerQuery: (requests1 - requests0) / (result.requestsSent ?? result.responses),
    serverCpuPct,
    backendCpuPct: ((backend.cpuSeconds() - backend0) / wallSec) * 100,
  };
}

/** Seconds each open-loop cell sends at its rate before measuring (driver and server warm-up). */
const OPEN_LOOP_WARMUP_SEC = 1;

/** One open-loop cell: requests per second, for how long, after how long a warm-up. */
interface OpenLoopCell {
  readonly rate: number;
  readonly durationSec: number;
  readonly warmupSec: number;
}

function runOpenLoopProcess(url: string, cell: OpenLoopCell, expectedFile: string): Promise<LoadResult> {
  const { rate, durationSec, warmupSec } = cell;
  const [command, args] = pinnedCommand(LOAD_CORE, process.execPath, [
    ...NODE_FLAGS,
    distEntry('driver/open-loop-cli.js'),
    url,
    String(rate),
    String(durationSec),
    String(warmupSec),
    expectedFile,
  ]);
  return runForLine('open-loop driver', command, args, 'BENCH_OPEN ').then((line) => JSON.parse(line) as LoadResult);
}

/** Starts a row and verifies its answer; records the failure and returns undefined when it cannot be measured. */
async function startVerified(
  row: RowSpec,
  result: RowResult,
  backend: StartedProcess,
): Promise<{ server: StartedProcess; expectedBody: string } | undefined> {
  let server: StartedProcess;
  try {
    server = await startRow(row, backend.url);
  } catch (error) {
    result.failures.push(`start-up: ${String(error instanceof Error ? error.message : error).slice(0, 1500)}`);
    log(`  ${row.label}: could not start (${String(error).split('\n')[0]})`);
    return undefined;
  }
  const verification = await verifyServer(server.url, backend.url).catch((error: unknown) => ({
    ok: false as const,
    reason: String(error),
  }));
  if (!verification.ok) {
    result.failures.push(`verification: ${verification.reason}`);
    log(`  ${row.label}: WRONG ANSWER, not measured: ${verification.reason}`);
    await server.stop();
    return undefined;
  }
  result.verification = { first: verification.subrequestsFirst, later: verification.subrequestsLater };
  return { server, expectedBody: verification.body };
}

/** Records a cell with its run and what the pace gate did around it. */
function pushCell(result: RowResult, key: CellKey, cell: CellRun, at: { run: number; pace: PaceWait | undefined }): void {
  const { run, pace } = at;
  (result.cells[key] ??= []).push(pace === undefined ? { ...cell, run } : { ...cell, run, pace });
}

/**
 * One cell measured between two probes at the usual pace (bench/driver/pace-gate.ts), again when
 * a core slowed; logged when the gate waited or measured again. Unpinned, the cell is measured once.
 */
async function gatedCell(
  pass: RunPass,
  session: { readonly row: RowSpec; readonly busy: readonly StartedProcess[] },
  what: string,
  once: () => Promise<CellRun>,
): Promise<{ cell: CellRun; pace: PaceWait | undefined }> {
  const { row, busy } = session;
  if (!pinning()) return { cell: await once(), pace: undefined };
  const probe = async (): Promise<CoreSpeeds | undefined> => {
    await untilIdle(busy);
    return probeSpeed(row.label);
  };
  const { result, pace } = await measureAtUsualPace(pass.gate, { probe, maxWaitSec: pass.settings.paceWaitSec ?? 0 }, once);
  if (pace.waitedSec > 0 || pace.slow || (pace.attempts ?? 1) > 1) {
    const times = pace.attempts === 1 ? 'once' : `${pace.attempts} times`;
    log(
      `  [pace   ${pass.run}] ${row.label} ${what}: waited ${fmt(pace.waitedSec, 0)} s, measured ${times}${pace.slow ? (pace.attempts === 1 ? ', a core slowed: kept, marked' : ', a core slowed each time: kept the last, marked') : ''}`,
    );
  }
  return { cell: result, pace };
}

/** A process under this share of a core over one IDLE_SAMPLE_MS sample is idle. */
const IDLE_CPU_SHARE = 0.1;
const IDLE_SAMPLE_MS = 100;
/** How long untilIdle waits at most. */
const IDLE_MAX_MS = 3000;

/**
 * Waits until every process given is idle (a cell's requests still in flight have drained, which
 * takes ~0.4 s for the no-batch rows at 64 connections), so a probe reads the machine, not them.
 */
async function untilIdle(processes: readonly StartedProcess[]): Promise<void> {
  const deadline = performance.now() + IDLE_MAX_MS;
  for (;;) {
    const before = processes.map((p) => p.cpuSeconds());
    await sleep(IDLE_SAMPLE_MS);
    const busy = processes.some((p, i) => (p.cpuSeconds() - before[i]!) * 1000 > IDLE_CPU_SHARE * IDLE_SAMPLE_MS);
    if (!busy || performance.now() > deadline) return;
  }
}

/** One pass over the rows: the settings, the run's number and the pace gate it shares. */
interface RunPass {
  readonly settings: Settings;
  readonly run: number;
  readonly gate: PaceGate;
}

/**
 * One run of one row, in one server session: start, verify, warm up, closed loop at 16, 1 and 64
 * connections, then open loop at 50/80/100 % of this run's closed-loop maximum (the higher of
 * the 16- and 64-connection req/s), then stop.
 */
async function runRow(row: RowSpec, result: RowResult, backend: StartedProcess, pass: RunPass): Promise<void> {
  const { settings, run } = pass;
  const before = await probeSpeed(row.label);
  if (before !== undefined) pass.gate.observe(before);
  const started = await startVerified(row, result, backend);
  if (started === undefined) return;
  const { server, expectedBody } = started;
  const tag = `${run}/${settings.runs}] ${row.label.padEnd(38)}`;
  /** gqlgw serves Prometheus metrics beside /graphql ([metrics] path = "/metrics" in bench/*.toml). */
  const metricsUrl = row.variant === undefined ? undefined : server.url.replace(/\/graphql$/, '/metrics');
  try {
    const warmup = await warmUp(server.url, settings.warmupSec, expectedBody);
    result.warmups.push(warmup);
    log(`  [warm-up ${tag}: ${warmup.rps.map((r) => fmt(r, 0)).join(' → ')} req/s per ${WARMUP_SEGMENT_SEC} s  wrong ${warmup.wrong}`);
    const closedRps: number[] = [];
    for (const connections of CLOSED_CONNECTIONS) {
      const duration = connections === 16 ? settings.durationSec : settings.secondaryDurationSec;
      const { cell, pace } = await gatedCell(pass, { row, busy: [server, backend] }, `c=${connections}`, () =>
        measure(server, backend, () => runWrk(server.url, connections, duration, expectedBody), metricsUrl),
      );
      pushCell(result, `c${connections}`, cell, { run, pace });
      if (connections !== 1) closedRps.push(cell.rps);
      log(
        `  [closed ${tag} c=${String(connections).padStart(2)}: ${fmt(cell.rps, 0).padStart(6)} req/s  p50 ${fmt(cell.p50Ms, 2)} ms  p99 ${fmt(cell.p99Ms, 2)} ms  subreq/q ${fmt(cell.subrequestsPerQuery, 2)}  wrong ${cell.wrong}  cpu ${fmt(cell.serverCpuPct, 0)}%/${fmt(cell.backendCpuPct, 0)}%  other ${fmt(cell.otherLoadOnServerCorePct, 0)}%`,
      );
    }
    const maximum = Math.max(...closedRps);
    const expectedFile = join(BENCH_OUT_DIR, `expected-${row.id}.json`);
    writeFileSync(expectedFile, expectedBody);
    for (const percent of OPEN_PERCENTS) {
      const rate = Math.max(1, Math.round((maximum * percent) / 100));
      const { cell, pace } = await gatedCell(pass, { row, busy: [server, backend] }, `open ${percent}%`, () =>
        measure(server, backend, () =>
          runOpenLoopProcess(
            server.url,
            { rate, durationSec: settings.secondaryDurationSec, warmupSec: OPEN_LOOP_WARMUP_SEC },
            expectedFile,
          ),
        ),
      );
      pushCell(result, `open${percent}`, cell, { run, pace });
      log(
        `  [open   ${tag} ${String(percent).padStart(3)}% = ${fmt(rate, 0).padStart(6)}/s: got ${fmt(cell.rps, 0).padStart(6)}  p50 ${fmt(cell.p50Ms, 2)} ms  p99 ${fmt(cell.p99Ms, 2)} ms  wrong ${cell.wrong}  send lag p99 ${fmt(cell.sendLagP99Ms ?? Number.NaN, 2)} ms  other ${fmt(cell.otherLoadOnServerCorePct, 0)}%`,
      );
    }
  } catch (error) {
    result.failures.push(`run ${run}: ${String(error).slice(0, 1500)}`);
    log(`  ${row.label}: run ${run} failed: ${String(error).split('\n')[0]}`);
  } finally {
    result.peakRssMiB.push(server.peakRssMiB());
    await server.stop();
  }
  // The stopped server has exited; the backend may still be closing its side of the sockets.
  await untilIdle([backend]);
  const after = await probeSpeed(row.label);
  if (after !== undefined) pass.gate.observe(after);
  if (before === undefined || after === undefined) return;
  result.speed?.push({ run, before, after });
  const us = (a: number, b: number): string => `${fmt(a, 1)} → ${fmt(b, 1)}`;
  log(
    `  [speed  ${tag}: µs per probe operation, server core ${us(before.serverCore, after.serverCore)}, load core ${us(before.loadCore, after.loadCore)}`,
  );
}

/** Both cores' speed (bench/driver/speed-probe.ts) while no server runs; undefined (and logged, for `who`) when the probe fails. */
async function probeSpeed(who: string): Promise<CoreSpeeds | undefined> {
  if (!pinning()) return undefined;
  try {
    const [serverCore, loadCore] = await probeCores([SERVER_CORE, LOAD_CORE]);
    return { serverCore: serverCore!, loadCore: loadCore! };
  } catch (error) {
    log(`  ${who}: speed probe failed: ${String(error).split('\n')[0]}`);
    return undefined;
  }
}

/** Probes of the idle machine before the run: the pace gate's first reference. */
const CALIBRATION_PROBES = 5;

/** A pace gate with a first reference: CALIBRATION_PROBES probes of the idle machine, a second apart. */
async function calibratePaceGate(budgetSec: number): Promise<PaceGate> {
  const gate = new PaceGate(budgetSec);
  const probes: CoreSpeeds[] = [];
  for (let i = 0; i < CALIBRATION_PROBES; i++) {
    if (i > 0) await sleep(1000);
    const speeds = await probeSpeed('pace before the run');
    if (speeds === undefined) break;
    probes.push(speeds);
    gate.observe(speeds);
  }
  if (probes.length > 0) {
    const list = (core: keyof CoreSpeeds): string => probes.map((p) => fmt(p[core], 1)).join(', ');
    log(`Pace before the run (µs per probe operation): server core ${list('serverCore')}; load core ${list('loadCore')}.`);
  }
  return gate;
}

type IdleCheck = NonNullable<BenchResults['idleCheck']>;

const isBusy = (c: IdleCheck): boolean => c.core0Pct > 10 || c.core1Pct > 10;

/** Core load over 2 s; while other processes keep a core over 10 % busy, waits (up to `maxWaitSec`). */
async function waitForQuietMachine(maxWaitSec: number): Promise<IdleCheck> {
  const deadline = performance.now() + maxWaitSec * 1000;
  for (;;) {
    const before = readCoreTimes();
    await sleep(2000);
    const after = readCoreTimes();
    const check = { seconds: 2, core0Pct: coreBusyPct(before, after, 0), core1Pct: coreBusyPct(before, after, 1) };
    if (!isBusy(check) || performance.now() > deadline) return check;
    log(
      `The machine is busy (core 0 ${fmt(check.core0Pct, 0)} %, core 1 ${fmt(check.core1Pct, 0)} %): waiting for it to quiet down (BENCH_WAIT_IDLE=${maxWaitSec} s at most).`,
    );
    await sleep(3000);
  }
}

async function main(): Promise<void> {
  const startedAt = performance.now();
  let wrkVersion: string;
  try {
    wrkVersion = checkWrk();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const settings = readSettings();
  const buildAtStart = gatewayBuildFingerprint();
  const rows = selectedRows();
  pinSelf(LOAD_CORE);
  mkdirSync(BENCH_OUT_DIR, { recursive: true });
  writeVariantSchemas(BENCH_SRC_DIR);
  /** Start-up, verification and the two speed probes (0.3 s each, plus a process start). */
  const startUpSec = 2.3;
  const closedPerRow = startUpSec + settings.warmupSec + settings.durationSec + 2 * settings.secondaryDurationSec;
  const openPerRow = OPEN_PERCENTS.length * (OPEN_LOOP_WARMUP_SEC + settings.secondaryDurationSec + 0.7);
  /** The pace gate's probes before and after each of the six cells, when it need not wait or measure again. */
  const gatePerRow = pinning() ? (CLOSED_CONNECTIONS.length + OPEN_PERCENTS.length) * 2 * 0.45 : 0;
  const perRowRun = closedPerRow + openPerRow + gatePerRow;
  const estimate = (perRowRun * rows.length * settings.runs + 2 * (settings.durationSec + settings.warmupSec + 5)) / 60;
  log(
    `gqlgw benchmark: ${rows.length} rows x ${settings.runs} runs, ${settings.durationSec} s per 16-connection cell, ${settings.secondaryDurationSec} s per other cell; about ${fmt(estimate, 0)} min${gatePerRow > 0 && (settings.paceBudgetSec ?? 0) > 0 ? `, plus up to ${settings.paceBudgetSec ?? 0} s of waits for the usual pace and cells measured again` : ''}.`,
  );
  log(
    settings.pinned
      ? `Pinning: server under test on core 0; backend, wrk, open-loop driver and this runner on core ${LOAD_CORE}.`
      : 'Pinning: taskset or a second core is missing, processes run unpinned (ratios are less fair).',
  );
  if (!existsSync(resolve(ROOT_DIR, 'dist/gateway/cli.js'))) log('dist/gateway/cli.js is missing: the gqlgw rows will fail to start.');

  const idleCheck = await waitForQuietMachine(envNumber('BENCH_WAIT_IDLE', 60));
  log(
    `Machine load before the run: core 0 ${fmt(idleCheck.core0Pct, 0)} %, core 1 ${fmt(idleCheck.core1Pct, 0)} % busy${isBusy(idleCheck) ? ' (not idle: other processes will disturb the numbers)' : ''}.`,
  );

  const gate = await calibratePaceGate(settings.paceBudgetSec ?? 0);
  const backend = await startBackend();
  const warmed = await warmBackend(backend.url, settings.warmupSec);
  log(
    warmed > 0
      ? `Backend warmed up: ${warmed} requests answered in ${settings.warmupSec} s, before the first row.`
      : `The backend answered none of its warm-up requests in ${settings.warmupSec} s: every row will fail its verification.`,
  );

  const results = new Map<string, RowResult>(
    rows.map((r) => [r.id, { id: r.id, label: r.label, failures: [], cells: {}, peakRssMiB: [], warmups: [], speed: [] }]),
  );
  const profiles: Array<BenchResults['profiles'][number]> = [];
  try {
    log('\nClosed loop (wrk) and open loop (Node driver, own HTTP client, latency from scheduled send time), row by row, run by run');
    for (let run = 1; run <= settings.runs; run++) {
      for (const row of measureOrder(rows, run)) await runRow(row, results.get(row.id) as RowResult, backend, { settings, run, gate });
    }
    for (const profiledRow of rows.filter((r) => r.id === 'gqlgw-batch' || r.id === 'gqlgw-batch-cache')) {
      log(`\nProfile of ${profiledRow.label}`);
      const profile = await profileGateway(profiledRow, backend, settings).catch((error: unknown) => ({
        rowId: profiledRow.id,
        error: String(error),
      }));
      profiles.push(profile);
      log(
        'error' in profile
          ? `  profile failed: ${profile.error.split('\n')[0]}`
          : `  profiled ${profile.queries} queries, ${fmt(profile.cpuMicrosPerQuery, 0)} µs CPU per query`,
      );
    }
  } finally {
    await backend.stop();
  }

  const environment = collectEnvironment(wrkVersion);
  const data: BenchResults = {
    settings,
    environment,
    rows: [...results.values()],
    profiles,
    idleCheck,
    paceBudgetLeftSec: pinning() ? gate.remainingSec : undefined,
    elapsedSec: (performance.now() - startedAt) / 1000,
    buildChangedDuringRun: gatewayBuildFingerprint() !== buildAtStart,
  };
  if (data.buildChangedDuringRun)
    log('Warning: dist/gateway was rebuilt during the run (someone compiled the shared tree); the gqlgw rows may mix two builds.');
  writeFileSync(join(BENCH_OUT_DIR, 'results.json'), JSON.stringify(data, null, 2));
  const defaultOut = settings.quick || process.env.BENCH_ROWS ? join(BENCH_OUT_DIR, 'RESULTS.md') : join(BENCH_SRC_DIR, 'RESULTS.md');
  const outFile = process.env.BENCH_RESULTS ? resolve(process.env.BENCH_RESULTS) : defaultOut;
  writeFileSync(outFile, renderResults(data));
  log(
    `\nWrote ${relative(ROOT_DIR, outFile)} and ${relative(ROOT_DIR, join(BENCH_OUT_DIR, 'results.json'))} in ${fmt(data.elapsedSec / 60, 1)} min.`,
  );
}

await main();
