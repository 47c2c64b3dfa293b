/**
 * The tables of RESULTS.md: closed loop at 16 and at 1/64 connections, open loop, ratios, targets,
 * and the cost breakdown of one gqlgw query (gateway metrics and CPU profile). Every number is a
 * median over the runs (view.ts).
 */
import { median } from '../driver/stats.js';
import type { CellKey, ProfileResult } from '../results.js';
import { ROWS, type RowId } from '../rows.js';
import { WARMUP_SEGMENT_SEC } from '../driver/wrk.js';
import { TARGETS, throughputGoal, type TargetOutcome } from './targets.js';
import { aggregate, ms, num, pct, ratio, table, View } from './view.js';

export function closedTable(v: View): string {
  const rows = v.data.rows.map((r) => {
    const a = aggregate(r.cells.c16);
    if (a === undefined) return [r.label, 'not measured', '', '', '', '', '', '', '', '', '', '', ''];
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
      ROWS.find((spec) => spec.id === r.id)?.workers ? 'n/a' : `${num(a.otherLoadPct)} %`,
      num(v.peakRssMiB(r.id)),
    ];
  });
  return table(
    [
      'row',
      'req/s',
      'req/s range',
      'avg ms',
      'p50 ms',
      'p99 ms',
      'subreq/query',
      'wrong',
      'server CPU',
      'server CPU µs/query',
      'backend CPU',
      'other load, server core',
      'peak RSS MiB',
    ],
    rows,
  );
}

export function secondaryTable(v: View): string {
  const rows: string[][] = [];
  for (const r of v.data.rows) {
    for (const key of ['c1', 'c64'] as const) {
      const a = aggregate(r.cells[key]);
      if (a === undefined) continue;
      rows.push([
        r.label,
        key.slice(1),
        num(a.rps),
        pct(a.rpsSpread),
        ms(a.avgMs),
        ms(a.p50Ms),
        ms(a.p99Ms),
        num(a.subrequests, 2),
        String(a.wrong),
        `${num(a.serverCpuPct)} %`,
        `${num(a.backendCpuPct)} %`,
      ]);
    }
  }
  return table(
    ['row', 'connections', 'req/s', 'spread', 'avg ms', 'p50 ms', 'p99 ms', 'subreq/query', 'wrong', 'server CPU', 'backend CPU'],
    rows,
  );
}

/**
 * The warm-up of each row: median req/s of each warm-up segment after a fresh start (16
 * connections, answers checked), beside the measured 16-connection cell that follows it, so a
 * server that needs longer to reach its steady state shows it.
 */
export function warmupTable(v: View): string {
  const segments = Math.max(0, ...v.data.rows.flatMap((r) => r.warmups.map((w) => w.rps.length)));
  const segmentSec = WARMUP_SEGMENT_SEC;
  const header = ['row'];
  for (let i = 0; i < segments; i++) {
    header.push(`${i * segmentSec}–${Math.min((i + 1) * segmentSec, v.data.settings.warmupSec)} s req/s`);
  }
  header.push('measured after it (16 connections) req/s', 'first segment / measured', 'wrong in warm-up');
  const rows = v.data.rows
    .filter((r) => r.warmups.length > 0)
    .map((r) => {
      const bySegment = Array.from({ length: segments }, (_, i) =>
        median(r.warmups.map((w) => w.rps[i]).filter((x): x is number => x !== undefined)),
      );
      const measured = v.rps(r.id, 'c16');
      return [
        r.label,
        ...bySegment.map((x) => num(x)),
        num(measured),
        ratio(bySegment[0]! / measured),
        String(r.warmups.reduce((s, w) => s + w.wrong, 0)),
      ];
    });
  return table(header, rows);
}

export function openTable(v: View): string {
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
  return table(
    [
      'row',
      'offered req/s',
      'achieved req/s',
      'avg ms',
      'p50 ms',
      'p99 ms',
      'p99/p50',
      'subreq/query',
      'wrong',
      'unanswered after 2 s',
      'server CPU',
      'driver send lag p99 ms',
    ],
    rows,
  );
}

/** Ratios shown beside the targets' own (which come from TARGETS), for reading the run. */
const MORE_RATIOS: ReadonlyArray<{ readonly a: RowId; readonly b: RowId }> = [
  { a: 'gqlgw-batch', b: 'yoga-dataloader' },
  { a: 'gqlgw-no-batch', b: 'ceiling' },
  { a: 'gqlgw-batch', b: 'gqlgw-no-batch' },
  { a: 'gqlgw-batch-2-workers', b: 'gqlgw-batch' },
  { a: 'gqlgw-batch-coalesce', b: 'gqlgw-batch' },
  { a: 'gqlgw-no-batch-coalesce', b: 'gqlgw-no-batch' },
  { a: 'gqlgw-batch', b: 'floor' },
  { a: 'ceiling', b: 'floor' },
];

export function ratiosTable(v: View): string {
  const pairs: Array<{ a: RowId; b: RowId; goal: string }> = [];
  for (const t of TARGETS) if (t.kind === 'throughput') pairs.push({ a: t.row, b: t.peer, goal: throughputGoal(t) });
  for (const p of MORE_RATIOS) pairs.push({ ...p, goal: '' });
  const rows = pairs
    .filter((p) => v.row(p.a) !== undefined && v.row(p.b) !== undefined)
    .map((p) => {
      const at = (key: CellKey): string => ratio(v.rps(p.a, key) / v.rps(p.b, key));
      const cpuA = v.cell(p.a, 'c16')?.cpuMicrosPerQuery ?? Number.NaN;
      const cpuB = v.cell(p.b, 'c16')?.cpuMicrosPerQuery ?? Number.NaN;
      const p50 = (v.cell(p.a, 'c16')?.p50Ms ?? Number.NaN) / (v.cell(p.b, 'c16')?.p50Ms ?? Number.NaN);
      return [
        `${v.label(p.a)} / ${v.label(p.b)}`,
        p.goal,
        at('c16'),
        at('c1'),
        at('c64'),
        ratio(p50),
        ratio(cpuA / cpuB),
        ratio(v.peakRssMiB(p.a) / v.peakRssMiB(p.b)),
      ];
    });
  return table(
    [
      'ratio (req/s unless said)',
      'target',
      '16 conns',
      '1 conn',
      '64 conns',
      'p50 at 16 (lower is better)',
      'CPU µs/query at 16',
      'peak RSS',
    ],
    rows,
  );
}

export function targetsTable(outcomes: readonly TargetOutcome[]): string {
  return table(
    ['target', 'measured', 'verdict'],
    outcomes.map((o) => [o.text, o.measured, o.verdict]),
  );
}

/** Wall time per query from the gateway's own metrics, at 1 and 16 connections, per gqlgw variant. */
export function wallSection(v: View): string {
  const rows: string[][] = [];
  for (const id of ROWS.filter((r) => r.variant !== undefined).map((r) => r.id)) {
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
        sequential
          ? `${ms(upstream)} (${num(upstreamCount, 2)} calls)`
          : `n/a: ${num(upstreamCount, 0)} calls in parallel, ${ms(upstream / upstreamCount)} ms each`,
        sequential ? ms(operation - upstream) : 'n/a',
        ms(client - operation),
      ]);
    }
  }
  if (rows.length === 0) return 'No gateway metrics were read in this run (no gqlgw row measured, or /metrics missing).';
  return [
    "Wall time of one query, from the client (wrk mean) and from the gateway's own histograms over the same cells (`gqlgw_operation_duration_seconds`, `gqlgw_upstream_duration_seconds`; medians of the runs). At 1 connection nothing queues, so this is the anatomy of one query; at 16 the queueing for the CPU shows up in the first and last columns.",
    '',
    table(
      [
        'variant',
        'connections',
        'client latency ms',
        'operation (executor) ms',
        'upstream wait ms',
        'executor besides upstream ms',
        'outside the executor ms (HTTP, yoga, parse/validate, serialisation, queueing)',
      ],
      rows,
    ),
  ].join('\n');
}

export function profileSection(v: View, profile: ProfileResult): string {
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
      s.stages
        .filter((x) => x.micros > 0 && x.stage !== 'start-up (not per query)')
        .map((x) => [x.stage, share(x.micros), num(perQuery(x.micros))]),
    ),
  );
  lines.push('', '**By category** (top 15):', '');
  lines.push(
    table(
      ['category', 'stage', 'share', 'µs per query'],
      s.categories
        .filter((c) => c.stage !== 'start-up (not per query)')
        .slice(0, 15)
        .map((c) => [c.category, c.stage, share(c.micros), num(perQuery(c.micros))]),
    ),
  );
  lines.push('', "**Functions with the most self time** (JSON.parse/stringify count as their caller's self time):", '');
  lines.push(
    table(
      ['function', 'share'],
      s.topFunctions.slice(0, 12).map((f) => [`\`${f.name.replace(/\|/g, '\\|')}\``, share(f.micros)]),
    ),
  );
  return lines.join('\n');
}
