/**
 * RESULTS.md's "Machine speed around each session": the speed probe (bench/driver/speed-probe.ts)
 * of both cores right before and right after every server session, each relative to the median
 * of all of that core's probes in the run (1.00 = the machine's usual pace, 0.70 = 30 % slower),
 * and which sessions ran on a slowed machine.
 */
import { median } from '../driver/stats.js';
import type { BenchResults, CellRun, CoreSpeeds } from '../results.js';
import type { RowId } from '../rows.js';
import { table, type View } from './view.js';

/** A probe under this share of the usual pace marks its session as measured on a slowed machine. */
export const SLOW_PACE = 0.85;

/** One session's probes as paces (usual µs per operation / this probe's). */
export interface SessionPace {
  readonly rowId: RowId;
  readonly label: string;
  readonly run: number;
  readonly before: CoreSpeeds;
  readonly after: CoreSpeeds;
}

export function sessionPaces(data: BenchResults): SessionPace[] {
  const all = data.rows.flatMap((r) => r.speed ?? []);
  const usual = (core: keyof CoreSpeeds): number => median(all.flatMap((s) => [s.before[core], s.after[core]]));
  const usualServer = usual('serverCore');
  const usualLoad = usual('loadCore');
  const pace = (c: CoreSpeeds): CoreSpeeds => ({ serverCore: usualServer / c.serverCore, loadCore: usualLoad / c.loadCore });
  return data.rows.flatMap((r) =>
    (r.speed ?? []).map((s) => ({ rowId: r.id, label: r.label, run: s.run, before: pace(s.before), after: pace(s.after) })),
  );
}

/** The slowest of a session's four paces. */
export function slowestPace(s: SessionPace): number {
  return Math.min(s.before.serverCore, s.after.serverCore, s.before.loadCore, s.after.loadCore);
}

/** Sessions with a probe under SLOW_PACE, slowest first. */
export function slowSessions(data: BenchResults): SessionPace[] {
  return sessionPaces(data)
    .filter((s) => slowestPace(s) < SLOW_PACE)
    .sort((a, b) => slowestPace(a) - slowestPace(b));
}

const two = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : '–');

/** "core 0 before→after, core 1 before→after", slow paces in bold. */
function paceCell(s: SessionPace): string {
  const mark = (n: number): string => (n < SLOW_PACE ? `**${two(n)}**` : two(n));
  return `${mark(s.before.serverCore)}→${mark(s.after.serverCore)} · ${mark(s.before.loadCore)}→${mark(s.after.loadCore)}`;
}

/** The table, or undefined when the run has no probes (unpinned, or results from before the probe). */
export function speedTable(v: View): string | undefined {
  const paces = sessionPaces(v.data);
  if (paces.length === 0) return undefined;
  const runs = Math.max(...paces.map((p) => p.run));
  const rows = v.data.rows
    .filter((r) => paces.some((p) => p.rowId === r.id))
    .map((r) => [
      r.label,
      ...Array.from({ length: runs }, (_, i) => {
        const s = paces.find((p) => p.rowId === r.id && p.run === i + 1);
        return s === undefined ? '–' : paceCell(s);
      }),
    ]);
  return table(['row', ...Array.from({ length: runs }, (_, i) => `run ${i + 1}: server core · load core`)], rows);
}

/**
 * The same results without the cells of slowed sessions (slowSessions) and the cells the pace gate
 * measured on a slowed core, for a second reading of the targets; undefined when there are none.
 * Peak RSS and the probes are kept as they are.
 */
export function atUsualPace(data: BenchResults): BenchResults | undefined {
  const slow = slowSessions(data);
  if (slow.length === 0 && gatedSlowCells(data).length === 0) return undefined;
  const isSlow = (id: RowId, c: CellRun): boolean => c.pace?.slow === true || slow.some((s) => s.rowId === id && s.run === c.run);
  return {
    ...data,
    rows: data.rows.map((r) => ({
      ...r,
      cells: Object.fromEntries(Object.entries(r.cells).map(([key, cells]) => [key, (cells ?? []).filter((c) => !isSlow(r.id, c))])),
    })),
  };
}

/** Cells the pace gate kept although a core was slowed around every attempt. */
export function gatedSlowCells(data: BenchResults): Array<{ label: string; key: string; run: number | undefined }> {
  return data.rows.flatMap((r) =>
    Object.entries(r.cells).flatMap(([key, cells]) =>
      (cells ?? []).filter((c) => c.pace?.slow === true).map((c) => ({ label: r.label, key, run: c.run })),
    ),
  );
}

const CELL_NAMES: Record<string, string> = {
  c16: '16 connections',
  c1: '1 connection',
  c64: '64 connections',
  open50: 'open 50 %',
  open80: 'open 80 %',
  open100: 'open 100 %',
};

/** What the pace gate did over the run, for the speed section; undefined when it did not run. */
export function paceGateSentence(data: BenchResults): string | undefined {
  const gated = data.rows.flatMap((r) =>
    Object.values(r.cells).flatMap((cells) => (cells ?? []).flatMap((c) => (c.pace === undefined ? [] : [c.pace]))),
  );
  if (gated.length === 0) return undefined;
  const waited = gated.filter((p) => p.waitedSec > 0);
  const longest = Math.max(0, ...waited.map((p) => p.waitedSec));
  const total = waited.reduce((sum, p) => sum + p.waitedSec, 0);
  const slow = gatedSlowCells(data);
  const named = slow
    .slice(0, 8)
    .map((c) => `${c.label}, ${CELL_NAMES[c.key] ?? c.key}, run ${c.run ?? '?'}`)
    .join('; ');
  const again = gated.filter((p) => (p.attempts ?? 1) > 1);
  const maxAttempts = Math.max(1, ...gated.map((p) => p.attempts ?? 1));
  const waitText =
    waited.length === 0
      ? `The pace gate found both cores at their usual pace before all ${gated.length} measured cells.`
      : `The pace gate waited for the usual pace before ${waited.length} of ${gated.length} measured cells (${Math.round(total)} s in all, the longest ${Math.round(longest)} s).`;
  const againText =
    again.length === 0
      ? ''
      : ` It measured ${again.length} cell${again.length === 1 ? '' : 's'} again because a probe before or after it found a core slowed (at most ${maxAttempts} attempts for one cell).`;
  const slowText =
    slow.length === 0
      ? ' Every kept cell ran between two probes at the usual pace.'
      : ` ${slow.length} cell${slow.length === 1 ? '' : 's'} had a core slowed around every attempt (the last attempt is kept and marked): ${named}${slow.length > 8 ? '; …' : ''}.`;
  const budget = data.settings.paceBudgetSec;
  const left = data.paceBudgetLeftSec;
  const budgetText =
    budget === undefined || left === undefined
      ? ''
      : left <= 0
        ? ` The run spent all of the gate's ${budget} s budget; the cells after that were measured once and only marked.`
        : ` The run spent ${Math.round(budget - left)} s of the gate's ${budget} s budget.`;
  return waitText + againText + slowText + budgetText;
}

/** A sentence for the reading: which sessions ran slowed, or that none did. */
export function speedReading(data: BenchResults): string | undefined {
  const paces = sessionPaces(data);
  if (paces.length === 0) return undefined;
  const slow = slowSessions(data);
  if (slow.length === 0)
    return `- The machine-speed probe found both cores at ${SLOW_PACE}× or more of their usual pace around all ${paces.length} server sessions: the spread in the tables is the servers' own, or the machine's within a session.`;
  const named = slow
    .slice(0, 8)
    .map((s) => `${s.label} run ${s.run} (${two(slowestPace(s))}×)`)
    .join(', ');
  return `- The machine-speed probe found a core under ${SLOW_PACE}× of its usual pace around ${slow.length} of ${paces.length} server sessions: ${named}${slow.length > 8 ? ', …' : ''}. Those sessions' cells are in the medians; a ratio or a tail that leans on one of them measures the machine's pace as much as the server ("Machine speed around each session").`;
}
