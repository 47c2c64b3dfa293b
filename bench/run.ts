/**
 * `npm run bench`: the whole benchmark in one run (bench/README.md says what each row, cell and
 * setting is). Per phase: its backend, then run after run every row once, each in a fresh server
 * session (start, verify, warm up, measure its cells with the noise flag around each, stop);
 * then bench/RESULTS.md and bench/out/results.json.
 *   npm run bench -- --only shared-batching     (or BENCH_ONLY=shared-batching): one phase (or a list: blog,revalidation)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { answerBackendRequest } from './backend.js';
import { NoiseCheck } from './driver/noise.js';
import { runOpenLoop } from './driver/open-loop.js';
import { LOAD_CORE, pinning, pinSelf, type StartedProcess } from './driver/processes.js';
import { serviceStats, verifyServer, type Probe } from './driver/verify.js';
import { runClosedLoad, warmUp } from './driver/closed-loop.js';
import { checkWrk, runWrk, type Exchange } from './driver/wrk.js';
import { runLive, type LiveResult } from './live.js';
import { renderResults } from './report.js';
import type { BenchResults, CellRun, LoadResult, RowResult, Settings } from './results.js';
import {
  BACKENDS,
  NODE_FLAGS,
  OTLP_SINK_PORT,
  PHASES,
  ROWS,
  SCALE_CONNECTIONS,
  measureOrder,
  startRow,
  startService,
  configProblem,
} from './rows.js';
import type { Phase, RowSpec } from './rows.js';
import {
  EXPECTED_ANSWER,
  LOOKUP_WORKLOADS,
  RECORD_COUNT,
  REQUEST_BODY,
  TINY_ANSWER,
  TINY_BODY,
  TINY_REQUEST,
  lookupRequest,
  type LookupWorkload,
} from './shared/data.js';
import { BENCH_OUT_DIR, BENCH_SRC_DIR, ROOT_DIR } from './shared/paths.js';

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Math.round(Number(raw));
  if (!(value > 0)) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

/** The phases named by `--only` or BENCH_ONLY (all by default), and the rows of BENCH_ROWS (all by default). */
function selection(): { phases: Phase[]; ids: string[] } {
  const at = process.argv.indexOf('--only');
  const phases = ((at >= 0 ? process.argv[at + 1] : process.env.BENCH_ONLY) || PHASES.join(',')).split(',');
  const ids = (process.env.BENCH_ROWS ?? '').split(',').filter((s) => s !== '');
  const known = [...PHASES, ...ROWS.map((r) => r.id)] as string[];
  const unknown = [...phases, ...ids].filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new Error(`unknown phase or row ${unknown.join(', ')}; they are ${known.join(', ')}`);
  return { phases: phases as Phase[], ids };
}

function readSettings(phases: Phase[]): Settings {
  const quick = process.env.BENCH_QUICK === '1';
  const durationSec = envNumber('BENCH_DURATION', quick ? 2 : 10);
  const secondaryDurationSec = envNumber('BENCH_SECONDARY', quick ? 1 : Math.max(1, Math.round(durationSec * 0.3)));
  const [warmupSec, runs] = [envNumber('BENCH_WARMUP', quick ? 2 : 8), envNumber('BENCH_RUNS', quick ? 1 : 3)];
  return { quick, durationSec, secondaryDurationSec, warmupSec, runs, pinned: pinning(), phases };
}

const log = (line: string): void => void process.stdout.write(`${line}\n`);
const fmt = (n: number | undefined, digits = 0): string => (n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : '–');

function environment(wrk: string): Record<string, string> {
  const git = (...args: string[]): string => spawnSync('git', args, { cwd: ROOT_DIR, encoding: 'utf8' }).stdout?.trim() ?? '';
  const dirty = git('status', '--porcelain', '--untracked-files=no', '--', 'gateway', 'directives') !== '';
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit: `${git('rev-parse', '--short', 'HEAD') || 'unknown'}${dirty ? ' (gateway sources modified)' : ''}`,
    machine: `${cpus()[0]?.model.trim() ?? 'unknown'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, ${type()} ${release()}`,
    node: process.version,
    wrk,
    nodeFlags: NODE_FLAGS.join(' '),
  };
}

type Measured = Omit<CellRun, 'run' | 'noisy'>;

/** One load run with the backend's requests, body bytes and 304s and the CPU of server and backend around it. */
async function measure(server: StartedProcess, backend: StartedProcess, load: () => Promise<LoadResult>): Promise<Measured> {
  const [stats0, alloc0] = await Promise.all([serviceStats(backend.url), server.allocatedBytes()]);
  const [server0, backend0, t0] = [server.cpuSeconds(), backend.cpuSeconds(), performance.now()];
  const result = await load();
  const wallSec = (performance.now() - t0) / 1000;
  const serverCpuSec = server.cpuSeconds() - server0;
  const [stats1, alloc1] = await Promise.all([serviceStats(backend.url), server.allocatedBytes()]);
  const perQuery = (key: string): number => (stats1[key]! - stats0[key]!) / (result.requestsSent ?? result.responses);
  return {
    ...result,
    subrequestsPerQuery: perQuery('requests'),
    upstreamBytesPerQuery: perQuery('bodyBytes'),
    notModifiedPerQuery: perQuery('notModified'),
    serverCpuMicrosPerQuery: result.responses > 0 ? (serverCpuSec * 1e6) / result.responses : Number.NaN,
    allocatedKbPerQuery: result.responses > 0 ? (alloc1 - alloc0) / 1000 / result.responses : Number.NaN,
    serverCpuPct: (serverCpuSec / wallSec) * 100,
    backendCpuPct: ((backend.cpuSeconds() - backend0) / wallSec) * 100,
  };
}

type WrkPhase = Exclude<Phase, 'blog' | 'live'>;
/** Every key's exchange of each lookup workload (the bytes each answer must be), and the verification's probes. */
const keyExchanges = (w: LookupWorkload): Exchange[] =>
  Array.from({ length: RECORD_COUNT }, (_, i) => ({
    request: lookupRequest(w, i + 1),
    expected: JSON.stringify(LOOKUP_WORKLOADS[w].answer(i + 1)),
  }));
const LOOKUP_EXCHANGES = { a: keyExchanges('a'), b: keyExchanges('b') };
const probe = (w: LookupWorkload, key: number): Probe => ({
  request: lookupRequest(w, key),
  expected: LOOKUP_WORKLOADS[w].answer(key),
  bytes: LOOKUP_EXCHANGES[w][key - 1]!.expected,
});
const LOOKUP_PROBES: Probe[] = (['a', 'b'] as const).flatMap((w) => [1, 4242, RECORD_COUNT].map((key) => probe(w, key)));
/** The revalidation scenario: workload (a) over the first 100 keys; its probes fetch 3 keys, then one again from the cache. */
const REVALIDATION_PROBES = [1, 50, 100, 1].map((key) => probe('a', key));
const TINY_EXCHANGES: Exchange[] = [{ request: TINY_REQUEST, expected: TINY_BODY }];
/** Per phase other than blog: the verification's probes, and the subrequests they must cause (and why), when fixed. */
const PROBES: Readonly<Record<WrkPhase, readonly [Probe[], string?, string?]>> = {
  'shared-batching': [LOOKUP_PROBES],
  revalidation: [REVALIDATION_PROBES, '1, 1, 1, 0', 'the cache did not answer the repeated key'],
  tiny: [
    [0, 1].map(() => ({ request: TINY_REQUEST, expected: TINY_ANSWER, bytes: TINY_BODY })),
    '0, 0',
    'the answer needs no backend call',
  ],
};
/** The cells of the lookup phases: key, connections, exchanges; each phase warms up on its exchanges at its most connections. */
const LOOKUP_CELLS: Readonly<Record<WrkPhase, ReadonlyArray<readonly [string, number, Exchange[]]>>> = {
  // (a) over the scale curve (1 to 1,024 connections), (b) at 16 and 64.
  'shared-batching': [
    ...SCALE_CONNECTIONS.map((c) => [`a${c}`, c, LOOKUP_EXCHANGES.a] as const),
    ...[16, 64].map((c) => [`b${c}`, c, LOOKUP_EXCHANGES.b] as const),
  ],
  revalidation: [['r16', 16, LOOKUP_EXCHANGES.a.slice(0, 100)]],
  tiny: [['t16', 16, TINY_EXCHANGES]],
};

/** A cell of a session: its key and how to load it. */
type CellPlan = { readonly key: string; readonly load: (previous: ReadonlyMap<string, LoadResult>) => Promise<LoadResult> };

/** Verifies a started server; the exchanges wrk checks it with, or why it cannot be measured. */
async function verified(row: RowSpec, server: StartedProcess, backend: StartedProcess): Promise<Exchange[] | string> {
  if (row.phase !== 'blog') {
    const [probes, calls, why] = PROBES[row.phase as WrkPhase];
    const v = await verifyServer(server.url, backend.url, probes);
    if (!v.ok) return v.reason;
    const made = v.subrequests.join(', ');
    return calls === undefined || made === calls ? [] : `subrequests per probe were ${made}, not ${calls}: ${why}`;
  }
  const v = await verifyServer(server.url, backend.url, Array(4).fill({ request: REQUEST_BODY, expected: EXPECTED_ANSWER }));
  if (!v.ok) return v.reason;
  if (v.subrequests.slice(1).some((n) => n !== v.subrequests[1]))
    return `queries after the first made different numbers of subrequests: ${v.subrequests.join(', ')}`;
  if (v.bodies.some((b) => b !== v.bodies[0])) return 'right answers, but not byte-identical from one query to the next';
  return [{ request: REQUEST_BODY, expected: v.bodies[0]! }];
}

function cellPlans(row: RowSpec, url: string, settings: Settings, exchanges: Exchange[]): CellPlan[] {
  const closed = (key: string, conns: number, sec: number, ex: Exchange[]): CellPlan => ({
    key,
    load: () => runClosedLoad(url, conns, sec, ex),
  });
  if (row.phase !== 'blog')
    return LOOKUP_CELLS[row.phase as WrkPhase].map(([key, c, ex]) => closed(key, c, settings.secondaryDurationSec, ex));
  const open = (percent: number): CellPlan => ({
    key: `open${percent}`,
    // The rate is a share of this session's closed-loop maximum, the better of 16 and 64 connections.
    load: (previous) =>
      runOpenLoop({
        url,
        ratePerSec: Math.max(1, Math.round((Math.max(previous.get('c16')!.rps, previous.get('c64')!.rps) * percent) / 100)),
        durationSec: settings.secondaryDurationSec,
        expectedBody: exchanges[0]!.expected,
      }),
  });
  const [long, short] = [settings.durationSec, settings.secondaryDurationSec];
  const closedCells = [closed('c16', 16, long, exchanges), closed('c1', 1, short, exchanges), closed('c64', 64, short, exchanges)];
  return [...closedCells, ...[50, 80, 100].map(open)];
}

/** A tracing row's run: every span it made reached the OTLP sink (none dropped: gqlgw_tracing_dropped_spans_total). */
async function tracingProblem(server: StartedProcess, sink: StartedProcess, exports0: number): Promise<string | undefined> {
  const exports = (await serviceStats(sink.url)).exports! - exports0;
  const metrics = await (await fetch(new URL('/metrics', server.url))).text();
  const dropped = /^gqlgw_tracing_dropped_spans_total(?:\{.*\})? (\d+)/m.exec(metrics)?.[1] ?? '0';
  return exports > 0 && dropped === '0' ? undefined : `tracing: ${exports} exports reached the sink, ${dropped} spans dropped`;
}

/** A revalidation row's run: 304s in its cell with `revalidate = true`, none without. */
function revalidationProblem(row: RowSpec, result: RowResult): string | undefined {
  const notModified = result.cells.r16?.at(-1)?.notModifiedPerQuery ?? 0;
  if (row.phase !== 'revalidation' || row.id.endsWith('-on') === notModified > 0) return undefined;
  return `${row.label}, but ${notModified > 0 ? 'some' : 'no'} refetches were answered 304`;
}

type SessionContext = { run: number; settings: Settings; noise: NoiseCheck; sink?: StartedProcess };

/** One run of one row in its own server session. */
async function session(row: RowSpec, result: RowResult, backend: StartedProcess, at: SessionContext): Promise<void> {
  const { run, settings, noise } = at;
  const tag = `[${run}/${settings.runs}] ${row.label.padEnd(38)}`;
  let server: StartedProcess;
  try {
    server = await startRow(row, backend.url);
  } catch (error) {
    result.failures.push(`start-up: ${String(error).slice(0, 1500)}`);
    return log(`  ${tag} could not start: ${String(error).split('\n')[0]}`);
  }
  try {
    const exchanges = await verified(row, server, backend);
    if (typeof exchanges === 'string') {
      result.failures.push(`verification: ${exchanges}`);
      return log(`  ${tag} WRONG ANSWER, not measured: ${exchanges}`);
    }
    if (row.phase === 'blog') {
      const warm = await warmUp(server.url, settings.warmupSec, 16, exchanges);
      result.warmups.push(warm.rps);
      result.warmupWrong += warm.wrong;
      log(`  ${tag} warm-up ${warm.rps.map((r) => fmt(r)).join(' → ')} req/s, wrong ${warm.wrong}`);
    } else {
      const lists = [...new Set(LOOKUP_CELLS[row.phase as WrkPhase].map((c) => c[2]))];
      const connections = Math.max(...LOOKUP_CELLS[row.phase as WrkPhase].map((c) => c[1]));
      for (const ex of lists)
        result.warmupWrong += (await warmUp(server.url, Math.ceil(settings.warmupSec / lists.length), connections, ex)).wrong;
    }
    const exports0 = at.sink && (await serviceStats(at.sink.url)).exports!;
    const done = new Map<string, LoadResult>();
    let before = await noise.check([server, backend]);
    for (const plan of cellPlans(row, server.url, settings, exchanges)) {
      const cell = await measure(server, backend, () => plan.load(done));
      const after = await noise.check([server, backend]);
      (result.cells[plan.key] ??= []).push({ ...cell, run, noisy: before || after });
      done.set(plan.key, cell);
      before = after;
      log(
        `  ${tag} ${plan.key.padEnd(7)} ${fmt(cell.rps).padStart(6)} req/s  p50 ${fmt(cell.p50Ms, 2)} ms  p99 ${fmt(cell.p99Ms, 2)} ms  subreq/q ${fmt(cell.subrequestsPerQuery, 2)}  wrong ${cell.wrong}  cpu ${fmt(cell.serverCpuPct)}%/${fmt(cell.backendCpuPct)}%${after ? '  noisy' : ''}`,
      );
    }
    const problem = row.tracing ? await tracingProblem(server, at.sink!, exports0!) : revalidationProblem(row, result);
    if (problem !== undefined) {
      result.failures.push(`run ${run}: ${problem}`);
      log(`  ${tag} ${problem}`);
    }
  } catch (error) {
    result.failures.push(`run ${run}: ${String(error).slice(0, 1500)}`);
    log(`  ${tag} run ${run} failed: ${String(error).split('\n')[0]}`);
  } finally {
    result.peakRssMiB.push(server.peakRssMiB());
    await server.stop();
  }
}

/** The live-data phase (bench/live.ts): 10,000 subscribers; 3 measured ticks and 300 webhook deliveries (quick: 2 and 100). */
async function livePhase(settings: Settings, result: RowResult): Promise<LiveResult | undefined> {
  const [ticks, webhooks] = settings.quick ? [2, 100] : [3, 300];
  const failed = (e: unknown): undefined => void result.failures.push(`live: ${String(e)}`);
  const r = await runLive({ subscribers: 10_000, every: 5, ticks, webhooks }).catch(failed);
  const said =
    r &&
    `calls/tick ${r.callsPerTick.join(', ')}, p99 ${fmt(r.p99Ms)}, webhook ${fmt(r.webhookP99Ms)} ms, runner ${fmt(r.driverCpuPct)} % CPU`;
  log(`  ${said ?? `failed: ${result.failures.at(-1)}`}`);
  return r;
}

async function main(): Promise<void> {
  const startedAt = performance.now();
  const wrk = checkWrk();
  const { phases, ids } = selection();
  const settings = readSettings(phases);
  const rows = ROWS.filter((r) => phases.includes(r.phase) && (ids.length === 0 || ids.includes(r.id)));
  const problems = await Promise.all(rows.map((r) => configProblem(r)));
  const rejected = rows.map((r, i) => [r.label, problems[i]] as const).filter(([, problem]) => problem !== undefined);
  if (rejected.length > 0) throw new Error(`gqlgw check rejects a config of the bench:\n${rejected.map((r) => r.join(': ')).join('\n')}`);
  pinSelf(LOAD_CORE);
  mkdirSync(BENCH_OUT_DIR, { recursive: true });
  const pinned = settings.pinned ? 'server under test on core 0, the rest on core 1' : 'not pinned (taskset or a second core missing)';
  log(
    `gqlgw benchmark: ${rows.length} rows x ${settings.runs} runs, ${settings.durationSec} s / ${settings.secondaryDurationSec} s cells; ${pinned}.`,
  );
  const results = rows.map(({ id, label }): RowResult => ({
    id,
    label,
    failures: [],
    peakRssMiB: [],
    warmups: [],
    warmupWrong: 0,
    cells: {},
  }));
  const noise = new NoiseCheck();
  for (let i = 0; i < 3; i++) await noise.check([]);
  let live: LiveResult | undefined;
  for (const phase of settings.phases) {
    const phaseRows = rows.filter((r) => r.phase === phase);
    if (phaseRows.length === 0) continue;
    log(`\nPhase ${phase}`);
    if (phase === 'live') {
      live = await livePhase(settings, results[rows.indexOf(phaseRows[0]!)]!);
      continue;
    }
    const backend = await startService(...BACKENDS[phase]);
    const sink = phaseRows.some((r) => r.tracing) ? await startService('otlp-sink', OTLP_SINK_PORT) : undefined;
    try {
      const warmPath = `/users?ids=${Array.from({ length: 100 }, (_, i) => i + 1).join(',')}`;
      await runWrk(`${backend.url}${warmPath}`, 16, settings.warmupSec, [{ request: '', expected: answerBackendRequest(warmPath).body }]);
      for (let run = 1; run <= settings.runs; run++) {
        for (const row of measureOrder(phaseRows, run))
          await session(row, results[rows.indexOf(row)]!, backend, { run, settings, noise, sink });
      }
    } finally {
      await sink?.stop();
      await backend.stop();
    }
  }
  const elapsedSec = (performance.now() - startedAt) / 1000;
  const data: BenchResults = { settings, environment: environment(wrk), rows: results, elapsedSec, live };
  writeFileSync(join(BENCH_OUT_DIR, 'results.json'), JSON.stringify(data, null, 2));
  const partial = settings.quick || process.env.BENCH_ROWS || settings.phases.length < PHASES.length;
  const outFile = resolve(process.env.BENCH_RESULTS || (partial ? join(BENCH_OUT_DIR, 'RESULTS.md') : join(BENCH_SRC_DIR, 'RESULTS.md')));
  writeFileSync(outFile, renderResults(data));
  log(`\nWrote ${relative(ROOT_DIR, outFile)} and bench/out/results.json in ${fmt(data.elapsedSec / 60, 1)} min.`);
}

// A setting or a tool that is wrong ends the run with what to change, not a stack.
await main().catch((error: unknown) => {
  process.stderr.write(`npm run bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
