/** Renders bench/RESULTS.md from one run's results: the set-up, then tables only. */
import { median } from './driver/stats.js';
import type { BenchResults } from './results.js';
import { ROWS, SCALE_CONNECTIONS, type Phase } from './rows.js';
import { WARMUP_SEGMENT_SEC } from './driver/closed-loop.js';
import { evaluateTargets, ms, num, ratio, TARGETS, View, type Aggregate } from './targets.js';

export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const align = header.map((_, i) => (i === 0 ? ':---' : '---:'));
  return [header, align, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** The median req/s, marked `*` when a run of the cell was noisy. */
const rpsOf = (a: Aggregate): string => `${num(a.rps)}${a.noisy > 0 ? ` *${a.noisy}` : ''}`;
const range = (a: Aggregate): string => `${num(a.rpsMin)}–${num(a.rpsMax)}`;
const cpuRange = (a: Aggregate): string => `${num(a.cpuMicrosMin)}–${num(a.cpuMicrosMax)}`;

/** One line per (row, cell) measured; `columns` gives the cells' own columns. */
type Columns = (a: Aggregate, key: string, id: string) => string[];
function cellTable(v: View, [phase, cells]: readonly [Phase, readonly string[]], header: readonly string[], columns: Columns): string {
  const rows = v.data.rows.filter((row) => ROWS.find((s) => s.id === row.id)?.phase === phase);
  const line = (r: (typeof rows)[number], key: string, a = v.cell(r.id, key)): string[][] =>
    a ? [[r.label, ...columns(a, key, r.id)]] : [];
  return table(
    header,
    rows.flatMap((r) => cells.flatMap((key) => line(r, key))),
  );
}

/** Ratios shown beside the throughput targets' own. */
const MORE_RATIOS =
  `gqlgw-batch/yoga-dataloader gqlgw-batch/gqlgw-no-batch gqlgw-batch-2-workers/gqlgw-batch gqlgw-batch-coalesce/gqlgw-batch
  gqlgw-batch-coalesce-sharing/gqlgw-batch gqlgw-no-batch-coalesce/gqlgw-no-batch gqlgw-batch/floor ceiling/floor`
    .split(/\s+/)
    .map((pair) => pair.split('/') as [string, string]);

const LIVE_HEADER = [
  'subscribed',
  'upstream calls per tick',
  'CPU µs/subscriber/tick',
  'KB/subscriber',
  'floor KB/stream (node:http alone)',
  'change → event p50 / p99 ms (events)',
];

/** The live-data phase's table (bench/live.ts), when it ran. */
function liveTable(l: BenchResults['live']): string {
  if (l === undefined) return '';
  const [calls, cpu, kb, floor] = [
    l.callsPerTick.join(', '),
    num(l.cpuMicrosPerSubscriberTick, 2),
    num(l.kbPerSubscriber, 2),
    num(l.floorKbPerSubscriber, 2),
  ];
  const delays = [`${ms(l.p50Ms)} / ${ms(l.p99Ms)} (${l.events})`, `${ms(l.webhookP50Ms)} / ${ms(l.webhookP99Ms)} (${l.webhookEvents})`];
  const rows = [[`${l.connected} / ${l.subscribers}`, calls, cpu, kb, floor, ...delays]];
  return `\n## Live data: SSE subscribers of \`@poll(every: ${l.tickMs / 1000})\` \`@batch(max: ${l.keysPerCall})\`, one key each\n\n${table([...LIVE_HEADER, 'webhook → event p50 / p99 ms'], rows)}\n`;
}

export function renderResults(data: BenchResults): string {
  const v = new View(data);
  const s = data.settings;
  const e = data.environment;
  const outcomes = evaluateTargets(v);
  const noisy = data.rows.flatMap((r) => Object.values(r.cells).flat()).filter((c) => c?.noisy).length;
  type Pair = readonly [string, string, string];
  const goals = TARGETS.flatMap((t): Pair[] =>
    t.kind === 'throughput' && t.cell === 'c16' ? [[t.row, t.peer, `${t.strictly ? '>' : '≥'} ${t.atLeast}×`]] : [],
  );
  const ratios = [...goals, ...MORE_RATIOS.map(([a, b]): Pair => [a, b, ''])].filter(
    ([a, b]) => v.row(a) !== undefined && v.row(b) !== undefined,
  );
  const ratioCells = (pairs: readonly Pair[], keys: readonly string[]): string[][] =>
    pairs.map(([a, b, goal]) => [
      `${v.label(a)} / ${v.label(b)}`,
      goal,
      ...keys.map((k) => ratio((v.cell(a, k)?.rps ?? Number.NaN) / (v.cell(b, k)?.rps ?? Number.NaN))),
    ]);
  const lookupKeys = [...SCALE_CONNECTIONS.map((c) => `a${c}`), 'b16', 'b64'];
  const sharing = (['lookup-per-request', 'lookup-dataloader', 'gqlgw-sharing-off', 'gqlgw-sharing-on-young16'] as const)
    .map((b) => ['gqlgw-sharing-on', b, ''] as const)
    .filter(([a, b]) => v.row(a) !== undefined && v.row(b) !== undefined);
  const blogKeys = ['c16', 'c1', 'c64'];
  const [on, off] = [v.cell('gqlgw-revalidate-on', 'r16'), v.cell('gqlgw-revalidate-off', 'r16')];
  const revalidated = on && off ? [['', ratio(on.rps / off.rps), ratio(on.upstreamBytes / off.upstreamBytes)]] : [];
  const problems = data.rows.flatMap((r) => [
    ...r.failures.map((f) => `- ${r.label}: ${f.split('\n')[0]}`),
    ...Object.entries(r.cells).flatMap(([key, cells]) =>
      (cells ?? [])
        .filter((c) => c.wrong > 0)
        .map((c) => `- ${r.label}, ${key}, run ${c.run}: ${c.wrong} wrong, the first: ${c.wrongSample?.replace(/\s+/g, ' ')}`),
    ),
  ]);
  const segments = Math.max(0, ...data.rows.flatMap((r) => r.warmups.map((w) => w.length)));
  return `# gqlgw benchmark results

Written by \`npm run bench\` on ${e.date}, commit ${e.commit}; the run took ${num(data.elapsedSec / 60, 1)} min${s.quick ? ' (**quick mode: short cells, numbers are rough**)' : ''}. How to read it: [README.md](README.md).

- Machine: ${e.machine}; Node ${e.node}, ${e.wrk}; node flags \`${e.nodeFlags}\`.
- Phases: ${s.phases.join(', ')}. ${s.runs} run(s), interleaved, every second run in reverse order; every server started fresh per run, verified, warmed up ${s.warmupSec} s, then measured. Cells: ${s.durationSec} s (16 connections), ${s.secondaryDurationSec} s (1 and 64 connections, each open-loop rate, each shared-batching cell).
- ${s.pinned ? 'Pinned: the server under test on core 0 alone (the 2-worker row on both); backend, load and runner on core 1.' : '**Not pinned** (taskset or a second core missing): ratios are less fair.'}
- Numbers are medians of the runs; "range" is min–max. \`*n\`: n of the runs' cells were noisy (the machine-speed check before or after found a core slowed); ${noisy} noisy cell(s) in this run.

## Targets

${table(
  ['target', 'measured', 'verdict'],
  outcomes.map((o) => [o.text, o.measured, o.verdict]),
)}

## Closed loop (wrk)

${cellTable(v, ['blog', blogKeys], ['row', 'connections', 'req/s', 'range', 'p50 ms', 'p99 ms', 'subreq/query', 'wrong', 'server CPU %', 'CPU µs/query', 'CPU range', 'KB alloc/query', 'backend CPU %', 'peak RSS MiB'], (a, key, id) => [key.slice(1), rpsOf(a), range(a), ms(a.p50Ms), ms(a.p99Ms), num(a.subrequests, 2), String(a.wrong), num(a.serverCpuPct), num(a.cpuMicrosPerQuery), cpuRange(a), num(a.allocatedKb, 1), num(a.backendCpuPct), key === 'c16' ? num(v.peakRssMiB(id)) : ''])}

## Open loop (latency from each request's scheduled send)

${cellTable(v, ['blog', ['open50', 'open80', 'open100']], ['row', 'offered', 'achieved req/s', 'p50 ms', 'p99 ms', 'p99/p50', 'wrong', 'unanswered', 'server CPU %', 'send lag p99 ms'], (a, key) => [`${key.slice(4)} % = ${num(a.offered)}`, rpsOf(a), ms(a.p50Ms), ms(a.p99Ms), num(a.p99Ms / a.p50Ms, 2), String(a.wrong), String(a.unanswered), num(a.serverCpuPct), ms(a.sendLagP99Ms)])}

## Ratios (req/s)

${table(['ratio', 'target', '16 conns', '1 conn', '64 conns'], ratioCells(ratios, blogKeys))}

## Warm-up after each start (req/s per ${WARMUP_SEGMENT_SEC} s segment)

${table(
  ['row', ...Array.from({ length: segments }, (_, i) => `segment ${i + 1}`), 'measured at 16'],
  data.rows
    .filter((r) => r.warmups.length > 0)
    .map((r) => [
      r.label,
      ...Array.from({ length: segments }, (_, i) => num(median(r.warmups.map((w) => w[i] ?? Number.NaN)))),
      num(v.cell(r.id, 'c16')?.rps ?? Number.NaN),
    ]),
)}

## Shared batching: pool-bound backend (2 ms, 16 in service), random keys out of 10,000, closed loop

${cellTable(v, ['shared-batching', lookupKeys], ['row', 'workload, connections', 'req/s', 'range', 'p50 ms', 'p99 ms', 'subreq/query', 'wrong', 'server CPU %', 'CPU µs/query', 'CPU range', 'KB alloc/query'], (a, key) => [`(${key[0]}) ${key.slice(1)}`, rpsOf(a), range(a), ms(a.p50Ms), ms(a.p99Ms), num(a.subrequests, 2), String(a.wrong), num(a.serverCpuPct), num(a.cpuMicrosPerQuery), cpuRange(a), num(a.allocatedKb, 1)])}

${table(['ratio (req/s)', '', ...lookupKeys.map((k) => `(${k[0]}) ${k.slice(1)}`)], ratioCells(sharing, lookupKeys))}

## Revalidation: \`user(id:)\` cached 1 s, 100 keys, 16 connections; the backend sends ETags and answers 304

${cellTable(v, ['revalidation', ['r16']], ['row', 'req/s', 'range', 'p50 ms', 'p99 ms', 'subreq/query', '304s/query', 'upstream body bytes/query', 'upstream body KB/s', 'wrong'], (a) => [rpsOf(a), range(a), ms(a.p50Ms), ms(a.p99Ms), num(a.subrequests, 3), num(a.notModified, 3), num(a.upstreamBytes, 2), num((a.upstreamBytes * a.rps) / 1000, 1), String(a.wrong)])}

${table(['revalidate = true / revalidate = false', 'req/s', 'upstream body bytes/query'], revalidated)}

## Tiny answer: \`{ __typename }\`, no backend call, 16 connections

${cellTable(v, ['tiny', ['t16']], ['row', 'req/s', 'range', 'p50 ms', 'p99 ms', 'wrong', 'server CPU %', 'CPU µs/query', 'CPU range', 'KB alloc/query'], (a) => [rpsOf(a), range(a), ms(a.p50Ms), ms(a.p99Ms), String(a.wrong), num(a.serverCpuPct), num(a.cpuMicrosPerQuery), cpuRange(a), num(a.allocatedKb, 1)])}
${liveTable(data.live)}
${problems.length > 0 ? `\n## Failures and wrong answers\n\n${problems.join('\n')}\n` : ''}`;
}
