/**
 * The pace gate: before each measured cell, wait until both cores run at the machine's usual
 * pace (bench/driver/speed-probe.ts has why the project's machine has two paces about 1.6× apart).
 *
 * Why: the pace stays put for seconds to minutes (consecutive probes a second apart agree within
 * 15 % in 63 of 66 pairs, docs/performance.md), and a cell that starts on a slowed core measures
 * the machine: at 80 % of a server's maximum load a core 1.6× slower is an overload, whatever
 * the server. Waiting for the usual pace before a cell makes that less likely for every row
 * alike; it cannot stop the pace from changing during a cell.
 *
 * Contract (pure, apart from the probe and the sleep it is given):
 * - The gate's reference for a core is the fastest probe (fewest µs per operation) it has been
 *   shown (`observe`): every probe of the run, the ones around sessions included.
 * - A probe is slow when either core takes more than SLOW_FACTOR × its reference.
 * - `waitForUsualPace` probes; while the probe is slow and less than `maxWaitSec` has passed, it
 *   sleeps RETRY_SEC and probes again. The cell is then measured either way; the result says how
 *   long it waited and whether the last probe was still slow, so the report can mark that cell.
 * - A failed probe (undefined) ends the wait unmarked: the gate never blocks a run.
 */
import type { CoreSpeeds } from '../results.js';

/** More than this × a core's fastest probe is a slowed core (the two paces are ~1.6× apart). */
export const SLOW_FACTOR = 1.25;
/** Seconds between two probes while waiting. */
export const RETRY_SEC = 2;

/** What the gate did before one cell. */
export interface PaceWait {
  /** Seconds from the first probe's answer to the last's (0 when the first was at the usual pace). */
  readonly waitedSec: number;
  /** The last probe was still slow when the wait ended: the cell ran on a slowed machine. */
  readonly slow: boolean;
}

export class PaceGate {
  private fastest: CoreSpeeds | undefined;

  observe(speeds: CoreSpeeds): void {
    const f = this.fastest;
    this.fastest =
      f === undefined ? speeds : { serverCore: Math.min(f.serverCore, speeds.serverCore), loadCore: Math.min(f.loadCore, speeds.loadCore) };
  }

  /** Either core over SLOW_FACTOR × its reference; false before any reference exists. */
  isSlow(speeds: CoreSpeeds): boolean {
    const f = this.fastest;
    if (f === undefined) return false;
    return speeds.serverCore > SLOW_FACTOR * f.serverCore || speeds.loadCore > SLOW_FACTOR * f.loadCore;
  }
}

export interface WaitOptions {
  readonly probe: () => Promise<CoreSpeeds | undefined>;
  readonly maxWaitSec: number;
  readonly sleep?: (sec: number) => Promise<void>;
  /** Seconds since some fixed point (performance.now() / 1000 by default). */
  readonly clock?: () => number;
}

const realSleep = (sec: number): Promise<void> => new Promise((r) => setTimeout(r, sec * 1000));

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
