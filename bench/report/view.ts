/**
 * What the report reads from one run's results: medians over the runs of each cell (with their
 * spread), the number formats, and a View over the rows that the tables, the targets and the
 * reading share.
 */
import { median, relativeSpread } from '../driver/stats.js';
import type { BenchResults, CellKey, CellRun, RowResult } from '../results.js';
import { ROWS, type RowId } from '../rows.js';

/** Medians over the runs of one cell. */
export interface Aggregate {
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

export function aggregate(cells: readonly CellRun[] | undefined): Aggregate | undefined {
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

export const num = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toFixed(digits) : '–');
export const ms = (n: number): string => (!Number.isFinite(n) ? '–' : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0));
export const pct = (fraction: number): string => (Number.isFinite(fraction) ? `±${(fraction * 50).toFixed(1)} %` : '–');
export const ratio = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–');

export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const align = header.map((_, i) => (i === 0 ? ':---' : '---:'));
  return [header, align, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

export class View {
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

  /** Median over the runs of the row's peak resident memory, MiB; NaN when not measured. */
  peakRssMiB(id: RowId): number {
    const values = (this.row(id)?.peakRssMiB ?? []).filter((x) => Number.isFinite(x));
    return median(values);
  }
}
