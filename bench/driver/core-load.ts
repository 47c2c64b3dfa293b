/**
 * Busy time of each CPU core from /proc/stat, to see how loaded the server's core was over a cell
 * in total. Busy minus the server process's own CPU is load from other processes (this machine
 * is shared), which makes a cell's numbers less trustworthy.
 */
import { readFileSync } from 'node:fs';

export interface CoreTimes {
  readonly busy: number;
  readonly total: number;
}

/** Per-core cumulative jiffies; empty where /proc/stat is missing. */
export function readCoreTimes(): CoreTimes[] {
  try {
    const out: CoreTimes[] = [];
    for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
      const m = /^cpu(\d+)\s+(.*)$/.exec(line);
      if (!m) continue;
      const v = (m[2] ?? '').trim().split(/\s+/).map(Number);
      // user nice system idle iowait irq softirq steal (guest times are inside user/nice)
      const total = v.slice(0, 8).reduce((s, x) => s + x, 0);
      const idle = (v[3] ?? 0) + (v[4] ?? 0);
      out[Number(m[1])] = { busy: total - idle, total };
    }
    return out;
  } catch {
    return [];
  }
}

/** Busy share (0–100) of `core` between two readings; NaN when unknown. */
export function coreBusyPct(before: readonly CoreTimes[], after: readonly CoreTimes[], core: number): number {
  const a = before[core];
  const b = after[core];
  if (a === undefined || b === undefined || b.total === a.total) return Number.NaN;
  return ((b.busy - a.busy) / (b.total - a.total)) * 100;
}
