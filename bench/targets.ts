/**
 * The benchmark's targets, defined once (issue 12's for the blog rows, issue 38's for tracing,
 * issue 33's for the shared-batching rows, issue 49's for CPU and allocation per query, issue 48's for live data), and `evaluateTargets`, the only place that decides met or missed. Every
 * target but the live ones (absolute bounds, bench/live.ts) is a ratio of medians measured side by side in the same run.
 */
import { median } from './driver/stats.js';
import type { LiveResult } from './live.js';
import type { BenchResults, CellRun, RowResult } from './results.js';
import { ROWS, SCALE_CONNECTIONS } from './rows.js';

/** Two rows compared at one cell (`c16`, `a64`, …). */
type Compared = { readonly row: string; readonly peer: string; readonly cell: string };

export type TargetSpec =
  /** `row` ≥ `atLeast` × `peer` in req/s at `cell`; `strictly`: more than. */
  | (Compared & { readonly kind: 'throughput'; readonly atLeast: number; readonly strictly?: boolean })
  /** Open loop at 80 % of the row's maximum: p99 ≤ `atMost` × p50, and the rate carried. */
  | { readonly kind: 'tail'; readonly row: string; readonly atMost: number }
  /** p99 of `row` ≤ p99 of `peer` at `cell`. */
  | (Compared & { readonly kind: 'p99' })
  /** `row`'s server CPU (`cpu`, µs) or young-generation allocation (`alloc`, KB) per query ≤ `atMost` × `peer`'s at `cell`; `strictly`: below. */
  | (Compared & { readonly kind: 'per-query'; readonly measure: 'cpu' | 'alloc'; readonly atMost: number; readonly strictly?: boolean })
  /** Peak RSS of `row` ≤ `atMost` × that of `peer`. */
  | { readonly kind: 'memory'; readonly row: string; readonly peer: string; readonly atMost: number }
  /** No wrong answer in any cell or warm-up of any row. */
  | { readonly kind: 'wrong' }
  /** The live-data phase (bench/live.ts): `value` ≤ `bound`, in `unit`. */
  | { readonly kind: 'live'; readonly text: string; readonly unit: string; value(l: LiveResult): number; bound(l: LiveResult): number };

/** A row that answered less than this share of the rate offered did not carry it: its tail target is missed. */
export const CARRIED_SHARE = 0.95;

const GQLGW_BLOG_ROWS = ROWS.filter((r) => r.phase === 'blog' && r.config !== undefined);
const SHARING = 'gqlgw-sharing-on';

type Of = (l: LiveResult) => number;
/** The live-data targets: what, the unit, the value, its bound. */
const LIVE: ReadonlyArray<readonly [string, string, Of, Of]> = [
  [
    'upstream calls per tick ≤ 1.05 × ceil(keys / max)',
    'calls',
    (l) => Math.max(...l.callsPerTick),
    (l) => 1.05 * Math.ceil(l.subscribers / l.keysPerCall),
  ],
  ['RSS growth per subscriber ≤ 10 KB', 'KB', (l) => l.kbPerSubscriber, () => 10],
  ['p99 delay from an upstream change to its event ≤ one tick + 50 ms', 'ms', (l) => l.p99Ms, (l) => l.tickMs + 50],
  ['p99 delay from a webhook delivery to its event ≤ 50 ms', 'ms', (l) => l.webhookP99Ms, () => 50],
];

export const TARGETS: readonly TargetSpec[] = [
  { kind: 'throughput', row: 'gqlgw-batch-tracing', peer: 'gqlgw-batch', cell: 'c16', atLeast: 0.85 },
  { kind: 'throughput', row: 'gqlgw-batch', peer: 'ceiling', cell: 'c16', atLeast: 0.9 },
  { kind: 'throughput', row: 'gqlgw-batch', peer: 'jit-dataloader', cell: 'c16', atLeast: 1, strictly: true },
  { kind: 'throughput', row: 'gqlgw-batch-cache', peer: 'per-item-cache', cell: 'c16', atLeast: 0.9 },
  { kind: 'throughput', row: 'gqlgw-no-batch', peer: 'no-batch-hand-written', cell: 'c16', atLeast: 0.8 },
  ...GQLGW_BLOG_ROWS.map((r): TargetSpec => ({ kind: 'tail', row: r.id, atMost: 3 })),
  ...GQLGW_BLOG_ROWS.filter((r) => !r.workers).map((r): TargetSpec => ({ kind: 'memory', row: r.id, peer: 'ceiling', atMost: 2 })),
  ...[...SCALE_CONNECTIONS.map((c) => `a${c}`), 'b64'].map((cell): TargetSpec => ({
    kind: 'throughput',
    row: SHARING,
    peer: 'lookup-dataloader',
    cell,
    atLeast: 1,
  })),
  { kind: 'throughput', row: SHARING, peer: 'lookup-per-request', cell: 'a1', atLeast: 0.95 },
  { kind: 'p99', row: SHARING, peer: 'lookup-dataloader', cell: 'a1024' },
  { kind: 'throughput', row: SHARING, peer: 'lookup-per-request', cell: 'a64', atLeast: 1.8 },
  ...['a16', 'b16'].map((cell): TargetSpec => ({ kind: 'throughput', row: SHARING, peer: 'lookup-per-request', cell, atLeast: 0.95 })),
  ...['a64', 'b64'].map((cell): TargetSpec => ({ kind: 'p99', row: SHARING, peer: 'lookup-dataloader', cell })),
  { kind: 'per-query', measure: 'cpu', row: 'gqlgw-batch', peer: 'ceiling', cell: 'c16', atMost: 1.15 },
  { kind: 'per-query', measure: 'cpu', row: 'gqlgw-batch', peer: 'jit-dataloader', cell: 'c16', atMost: 1, strictly: true },
  ...['a64', 'b64'].flatMap((cell): TargetSpec[] => [
    { kind: 'per-query', measure: 'cpu', row: SHARING, peer: 'lookup-dataloader', cell, atMost: 1.1 },
    { kind: 'per-query', measure: 'alloc', row: SHARING, peer: 'lookup-dataloader', cell, atMost: 1.2 },
  ]),
  { kind: 'per-query', measure: 'cpu', row: 'gqlgw-tiny', peer: 'floor-tiny', cell: 't16', atMost: 1.3 },
  { kind: 'wrong' },
  ...LIVE.map(([text, unit, value, bound]): TargetSpec => ({ kind: 'live', text, unit, value, bound })),
];

/** Medians over the runs of one cell, with the range of req/s, how many runs were noisy, and sums of wrong answers. */
export function aggregate(cells: readonly CellRun[] | undefined) {
  if (cells === undefined || cells.length === 0) return undefined;
  const m = (f: (c: CellRun) => number | undefined): number => median(cells.map((c) => f(c) ?? Number.NaN));
  const rps = cells.map((c) => c.rps);
  return {
    runs: cells.length,
    noisy: cells.filter((c) => c.noisy).length,
    rps: median(rps),
    rpsMin: Math.min(...rps),
    rpsMax: Math.max(...rps),
    p50Ms: m((c) => c.p50Ms),
    p99Ms: m((c) => c.p99Ms),
    subrequests: m((c) => c.subrequestsPerQuery),
    upstreamBytes: m((c) => c.upstreamBytesPerQuery),
    notModified: m((c) => c.notModifiedPerQuery),
    serverCpuPct: m((c) => c.serverCpuPct),
    backendCpuPct: m((c) => c.backendCpuPct),
    cpuMicrosPerQuery: m((c) => c.serverCpuMicrosPerQuery ?? (c.rps > 0 ? (c.serverCpuPct / 100 / c.rps) * 1e6 : Number.NaN)),
    cpuMicrosMin: Math.min(...cells.map((c) => c.serverCpuMicrosPerQuery ?? Number.NaN)),
    cpuMicrosMax: Math.max(...cells.map((c) => c.serverCpuMicrosPerQuery ?? Number.NaN)),
    allocatedKb: m((c) => c.allocatedKbPerQuery),
    offered: m((c) => c.offeredRps),
    sendLagP99Ms: m((c) => c.sendLagP99Ms),
    wrong: cells.reduce((s, c) => s + c.wrong, 0),
    unanswered: cells.reduce((s, c) => s + (c.unanswered ?? 0), 0),
  };
}

export type Aggregate = NonNullable<ReturnType<typeof aggregate>>;

export const num = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toFixed(digits) : '–');
export const ms = (n: number): string => (!Number.isFinite(n) ? '–' : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0));
export const ratio = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–');

/** What the tables and targets read from one run's results. */
export class View {
  constructor(readonly data: BenchResults) {}

  row(id: string): RowResult | undefined {
    return this.data.rows.find((r) => r.id === id);
  }
  cell(id: string, key: string): Aggregate | undefined {
    return aggregate(this.row(id)?.cells[key]);
  }
  label(id: string): string {
    return ROWS.find((r) => r.id === id)?.label ?? id;
  }
  /** Median over the runs of the row's peak resident memory, MiB. */
  peakRssMiB(id: string): number {
    return median((this.row(id)?.peakRssMiB ?? []).filter(Number.isFinite));
  }
  /** Every measured cell and warm-up of every row. */
  wrongTotals(): { wrong: number; responses: number } {
    const cells = this.data.rows.flatMap((r) => Object.values(r.cells).flat()) as CellRun[];
    const warmups = this.data.rows.reduce((s, r) => s + r.warmupWrong, 0);
    return { wrong: warmups + cells.reduce((s, c) => s + c.wrong, 0), responses: cells.reduce((s, c) => s + c.responses, 0) };
  }
}

export interface TargetOutcome {
  readonly text: string;
  readonly measured: string;
  /** undefined: not measured in this run. */
  readonly met: boolean | undefined;
  readonly verdict: string;
}

/** `c16` is the blog's (or `t16` the tiny workload's) 16 connections; `a64` is workload (a) at 64. */
const cellText = (key: string): string => `${'ct'.includes(key[0]!) ? '' : `(${key[0]}), `}${key.slice(1)} connections`;

/** ", n of m cells noisy" when any cell a target reads was measured on a slowed core. */
function noiseNote(...cells: ReadonlyArray<Aggregate | undefined>): string {
  const noisy = cells.reduce((s, a) => s + (a?.noisy ?? 0), 0);
  return noisy === 0 ? '' : `; ${noisy} of ${cells.reduce((s, a) => s + (a?.runs ?? 0), 0)} cells noisy`;
}

/** A target: what it says, its value (NaN: not measured), whether it is met, what was measured, and how it was missed. */
interface Judgement {
  readonly text: string;
  readonly value: number;
  readonly met: boolean;
  readonly measured: string;
  readonly missed: string;
}

const NAN = Number.NaN;

function judge(t: TargetSpec, v: View): Judgement {
  switch (t.kind) {
    case 'throughput': {
      const [a, b] = [v.cell(t.row, t.cell), v.cell(t.peer, t.cell)];
      const r = (a?.rps ?? NAN) / (b?.rps ?? NAN);
      const measured = `${ratio(r)} (${num(a?.rps ?? NAN)} vs ${num(b?.rps ?? NAN)} req/s${noiseNote(a, b)})`;
      return {
        text: `${v.label(t.row)} ${t.strictly ? 'ahead of' : `≥ ${t.atLeast} ×`} ${v.label(t.peer)} (req/s, ${cellText(t.cell)})`,
        value: r,
        met: t.strictly ? r > t.atLeast : r >= t.atLeast,
        measured,
        missed: `missed by ${num(((t.atLeast - r) / t.atLeast) * 100, 1)} %`,
      };
    }
    case 'tail': {
      const a = v.cell(t.row, 'open80');
      const r = (a?.p99Ms ?? NAN) / (a?.p50Ms ?? NAN);
      const overloaded = a !== undefined && a.rps < CARRIED_SHARE * a.offered;
      return {
        text: `${v.label(t.row)}: p99 ≤ ${t.atMost} × p50 at 80 % of its maximum offered rate`,
        value: r,
        met: r <= t.atMost && !overloaded,
        measured: `p99/p50 = ${num(r, 2)} (${ms(a?.p99Ms ?? NAN)} / ${ms(a?.p50Ms ?? NAN)} ms${noiseNote(a)})`,
        missed: overloaded
          ? `missed: overloaded (answered ${num(a.rps)} of ${num(a.offered)} req/s offered)`
          : `missed: p99 is ${num(r, 1)} × p50`,
      };
    }
    case 'p99': {
      const [a, b] = [v.cell(t.row, t.cell), v.cell(t.peer, t.cell)];
      const r = (a?.p99Ms ?? NAN) / (b?.p99Ms ?? NAN);
      return {
        text: `${v.label(t.row)}: p99 ≤ ${v.label(t.peer)}'s (${cellText(t.cell)})`,
        value: r,
        met: r <= 1,
        measured: `${ms(a?.p99Ms ?? NAN)} vs ${ms(b?.p99Ms ?? NAN)} ms${noiseNote(a, b)}`,
        missed: `missed: ${ratio(r)} the peer's p99`,
      };
    }
    case 'per-query': {
      const [a, b] = [v.cell(t.row, t.cell), v.cell(t.peer, t.cell)];
      const of = (x: Aggregate | undefined): number => (t.measure === 'cpu' ? x?.cpuMicrosPerQuery : x?.allocatedKb) ?? NAN;
      const r = of(a) / of(b);
      const [what, unit] = t.measure === 'cpu' ? ['CPU', 'µs'] : ['young-generation allocation', 'KB'];
      return {
        text: `${v.label(t.row)}: ${what} per query ${t.strictly ? 'below' : `≤ ${t.atMost} ×`} ${v.label(t.peer)}'s (${cellText(t.cell)})`,
        value: r,
        met: t.strictly ? r < t.atMost : r <= t.atMost,
        measured: `${ratio(r)} (${num(of(a), 1)} vs ${num(of(b), 1)} ${unit}${noiseNote(a, b)})`,
        missed: `missed by ${num(((r - t.atMost) / t.atMost) * 100, 1)} %`,
      };
    }
    case 'memory': {
      const r = v.peakRssMiB(t.row) / v.peakRssMiB(t.peer);
      const measured = `${ratio(r)} (${num(v.peakRssMiB(t.row))} vs ${num(v.peakRssMiB(t.peer))} MiB)`;
      const missed = `missed by ${num(((r - t.atMost) / t.atMost) * 100, 1)} %`;
      return { text: `${v.label(t.row)}: peak RSS ≤ ${t.atMost} × ${v.label(t.peer)}'s`, value: r, met: r <= t.atMost, measured, missed };
    }
    case 'wrong': {
      const { wrong, responses } = v.wrongTotals();
      return {
        text: 'every answer right (0 wrong, all rows, cells and warm-ups)',
        value: responses > 0 ? wrong : NAN,
        met: wrong === 0,
        measured: `${wrong} wrong of ${responses} measured responses`,
        missed: 'missed',
      };
    }
    case 'live': {
      const [value, most] = v.data.live ? [t.value(v.data.live), t.bound(v.data.live)] : [NAN, NAN];
      const [measured, missed] = [`${num(value, 1)} ${t.unit} (bound ${num(most, 1)})`, `missed by ${num(value - most, 1)} ${t.unit}`];
      return { text: `live: ${t.text}`, value, met: value <= most, measured, missed };
    }
  }
}

/** Every target's outcome; one whose rows were not measured in this run says so. */
export function evaluateTargets(v: View): TargetOutcome[] {
  return TARGETS.map((t) => {
    const { text, ...j } = judge(t, v);
    if (!Number.isFinite(j.value)) return { text, measured: '–', met: undefined, verdict: 'not measured' };
    return { text, measured: j.measured, met: j.met, verdict: j.met ? 'met' : j.missed };
  });
}
