/**
 * Renders bench/RESULTS.md from one run's results: set-up, the tables (medians of the runs with
 * their spread), the ratios and targets, the cost breakdown of one gqlgw query and a reading
 * generated from the same numbers (so it cannot disagree with the tables).
 */
import { median, relativeSpread } from './driver/stats.js';
import type { BenchResults, CellKey, CellRun, ProfileResult, RowResult } from './results.js';
import { ROWS, type RowId } from './rows.js';
import { EXPECTED_BODY, QUERY } from './shared/data.js';

/** Medians over the runs of one cell. */
interface Aggregate {
  readonly runs: number;
  readonly rps: number;
  readonly rpsMin: number;
  readonly rpsMax: number;
  readonly rpsSpread: number;
  readonly avgMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p99Spread: number;
  readonly subrequests: number;
  /** Summed over the runs, not a median. */
  readonly wrong: number;
  /** Open loop: requests unanswered 2 s after the last send, summed over the runs. */
  readonly unanswered: number;
  readonly responses: number;
  readonly serverCpuPct: number;
  readonly backendCpuPct: number;
  readonly otherLoadPct: number;
  /** Server CPU per query, µs: CPU share / req/s. */
  readonly cpuMicrosPerQuery: number;
  readonly offered: number;
  readonly sendLagP99Ms: number;
  readonly wrongSample: string | undefined;
}

function aggregate(cells: readonly CellRun[] | undefined): Aggregate | undefined {
  if (cells === undefined || cells.length === 0) return undefined;
  const m = (f: (c: CellRun) => number): number => median(cells.map(f));
  const rps = cells.map((c) => c.rps);
  return {
    runs: cells.length,
    rps: median(rps),
    rpsMin: Math.min(...rps),
    rpsMax: Math.max(...rps),
    rpsSpread: relativeSpread(rps),
    avgMs: m((c) => c.avgMs),
    p50Ms: m((c) => c.p50Ms),
    p99Ms: m((c) => c.p99Ms),
    p99Spread: relativeSpread(cells.map((c) => c.p99Ms)),
    subrequests: m((c) => c.subrequestsPerQuery),
    wrong: cells.reduce((s, c) => s + c.wrong, 0),
    unanswered: cells.reduce((s, c) => s + (c.unanswered ?? 0), 0),
    responses: cells.reduce((s, c) => s + c.responses, 0),
    serverCpuPct: m((c) => c.serverCpuPct),
    backendCpuPct: m((c) => c.backendCpuPct),
    otherLoadPct: m((c) => c.otherLoadOnServerCorePct ?? Number.NaN),
    cpuMicrosPerQuery: m((c) => (c.rps > 0 ? (c.serverCpuPct / 100 / c.rps) * 1e6 : Number.NaN)),
    offered: m((c) => c.offeredRps ?? Number.NaN),
    sendLagP99Ms: m((c) => c.sendLagP99Ms ?? Number.NaN),
    wrongSample: cells.find((c) => c.wrongSample !== undefined)?.wrongSample,
  };
}

const num = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const ms = (n: number): string => (!Number.isFinite(n) ? '–' : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0));
const pct = (fraction: number): string => (Number.isFinite(fraction) ? `±${(fraction * 50).toFixed(1)} %` : '–');
const ratio = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–');

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const align = header.map((_, i) => (i === 0 ? ':---' : '---:'));
  return [header, align, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

class View {
  constructor(readonly data: BenchResults) {}

  row(id: RowId): RowResult | undefined {
    return this.data.rows.find((r) => r.id === id);
  }

  cell(id: RowId, key: CellKey): Aggregate | undefined {
    return aggregate(this.row(id)?.cells[key]);
  }

  rps(id: RowId, key: CellKey = 'c16'): number {
    return this.cell(id, key)?.rps ?? Number.NaN;
  }

  label(id: RowId): string {
    return ROWS.find((r) => r.id === id)?.label ?? id;
  }
}

function closedTable(v: View): string {
  const rows = v.data.rows.map((r) => {
    const a = aggregate(r.cells.c16);
    if (a === undefined) return [r.label, 'not measured', '', '', '', '', '', '', '', '', '', ''];
    return [
      r.label,
      num(a.rps),
      `${num(a.rpsMin)}–${num(a.rpsMax)}`,
      ms(a.avgMs),
      ms(a.p50Ms),
      ms(a.p99Ms),
      num(a.subrequests, 2),
      String(a.wrong),
      `${num(a.serverCpuPct)} %`,
      num(a.cpuMicrosPerQuery),
      `${num(a.backendCpuPct)} %`,
      `${num(a.otherLoadPct)} %`,
    ];
  });
  return table(['row', 'req/s', 'req/s range', 'avg ms', 'p50 ms', 'p99 ms', 'subreq/query', 'wrong', 'server CPU', 'server CPU µs/query', 'backend CPU', 'other load, server core'], rows);
}

function secondaryTable(v: View): string {
  const rows: string[][] = [];
  for (const r of v.data.rows) {
    for (const key of ['c1', 'c64'] as const) {
      const a = aggregate(r.cells[key]);
      if (a === undefined) continue;
      rows.push([r.label, key.slice(1), num(a.rps), pct(a.rpsSpread), ms(a.avgMs), ms(a.p50Ms), ms(a.p99Ms), num(a.subrequests, 2), String(a.wrong), `${num(a.serverCpuPct)} %`, `${num(a.backendCpuPct)} %`]);
    }
  }
  return table(['row', 'connections', 'req/s', 'spread', 'avg ms', 'p50 ms', 'p99 ms', 'subreq/query', 'wrong', 'server CPU', 'backend CPU'], rows);
}

function openTable(v: View): string {
  const rows: string[][] = [];
  for (const r of v.data.rows) {
    for (const percent of [50, 80, 100] as const) {
      const a = aggregate(r.cells[`open${percent}`]);
      if (a === undefined) continue;
      rows.push([
        r.label,
        `${percent} % = ${num(a.offered)}`,
        num(a.rps),
        ms(a.avgMs),
        ms(a.p50Ms),
        ms(a.p99Ms),
        num(a.p99Ms / a.p50Ms, 1),
        num(a.subrequests, 2),
        String(a.wrong),
        String(a.unanswered),
        `${num(a.serverCpuPct)} %`,
        ms(a.sendLagP99Ms),
      ]);
    }
  }
  return table(['row', 'offered req/s', 'achieved req/s', 'avg ms', 'p50 ms', 'p99 ms', 'p99/p50', 'subreq/query', 'wrong', 'unanswered after 2 s', 'server CPU', 'driver send lag p99 ms'], rows);
}

interface RatioSpec {
  readonly name: string;
  readonly a: RowId;
  readonly b: RowId;
  readonly target?: number;
}

const RATIOS: readonly RatioSpec[] = [
  { name: 'gqlgw batch / hand-written ceiling', a: 'gqlgw-batch', b: 'ceiling', target: 0.9 },
  { name: 'gqlgw batch / graphql-yoga + DataLoader', a: 'gqlgw-batch', b: 'yoga-dataloader', target: 1 },
  { name: 'gqlgw batch / graphql-jit + DataLoader', a: 'gqlgw-batch', b: 'jit-dataloader', target: 1 },
  { name: 'gqlgw batch + cache / hand-written per-item cache', a: 'gqlgw-batch-cache', b: 'per-item-cache', target: 0.9 },
  { name: 'gqlgw no batch / hand-written ceiling', a: 'gqlgw-no-batch', b: 'ceiling' },
  { name: 'gqlgw batch / gqlgw no batch', a: 'gqlgw-batch', b: 'gqlgw-no-batch' },
  { name: 'gqlgw batch / empty handler (floor)', a: 'gqlgw-batch', b: 'floor' },
  { name: 'hand-written ceiling / empty handler (floor)', a: 'ceiling', b: 'floor' },
];

function ratiosTable(v: View): string {
  const rows = RATIOS.map((r) => {
    const at = (key: CellKey): string => ratio(v.rps(r.a, key) / v.rps(r.b, key));
    const cpuA = v.cell(r.a, 'c16')?.cpuMicrosPerQuery ?? Number.NaN;
    const cpuB = v.cell(r.b, 'c16')?.cpuMicrosPerQuery ?? Number.NaN;
    const p50 = (v.cell(r.a, 'c16')?.p50Ms ?? Number.NaN) / (v.cell(r.b, 'c16')?.p50Ms ?? Number.NaN);
    return [r.name, at('c16'), at('c1'), at('c64'), ratio(p50), ratio(cpuA / cpuB)];
  });
  return table(['ratio (req/s unless said)', '16 conns', '1 conn', '64 conns', 'p50 at 16 (lower is better)', 'CPU µs/query at 16'], rows);
}

interface TargetOutcome {
  readonly text: string;
  readonly measured: string;
  readonly met: boolean | undefined;
  readonly verdict: string;
}

function targets(v: View): TargetOutcome[] {
  const out: TargetOutcome[] = [];
  const ratioTarget = (text: string, a: RowId, b: RowId, goal: number): void => {
    const r = v.rps(a) / v.rps(b);
    const met = Number.isFinite(r) ? r >= goal : undefined;
    out.push({
      text,
      measured: `${ratio(r)} (${num(v.rps(a))} vs ${num(v.rps(b))} req/s)`,
      met,
      verdict: met === undefined ? 'not measured' : met ? 'met' : `missed by ${num(((goal - r) / goal) * 100, 1)} % (needs ${num(goal * v.rps(b))} req/s)`,
    });
  };
  ratioTarget('batch ≥ 0.9 × hand-written ceiling (req/s, 16 conns)', 'gqlgw-batch', 'ceiling', 0.9);
  ratioTarget('batch ahead of graphql-yoga + DataLoader', 'gqlgw-batch', 'yoga-dataloader', 1);
  ratioTarget('batch ahead of graphql-jit + DataLoader', 'gqlgw-batch', 'jit-dataloader', 1);
  ratioTarget('batch + cache (warm) ≥ 0.9 × hand-written per-item cache', 'gqlgw-batch-cache', 'per-item-cache', 0.9);
  for (const id of ['gqlgw-no-batch', 'gqlgw-batch', 'gqlgw-batch-cache'] as const) {
    const a = v.cell(id, 'open80');
    const r = a === undefined ? Number.NaN : a.p99Ms / a.p50Ms;
    const met = Number.isFinite(r) ? r <= 3 : undefined;
    out.push({
      text: `${v.label(id)}: p99 ≤ 3 × p50 at 80 % of max offered rate`,
      measured: a === undefined ? '–' : `p99/p50 = ${num(r, 2)} (${ms(a.p99Ms)} / ${ms(a.p50Ms)} ms at ${num(a.offered)} req/s)`,
      met,
      verdict: met === undefined ? 'not measured' : met ? 'met' : `missed: p99 is ${num(r, 1)} × p50, ${num(((r - 3) / 3) * 100, 0)} % over`,
    });
  }
  return out;
}

/** Wall time per query from the gateway's own metrics, at 1 and 16 connections, per gqlgw variant. */
function wallSection(v: View): string {
  const rows: string[][] = [];
  for (const id of ['gqlgw-no-batch', 'gqlgw-batch', 'gqlgw-batch-cache'] as const) {
    for (const key of ['c1', 'c16'] as const) {
      const cells = v.row(id)?.cells[key] ?? [];
      const timed = cells.filter((c) => c.gatewayTimings?.operationAvgMs !== undefined);
      if (timed.length === 0) continue;
      const client = median(timed.map((c) => c.avgMs));
      const operation = median(timed.map((c) => c.gatewayTimings?.operationAvgMs ?? Number.NaN));
      const upstream = median(timed.map((c) => c.gatewayTimings?.upstreamMsPerQuery ?? Number.NaN));
      const upstreamCount = median(timed.map((c) => c.gatewayTimings?.upstreamRequestsPerQuery ?? Number.NaN));
      // Subrequests of a round run in parallel: their summed time is wall time only when a query makes one per round.
      const sequential = upstreamCount <= 2.05;
      rows.push([
        v.label(id),
        key.slice(1),
        ms(client),
        ms(operation),
        sequential ? `${ms(upstream)} (${num(upstreamCount, 2)} calls)` : `n/a: ${num(upstreamCount, 0)} calls in parallel, ${ms(upstream / upstreamCount)} ms each`,
        sequential ? ms(operation - upstream) : 'n/a',
        ms(client - operation),
      ]);
    }
  }
  if (rows.length === 0) return 'No gateway metrics were read in this run (no gqlgw row measured, or /metrics missing).';
  return [
    'Wall time of one query, from the client (wrk mean) and from the gateway\'s own histograms over the same cells (`gqlgw_operation_duration_seconds`, `gqlgw_upstream_duration_seconds`; medians of the runs). At 1 connection nothing queues, so this is the anatomy of one query; at 16 the queueing for the CPU shows up in the first and last columns.',
    '',
    table(
      ['variant', 'connections', 'client latency ms', 'operation (executor) ms', 'upstream wait ms', 'executor besides upstream ms', 'outside the executor ms (HTTP, yoga, parse/validate, serialisation, queueing)'],
      rows,
    ),
  ].join('\n');
}

function profileSection(v: View, profile: ProfileResult): string {
  const s = profile.summary;
  const base = s.perQueryMicros;
  const share = (micros: number): string => `${num((micros / base) * 100, 1)} %`;
  // The profiler itself costs CPU, so the per-query base is the unprofiled measurement of the same row.
  const unprofiled = v.cell(profile.rowId, 'c16')?.cpuMicrosPerQuery ?? Number.NaN;
  const perQueryBase = Number.isFinite(unprofiled) ? unprofiled : profile.cpuMicrosPerQuery;
  const perQuery = (micros: number): number => (base > 0 ? (micros / base) * perQueryBase : Number.NaN);
  const lines: string[] = [];
  lines.push(
    `CPU: \`node --cpu-prof\` (1 ms sampling) on the gqlgw process (${v.label(profile.rowId)}) during a ${profile.connections}-connection cell of ${profile.queries} queries (${num(profile.rps)} req/s with the profiler on, ${num(profile.cpuMicrosPerQuery)} µs CPU per query). ` +
      `Without the profiler the same row used **${num(perQueryBase)} µs of CPU per query** (closed loop, 16 connections, median); the profile's busy samples (start-up set apart) split that by part. ` +
      `Each sample is charged to the nearest frame that belongs to a known part of the code (bench/profile/categorize.ts). The profile is saved as bench/out/profile/${profile.rowId}/*.cpuprofile (open it in Chrome DevTools).`,
  );
  lines.push('', '**By stage:**', '');
  lines.push(
    table(
      ['stage', 'share of CPU', 'µs per query'],
      s.stages.filter((x) => x.micros > 0 && x.stage !== 'start-up (not per query)').map((x) => [x.stage, share(x.micros), num(perQuery(x.micros))]),
    ),
  );
  lines.push('', '**By category** (top 15):', '');
  lines.push(table(['category', 'stage', 'share', 'µs per query'], s.categories.filter((c) => c.stage !== 'start-up (not per query)').slice(0, 15).map((c) => [c.category, c.stage, share(c.micros), num(perQuery(c.micros))])));
  lines.push('', '**Functions with the most self time** (JSON.parse/stringify count as their caller\'s self time):', '');
  lines.push(table(['function', 'share'], s.topFunctions.slice(0, 12).map((f) => [`\`${f.name.replace(/\|/g, '\\|')}\``, share(f.micros)])));
  return lines.join('\n');
}

function reading(v: View, outcomes: readonly TargetOutcome[]): string {
  const out: string[] = [];
  const d = v.data;
  const c16 = (id: RowId): ReturnType<typeof aggregate> => v.cell(id, 'c16');
  const ideal = 16 / ((2 * d.settings.backendDelayMs) / 1000);
  out.push(
    `- With ${d.settings.backendDelayMs} ms per backend request and two sequential rounds, one query cannot take less than ~${2 * d.settings.backendDelayMs} ms, so 16 connections cap any server at ~${num(ideal)} req/s (Little's law); rows well below that with a busy core are CPU-bound.`,
  );
  const batch = c16('gqlgw-batch');
  const ceiling = c16('ceiling');
  if (batch && ceiling) {
    out.push(
      `- gqlgw (batch) serves ${num(batch.rps)} req/s at 16 connections, ${ratio(batch.rps / ceiling.rps)} the hand-written ceiling (${num(ceiling.rps)} req/s). ` +
        `Its core is ${num(batch.serverCpuPct)} % busy and it spends ${num(batch.cpuMicrosPerQuery)} µs of CPU per query against the ceiling's ${num(ceiling.cpuMicrosPerQuery)} µs (${ratio(batch.cpuMicrosPerQuery / ceiling.cpuMicrosPerQuery)}).`,
    );
  }
  for (const peer of ['yoga-dataloader', 'jit-dataloader'] as const) {
    const p = c16(peer);
    if (batch && p) out.push(`- Against ${v.label(peer)} (${num(p.rps)} req/s, ${num(p.cpuMicrosPerQuery)} µs CPU/query): ${ratio(batch.rps / p.rps)} the throughput.`);
  }
  const cache = c16('gqlgw-batch-cache');
  const itemCache = c16('per-item-cache');
  if (cache && itemCache) {
    out.push(`- Batch + cache (warm) makes ${num(cache.subrequests, 2)} subrequest per query and serves ${num(cache.rps)} req/s, ${ratio(cache.rps / itemCache.rps)} the hand-written per-item cache (${num(itemCache.rps)} req/s).`);
  }
  const noBatch = c16('gqlgw-no-batch');
  if (noBatch && batch) {
    out.push(
      `- Without @batch gqlgw makes ${num(noBatch.subrequests, 1)} subrequests per query and serves ${num(noBatch.rps)} req/s (batch is ${ratio(batch.rps / noBatch.rps)} that). ` +
        (noBatch.backendCpuPct >= 80
          ? `The backend's core (shared with wrk) is ${num(noBatch.backendCpuPct)} % busy there, so that row is bounded by the backend as much as by the gateway (${num(noBatch.serverCpuPct)} % CPU).`
          : `The gateway's core is ${num(noBatch.serverCpuPct)} % busy and the backend's ${num(noBatch.backendCpuPct)} %.`),
    );
  }
  if (cache && batch && cache.cpuMicrosPerQuery > batch.cpuMicrosPerQuery) {
    out.push(`- Batch + cache spends more CPU per query than batch (${num(cache.cpuMicrosPerQuery)} vs ${num(batch.cpuMicrosPerQuery)} µs) although it makes one subrequest fewer: serving 100 authors from the cache costs more than the /users?ids= call it saves. The hand-written per-item cache spends ${itemCache ? num(itemCache.cpuMicrosPerQuery) : '–'} µs per query.`);
  }
  const floor = c16('floor');
  if (floor) out.push(`- The empty handler (floor) serves ${num(floor.rps)} req/s at ${num(floor.cpuMicrosPerQuery)} µs CPU per request: the price of Node's HTTP and writing the same ${num(EXPECTED_BODY.length / 1024, 1)} KB answer, which every row pays.`);
  const disturbed = d.rows.flatMap((r) =>
    Object.entries(r.cells).flatMap(([key, cells]) => (cells ?? []).filter((c) => c.otherLoadOnServerCorePct > 15).map((c) => `${r.label} ${key} (${num(c.otherLoadOnServerCorePct)} %)`)),
  );
  if (disturbed.length > 0) {
    out.push(`- Interference: in ${disturbed.length} cell run(s) more than 15 % of the server core was busy with something other than the server process (other processes on this shared machine, or kernel network work): ${disturbed.slice(0, 8).join(', ')}${disturbed.length > 8 ? ', …' : ''}. Medians damp this, but these cells are less reliable.`);
  }
  const busyBackend = d.rows.filter((r) => (aggregate(r.cells.c16)?.backendCpuPct ?? 0) >= 80).map((r) => r.label);
  if (busyBackend.length > 0) out.push(`- Load-core saturation: the backend (with wrk on the same core) was ≥ 80 % busy for ${busyBackend.join(', ')}; those rows measure the load side too.`);
  const laggy = d.rows.flatMap((r) =>
    (['open50', 'open80', 'open100'] as const)
      .filter((k) => {
        const a = aggregate(r.cells[k]);
        return a !== undefined && a.sendLagP99Ms > Math.max(5, a.p50Ms / 2);
      })
      .map((k) => `${r.label} ${k.slice(4)} %`),
  );
  const loadBound = d.rows.flatMap((r) =>
    (['open50', 'open80', 'open100'] as const)
      .filter((k) => {
        const a = aggregate(r.cells[k]);
        return a !== undefined && a.rps < 0.9 * a.offered && a.serverCpuPct < 70;
      })
      .map((k) => `${r.label} ${k.slice(4)} %`),
  );
  if (loadBound.length > 0) out.push(`- Open loop limited by the load side, not the server (achieved < 90 % of offered while the server's core was under 70 % busy): ${loadBound.join(', ')}. One Node driver on the shared load core cannot offer those rates; read those rows as a driver limit.`);
  if (laggy.length > 0) out.push(`- Open loop: the driver itself sent late (p99 send lag over 5 ms and over half the p50) in ${laggy.join(', ')}; there the latencies include the driver's own lateness (one Node process sharing the load core with the backend).`);
  for (const profile of d.profiles) {
    if ('error' in profile) continue;
    const s = profile.summary;
    const top = [...s.stages].filter((x) => x.micros > 0 && x.stage !== 'start-up (not per query)').sort((a, b) => b.micros - a.micros).slice(0, 3);
    out.push(`- Where gqlgw's CPU goes (${v.label(profile.rowId)}, 16 connections, ${num(v.cell(profile.rowId, 'c16')?.cpuMicrosPerQuery ?? profile.cpuMicrosPerQuery)} µs per query): ${top.map((x) => `${x.stage} ${num((x.micros / s.perQueryMicros) * 100, 0)} %`).join(', ')}.`);
  }
  for (const id of ['gqlgw-batch', 'gqlgw-batch-cache'] as const) {
    const open80 = v.cell(id, 'open80');
    const closed16 = c16(id);
    if (open80 && closed16 && open80.p99Ms > 3 * open80.p50Ms) {
      out.push(`- ${v.label(id)} at 80 % offered: ${num(open80.offered)} req/s is ${num((open80.offered / closed16.rps) * 100)} % of its 16-connection throughput (the maximum is the better of 16 and 64 connections), so on a core that is already ${num(open80.serverCpuPct)} % busy short stalls (GC, bursts) queue up: p99 ${ms(open80.p99Ms)} ms against p50 ${ms(open80.p50Ms)} ms.`);
    }
  }
  const missed = outcomes.filter((o) => o.met === false);
  const unmeasured = outcomes.filter((o) => o.met === undefined);
  if (missed.length === 0 && unmeasured.length === 0) out.push('- Every target is met in this run.');
  for (const o of missed) out.push(`- Target missed: ${o.text}: ${o.measured}, ${o.verdict}.`);
  if (unmeasured.length > 0) out.push(`- Not measured in this run: ${unmeasured.map((o) => o.text).join('; ')}.`);
  const wrong = d.rows.reduce((s, r) => s + Object.values(r.cells).flat().reduce((t, c) => t + (c?.wrong ?? 0), 0), 0);
  const responses = d.rows.reduce((s, r) => s + Object.values(r.cells).flat().reduce((t, c) => t + (c?.responses ?? 0), 0), 0);
  out.push(wrong === 0 ? `- All ${responses} measured responses were right (0 wrong).` : `- ${wrong} of ${responses} measured responses were wrong or failed: see the tables and the failures below.`);
  return out.join('\n');
}

export function renderResults(data: BenchResults): string {
  const v = new View(data);
  const e = data.environment;
  const s = data.settings;
  const outcomes = targets(v);
  const parts: string[] = [];
  parts.push(`# gqlgw benchmark results

Written by \`npm run bench\` (bench/run.ts) on ${e.date}; the run took ${num(data.elapsedSec / 60, 1)} min. Everything below comes from that one run${s.quick ? ' (**quick mode: 1 short run, numbers are rough**)' : ''}. How to run it and what each row is: [README.md](README.md).

## Set-up

- Machine: ${e.cpu}, ${e.cores} cores, ${e.memoryGiB} GiB, ${e.os}. Node ${e.node}, ${e.wrk}. Commit ${e.gitCommit}.${data.buildChangedDuringRun ? ' **The compiled gateway (dist/gateway) changed during the run: the gqlgw rows may mix two builds.**' : ''}
- Packages: ${Object.entries(e.packages).map(([k, ver]) => `${k} ${ver}`).join(', ')}.
- Query \`${QUERY}\`, POSTed as JSON; backend: ${s.backendDelayMs} ms per request, 100 posts by 100 distinct authors, \`/posts?limit=\`, \`/users/{id}\`, \`/users?ids=\`.
- ${s.pinned ? 'Pinning (taskset): the server under test on core 0 alone; the backend, wrk, the open-loop driver and the runner on core 1.' : '**Not pinned** (taskset or a second core missing): all processes share the cores, ratios are less fair.'}
- Closed loop: wrk, 1 thread, ${s.durationSec} s per cell at 16 connections, ${s.secondaryDurationSec} s at 1 and 64, after a ${s.warmupSec} s warm-up per server start. Open loop: ${s.secondaryDurationSec} s per rate.
- ${s.runs} run${s.runs === 1 ? '' : 's'}, interleaved (every row once, then again); per run each server is started fresh, verified, warmed up, then measured closed loop then open loop. Numbers are medians over the runs; "range" is min–max of req/s, "spread" is ±half of (max − min)/median. "wrong" is summed over all runs.
- Answers: before load, a verification pass sends 4 sequential queries to the server and checks each against the expected data (parsed, value by value; bench/shared/check.ts) and counts the backend requests each caused. Under load every response is then compared byte for byte with that verified body: by a Lua \`response\` hook inside wrk, by the open-loop driver itself. Non-200s, timeouts and socket errors count as wrong too.
- Subrequests per query: the backend's own request counter over the cell / responses.
- Server CPU: the process's CPU time (from /proc) over the cell's wall time; µs/query = that / req/s. "Other load, server core": busy time of core 0 (from /proc/stat) not used by the server process: other processes on this shared machine, or kernel network work.
- Machine load before the run: ${data.idleCheck === undefined ? 'not measured' : `core 0 ${num(data.idleCheck.core0Pct)} % and core 1 ${num(data.idleCheck.core1Pct)} % busy over ${num(data.idleCheck.seconds)} s${data.idleCheck.core0Pct > 10 || data.idleCheck.core1Pct > 10 ? ' (**the machine was not idle**)' : ''}`}.

## Closed loop, 16 connections

${closedTable(v)}

## Closed loop, 1 and 64 connections

${secondaryTable(v)}

## Open loop at fixed offered rates

Rates are 50, 80 and 100 % of the row's closed-loop maximum in the same run and server session (the higher req/s at 16 or 64 connections); the offered column shows the median rate. Driver: bench/driver/open-loop.ts, a Node process with undici (up to 64 connections, like the largest closed-loop cell; requests beyond them wait in the driver, on the clock) on the load core; requests leave on a fixed schedule and **latency is measured from each request's scheduled send time**, so queueing anywhere (server, connection pool, a late driver) counts. Each rate runs 1 s unmeasured first. Requests still unanswered 2 s after the last send are counted in "unanswered" (overload, not wrong answers) and enter the percentiles with their wait so far, so a p99 there is a lower bound. "driver send lag" is how late the driver itself sent (p99); when it is large the latencies include the driver's lateness.

${openTable(v)}

## Ratios (same run)

${ratiosTable(v)}

## Targets

${table(['target', 'measured', 'verdict'], outcomes.map((o) => [o.text, o.measured, o.verdict]))}

## Where the time goes: one gqlgw query
`);
  parts.push(wallSection(v), '');
  if (data.profiles.length === 0) parts.push('Not profiled in this run (the gqlgw batch rows were not selected).');
  for (const profile of data.profiles) {
    parts.push('', `### CPU of ${v.label(profile.rowId)}`, '');
    parts.push('error' in profile ? `The profile failed: \`${profile.error.split('\n')[0]}\`` : profileSection(v, profile));
  }
  parts.push(`

## Reading

${reading(v, outcomes)}
`);
  const failures = data.rows.filter((r) => r.failures.length > 0);
  if (failures.length > 0) {
    parts.push('\n## Failures\n');
    for (const r of failures) {
      parts.push(`- ${r.label}:`);
      for (const f of [...new Set(r.failures)]) parts.push(`  \`\`\`\n  ${f.replace(/\n/g, '\n  ')}\n  \`\`\``);
    }
  }
  const samples = data.rows.flatMap((r) => Object.entries(r.cells).flatMap(([k, cells]) => (cells ?? []).filter((c) => c.wrongSample !== undefined).slice(0, 1).map((c) => `- ${r.label}, ${k}: \`${(c.wrongSample ?? '').slice(0, 700).replace(/`/g, "'").replace(/\n/g, ' ')}\``)));
  if (samples.length > 0) parts.push(`\n## First wrong answer per cell\n\n${samples.join('\n')}\n`);
  return `${parts.join('\n').trimEnd()}\n`;
}
