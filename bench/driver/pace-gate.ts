/**
 * The pace gate: each measured cell runs between two probes that find both cores at the
 * machine's usual pace (bench/driver/speed-probe.ts has why the project's machine has two paces
 * about 1.6× apart).
 *
 * Why: the pace stays put for seconds to minutes (consecutive probes a second apart agree within
 * 15 % in 63 of 66 pairs, docs/performance.md), and a cell measured on a slowed core measures
 * the machine: at 80 % of a server's maximum load a core 1.6× slower is an overload, and at 16
 * connections a slowed load core (the backend's) makes every row slower, whatever the server.
 * The gate waits for the usual pace before a cell and measures the cell again when the probe
 * right after it finds a core slowed. It does this for every row alike. A pace that slows and
 * recovers within one cell, between the two probes, goes unseen.
 *
 * Contract (pure, apart from the probe, the measurement, the sleep and the clock it is given):
 * - The gate's reference for a core is a low percentile (REFERENCE_QUANTILE) of the probes it
 *   has been shown (`observe`): every probe of the run, the ones around sessions included. With
 *   up to 10 probes that is the fastest; later, a few freak-fast probes cannot make every
 *   ordinary one read slowed.
 * - A probe is slow when either core takes more than SLOW_FACTOR × its reference.
 * - `waitForUsualPace` probes; while the probe is slow and less than `maxWaitSec` has passed, it
 *   sleeps RETRY_SEC and probes again. It says how long it waited and whether the last probe was
 *   still slow.
 * - `measureAtUsualPace` waits (as above), measures, and probes again. A cell whose probes before
 *   and after were both at the usual pace is kept. (The probe given should first let the cell's
 *   own work drain, or it reads the servers finishing as a slowed core.) Otherwise the cell is measured again, up to
 *   MAX_ATTEMPTS in all; every wait of a cell shares one budget of `maxWaitSec`. When no attempt
 *   was clean, the last one is kept and marked slowed, for the report to name.
 * - The gate holds the run's budget: every wait, and every attempt after a cell's first, is spent
 *   from it. A wait never exceeds what is left; once nothing is left, cells are measured once
 *   and only marked. So a slow spell of many minutes lengthens a run by the budget at most.
 * - A failed probe (undefined) counts as the usual pace: the gate never blocks a run.
 */
import { setTimeout as sleepMs } from 'node:timers/promises';
import type { CoreSpeeds } from '../results.js';

/** More than this × a core's reference is a slowed core (the two paces are ~1.6× apart). */
export const SLOW_FACTOR = 1.25;
/** Which of a core's probes, fastest first, is its reference: the 10th percentile. */
export const REFERENCE_QUANTILE = 0.1;
/** Seconds between two probes while waiting. */
export const RETRY_SEC = 2;
/** How many times one cell is measured at most. */
export const MAX_ATTEMPTS = 3;

/** What the gate did around one cell. */
export interface PaceWait {
  /**
   * Seconds spent waiting for the usual pace: from a wait's first probe to its last, summed over
   * the cell's attempts (0 when every wait's first probe found the usual pace).
   */
  readonly waitedSec: number;
  /** No attempt ran between two probes at the usual pace: the kept one ran on a slowed machine. */
  readonly slow: boolean;
  /** How many times the cell was measured (1 when its first attempt was clean); absent before retries existed. */
  readonly attempts?: number;
}

export class PaceGate {
  /** Every probe observed, per core, fastest (fewest µs) first. */
  private readonly probes = { serverCore: [] as number[], loadCore: [] as number[] };
  private budget: number;

  /** `budgetSec`: what the run may spend in all on waits and on cells measured again. */
  constructor(budgetSec = Number.POSITIVE_INFINITY) {
    this.budget = budgetSec;
  }

  /** Seconds of the run's budget left for waits and cells measured again. */
  get remainingSec(): number {
    return this.budget;
  }

  spend(sec: number): void {
    this.budget = Math.max(0, this.budget - sec);
  }

  observe(speeds: CoreSpeeds): void {
    for (const core of ['serverCore', 'loadCore'] as const) {
      const sorted = this.probes[core];
      const at = sorted.findIndex((v) => v > speeds[core]);
      sorted.splice(at < 0 ? sorted.length : at, 0, speeds[core]);
    }
  }

  /** A core's reference (µs per probe operation); undefined before any probe. */
  reference(core: keyof CoreSpeeds): number | undefined {
    const sorted = this.probes[core];
    return sorted[Math.floor(REFERENCE_QUANTILE * (sorted.length - 1))];
  }

  /** Either core over SLOW_FACTOR × its reference; false before any reference exists. */
  isSlow(speeds: CoreSpeeds): boolean {
    const server = this.reference('serverCore');
    const load = this.reference('loadCore');
    if (server === undefined || load === undefined) return false;
    return speeds.serverCore > SLOW_FACTOR * server || speeds.loadCore > SLOW_FACTOR * load;
  }
}

export interface WaitOptions {
  readonly probe: () => Promise<CoreSpeeds | undefined>;
  readonly maxWaitSec: number;
  readonly sleep?: (sec: number) => Promise<void>;
  /** Seconds since some fixed point (performance.now() / 1000 by default). */
  readonly clock?: () => number;
}

const realSleep = async (sec: number): Promise<void> => {
  await sleepMs(sec * 1000);
};

export async function waitForUsualPace(gate: PaceGate, options: WaitOptions): Promise<PaceWait> {
  const { probe, maxWaitSec, sleep = realSleep, clock = () => performance.now() / 1000 } = options;
  let speeds = await probe();
  const start = clock();
  let waitedSec = 0;
  for (;;) {
    if (speeds === undefined) return { waitedSec, slow: false };
    const slow = gate.isSlow(speeds);
    gate.observe(speeds);
    if (!slow || waitedSec + RETRY_SEC > maxWaitSec) return { waitedSec, slow };
    await sleep(RETRY_SEC);
    speeds = await probe();
    waitedSec = clock() - start;
  }
}

/**
 * Measures a cell between two probes at the usual pace, up to MAX_ATTEMPTS times (contract
 * above); `maxWaitSec` is the budget of all its waits.
 */
export async function measureAtUsualPace<T>(
  gate: PaceGate,
  options: WaitOptions,
  measure: () => Promise<T>,
): Promise<{ result: T; pace: PaceWait }> {
  const { probe, maxWaitSec, clock = () => performance.now() / 1000 } = options;
  let waitedSec = 0;
  for (let attempts = 1; ; attempts++) {
    const before = await waitForUsualPace(gate, {
      ...options,
      maxWaitSec: Math.max(0, Math.min(maxWaitSec - waitedSec, gate.remainingSec)),
    });
    waitedSec += before.waitedSec;
    gate.spend(before.waitedSec);
    const start = clock();
    const result = await measure();
    if (attempts > 1) gate.spend(clock() - start);
    const after = await probe();
    const slowAfter = after !== undefined && gate.isSlow(after);
    if (after !== undefined) gate.observe(after);
    const clean = !before.slow && !slowAfter;
    if (clean || attempts >= MAX_ATTEMPTS || gate.remainingSec <= 0) return { result, pace: { waitedSec, slow: !clean, attempts } };
  }
}
