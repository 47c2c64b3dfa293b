/**
 * The benchmark's targets (issue 12), defined once: the ratios table, the targets table and the
 * reading all read TARGETS, and `evaluateTargets` is the only place that decides met or missed.
 *
 * - throughput: a gqlgw row's req/s at 16 connections against a peer's, in the same run;
 * - tail: p99 ≤ 3 × p50 in the open loop at 80 % of the row's maximum, for every gqlgw row, which
 *   must have carried that rate (answered at least CARRIED_SHARE of it);
 * - memory: a gqlgw row's peak RSS against the ceiling's, for every one-process gqlgw row (the
 *   row with workers holds several processes and is reported, not compared).
 * The like-for-like throughput rows run with coalescing across requests off (bench/*.toml); the
 * rows with it on are extra and have only the tail target.
 */
import { ROWS, type RowId } from '../rows.js';
import { ms, num, ratio, View } from './view.js';

export type TargetSpec =
  /** `row` ≥ `atLeast` × `peer` in req/s (16 connections); `strictly`: more than. */
  | { readonly kind: 'throughput'; readonly row: RowId; readonly peer: RowId; readonly atLeast: number; readonly strictly?: boolean }
  /** p99 / p50 ≤ `atMost` at 80 % of the row's maximum offered rate (open loop). */
  | { readonly kind: 'tail'; readonly row: RowId; readonly atMost: number }
  /** Peak RSS of `row` ≤ `atMost` × that of `peer`. */
  | { readonly kind: 'memory'; readonly row: RowId; readonly peer: RowId; readonly atMost: number };

const GQLGW_ROWS = ROWS.filter((r) => r.variant !== undefined);

/**
 * The tail target holds only where the row carried the rate: it answered at least this share of
 * the requests offered (healthy rows answer 99 % or more; a row past its capacity falls behind).
 */
export const CARRIED_SHARE = 0.95;

export const TARGETS: readonly TargetSpec[] = [
  { kind: 'throughput', row: 'gqlgw-batch', peer: 'ceiling', atLeast: 0.9 },
  { kind: 'throughput', row: 'gqlgw-batch', peer: 'jit-dataloader', atLeast: 1, strictly: true },
  { kind: 'throughput', row: 'gqlgw-batch-cache', peer: 'per-item-cache', atLeast: 0.9 },
  { kind: 'throughput', row: 'gqlgw-no-batch', peer: 'no-batch-hand-written', atLeast: 0.8 },
  ...GQLGW_ROWS.map((r): TargetSpec => ({ kind: 'tail', row: r.id, atMost: 3 })),
  ...GQLGW_ROWS.filter((r) => (r.workers ?? 1) === 1).map((r): TargetSpec => ({ kind: 'memory', row: r.id, peer: 'ceiling', atMost: 2 })),
];

/** The target as a sentence, e.g. "gqlgw, batch ≥ 0.9 × hand-written (ceiling) (req/s, 16 connections)". */
export function targetText(t: TargetSpec, v: View): string {
  switch (t.kind) {
    case 'throughput':
      return t.strictly
        ? `${v.label(t.row)} ahead of ${v.label(t.peer)} (req/s, 16 connections)`
        : `${v.label(t.row)} ≥ ${t.atLeast} × ${v.label(t.peer)} (req/s, 16 connections)`;
    case 'tail':
      return `${v.label(t.row)}: p99 ≤ ${t.atMost} × p50 at 80 % of its maximum offered rate`;
    case 'memory':
      return `${v.label(t.row)}: peak RSS ≤ ${t.atMost} × ${v.label(t.peer)}'s`;
  }
}

/** The ratio a throughput target compares, as the ratios table shows it: "≥ 0.9×" or "> 1×". */
export function throughputGoal(t: Extract<TargetSpec, { kind: 'throughput' }>): string {
  return `${t.strictly ? '>' : '≥'} ${t.atLeast}×`;
}

export interface TargetOutcome {
  readonly spec: TargetSpec;
  readonly text: string;
  readonly measured: string;
  /** undefined: not measured in this run. */
  readonly met: boolean | undefined;
  readonly verdict: string;
}

/** A target's verdict: not measured, met (saying by how much, when `metText` is given) or missed. */
function verdictOf(met: boolean | undefined, metText: () => string, missedText: () => string): string {
  if (met === undefined) return 'not measured';
  return met ? metText() : missedText();
}

export function evaluateTargets(v: View): TargetOutcome[] {
  return TARGETS.map((spec) => {
    const text = targetText(spec, v);
    switch (spec.kind) {
      case 'throughput': {
        const a = v.rps(spec.row);
        const b = v.rps(spec.peer);
        const r = a / b;
        const met = Number.isFinite(r) ? (spec.strictly ? r > spec.atLeast : r >= spec.atLeast) : undefined;
        return {
          spec,
          text,
          measured: `${ratio(r)} (${num(a)} vs ${num(b)} req/s)`,
          met,
          verdict: verdictOf(
            met,
            () => `met by ${num(((r - spec.atLeast) / spec.atLeast) * 100, 1)} %`,
            () => `missed by ${num(((spec.atLeast - r) / spec.atLeast) * 100, 1)} % (needs ${num(spec.atLeast * b)} req/s)`,
          ),
        };
      }
      case 'tail': {
        const a = v.cell(spec.row, 'open80');
        const r = a === undefined ? Number.NaN : a.p99Ms / a.p50Ms;
        // A row that answered clearly less than it was offered did not carry the load: its p50 is
        // queueing too, so a small p99/p50 there says nothing about its tail.
        const overloaded = a !== undefined && a.rps < CARRIED_SHARE * a.offered;
        const met = Number.isFinite(r) ? r <= spec.atMost && !overloaded : undefined;
        const missed = overloaded
          ? () => `missed: overloaded (answered ${num(a.rps)} of ${num(a.offered)} req/s offered)`
          : () => `missed: p99 is ${num(r, 1)} × p50, ${num(((r - spec.atMost) / spec.atMost) * 100, 0)} % over`;
        return {
          spec,
          text,
          measured:
            a === undefined
              ? '–'
              : `p99/p50 = ${num(r, 2)} (${ms(a.p99Ms)} / ${ms(a.p50Ms)} ms at ${num(a.offered)} req/s${byRun(v, spec.row)})`,
          met,
          verdict: verdictOf(met, () => 'met', missed),
        };
      }
      case 'memory': {
        const a = v.peakRssMiB(spec.row);
        const b = v.peakRssMiB(spec.peer);
        const r = a / b;
        const met = Number.isFinite(r) ? r <= spec.atMost : undefined;
        return {
          spec,
          text,
          measured: `${ratio(r)} (${num(a)} vs ${num(b)} MiB)`,
          met,
          verdict: verdictOf(
            met,
            () => 'met',
            () => `missed by ${num(((r - spec.atMost) / spec.atMost) * 100, 1)} % (needs ≤ ${num(spec.atMost * b)} MiB)`,
          ),
        };
      }
    }
  });
}

/**
 * Each run's own p99/p50 at 80 %, in run order, when there is more than one run: the verdict reads
 * the medians, and one mark-compact more or less in a cell of a few seconds moves a run's ratio a
 * lot (docs/performance.md "The tail at 80 %"), so the runs are shown beside it.
 */
function byRun(v: View, row: RowId): string {
  const cells = v.row(row)?.cells.open80 ?? [];
  return cells.length > 1 ? `; by run ${cells.map((c) => num(c.p99Ms / c.p50Ms, 2)).join(', ')}` : '';
}
