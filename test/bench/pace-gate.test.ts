/**
 * The pace gate's policy (bench/driver/pace-gate.ts) on given probe readings and a stepped clock:
 * which reading counts as a slowed core, when it waits, when it gives up and marks the cell. The
 * probe itself is checked against real busy loops in speed-probe.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_ATTEMPTS, measureAtUsualPace, PaceGate, RETRY_SEC, SLOW_FACTOR, waitForUsualPace } from '../../bench/driver/pace-gate.js';
import type { CoreSpeeds } from '../../bench/results.js';

const at = (serverCore: number, loadCore: number): CoreSpeeds => ({ serverCore, loadCore });

/** A probe that answers the readings in turn, and a clock that only the sleeps move. */
function scripted(readings: Array<CoreSpeeds | undefined>): {
  probe: () => Promise<CoreSpeeds | undefined>;
  sleep: (sec: number) => Promise<void>;
  clock: () => number;
  probes: () => number;
} {
  let now = 0;
  let n = 0;
  return {
    probe: async () => readings[n++],
    sleep: async (sec) => {
      now += sec;
    },
    clock: () => now,
    probes: () => n,
  };
}

describe('pace gate', () => {
  it('measures each core against the fastest probe it has seen, over SLOW_FACTOR × that is slow', () => {
    const gate = new PaceGate();
    assert.equal(gate.isSlow(at(99, 99)), false, 'no reference yet: nothing is slow');
    gate.observe(at(44, 50));
    gate.observe(at(70, 42));
    // References: server core 44, load core 42.
    assert.equal(gate.isSlow(at(44 * SLOW_FACTOR, 42)), false);
    assert.equal(gate.isSlow(at(44 * SLOW_FACTOR + 0.1, 42)), true, 'the server core alone');
    assert.equal(gate.isSlow(at(44, 42 * SLOW_FACTOR + 0.1)), true, 'the load core alone');
    assert.equal(gate.isSlow(at(70, 72)), true, "the machine's slow pace, 1.6× on both");
  });

  it('takes the 10th percentile of the probes as the reference, so a freak-fast probe does not make every other read slowed', () => {
    const gate = new PaceGate();
    for (let i = 0; i < 20; i++) gate.observe(at(43 + (i % 3), 44));
    gate.observe(at(30, 30)); // one freak
    assert.equal(gate.reference('serverCore'), 43);
    assert.equal(gate.reference('loadCore'), 44);
    assert.equal(gate.isSlow(at(45, 46)), false);
    assert.equal(gate.isSlow(at(72, 46)), true);
  });

  it('measures at once at the usual pace, and waits through a slow spell until the pace is back', async () => {
    const gate = new PaceGate();
    gate.observe(at(43, 44));
    const now = scripted([at(45, 46)]);
    assert.deepEqual(await waitForUsualPace(gate, { ...now, maxWaitSec: 60 }), { waitedSec: 0, slow: false });
    assert.equal(now.probes(), 1);

    const spell = scripted([at(72, 45), at(74, 70), at(71, 66), at(44, 45)]);
    assert.deepEqual(await waitForUsualPace(gate, { ...spell, maxWaitSec: 60 }), { waitedSec: 3 * RETRY_SEC, slow: false });
    assert.equal(spell.probes(), 4);
  });

  it('gives up after maxWaitSec and marks the cell slowed; a failed probe ends the wait unmarked', async () => {
    const gate = new PaceGate();
    gate.observe(at(43, 44));
    const slowForever = scripted(Array.from({ length: 100 }, () => at(72, 70)));
    const wait = await waitForUsualPace(gate, { ...slowForever, maxWaitSec: 10 });
    assert.equal(wait.slow, true);
    assert.ok(wait.waitedSec <= 10 && wait.waitedSec > 10 - RETRY_SEC, `waited ${wait.waitedSec} s`);
    assert.ok(slowForever.probes() < 100);

    const off = scripted([at(72, 70), at(43, 44)]);
    assert.deepEqual(await waitForUsualPace(gate, { ...off, maxWaitSec: 0 }), { waitedSec: 0, slow: true }, 'BENCH_PACE_WAIT=0 only marks');
    assert.equal(off.probes(), 1);

    const failing = scripted([at(72, 70), undefined]);
    assert.deepEqual(await waitForUsualPace(gate, { ...failing, maxWaitSec: 60 }), { waitedSec: RETRY_SEC, slow: false });
  });

  it('learns a faster reference from the probes it is given while waiting', async () => {
    const gate = new PaceGate();
    gate.observe(at(70, 70)); // calibrated during a slow spell
    const faster = scripted([at(43, 44)]);
    assert.deepEqual(await waitForUsualPace(gate, { ...faster, maxWaitSec: 60 }), { waitedSec: 0, slow: false });
    assert.equal(gate.isSlow(at(70, 70)), true, 'the slow pace is now recognised');
  });
  it('keeps a cell whose probes before and after found the usual pace, and measures it again otherwise', async () => {
    const gate = new PaceGate();
    gate.observe(at(43, 44));
    let measured = 0;
    const measure = async (): Promise<number> => ++measured;

    const clean = scripted([at(44, 45), at(45, 44)]);
    assert.deepEqual(await measureAtUsualPace(gate, { ...clean, maxWaitSec: 60 }, measure), {
      result: 1,
      pace: { waitedSec: 0, slow: false, attempts: 1 },
    });

    // Slowed by the end of the first attempt: wait one retry, measure again between usual probes.
    measured = 0;
    const slowedDuring = scripted([at(44, 45), at(44, 70), at(72, 70), at(44, 44), at(44, 45)]);
    assert.deepEqual(await measureAtUsualPace(gate, { ...slowedDuring, maxWaitSec: 60 }, measure), {
      result: 2,
      pace: { waitedSec: RETRY_SEC, slow: false, attempts: 2 },
    });
  });

  it('keeps the last of MAX_ATTEMPTS marked when a core is slowed around every one, within one wait budget', async () => {
    const gate = new PaceGate();
    gate.observe(at(43, 44));
    let measured = 0;
    const slowAfterEach = scripted(Array.from({ length: 2 * MAX_ATTEMPTS }, (_, i) => (i % 2 === 0 ? at(44, 44) : at(70, 44))));
    const kept = await measureAtUsualPace(gate, { ...slowAfterEach, maxWaitSec: 60 }, async () => ++measured);
    assert.deepEqual(kept, { result: MAX_ATTEMPTS, pace: { waitedSec: 0, slow: true, attempts: MAX_ATTEMPTS } });

    measured = 0;
    const slowForever = scripted(Array.from({ length: 200 }, () => at(72, 70)));
    const spent = await measureAtUsualPace(gate, { ...slowForever, maxWaitSec: 10 }, async () => ++measured);
    assert.equal(spent.pace.slow, true);
    assert.equal(spent.result, MAX_ATTEMPTS);
    assert.ok(spent.pace.waitedSec <= 10, `all attempts share the 10 s budget, waited ${spent.pace.waitedSec} s`);
  });
  it("spends the run's budget on waits and on attempts after a cell's first, and only marks once it is gone", async () => {
    const gate = new PaceGate(9);
    gate.observe(at(43, 44));
    let measured = 0;
    // Each measurement takes 3 s on the clock.
    const slowForever = scripted(Array.from({ length: 200 }, () => at(72, 70)));
    const measure = async (): Promise<number> => {
      await slowForever.sleep(3);
      return ++measured;
    };
    const first = await measureAtUsualPace(gate, { ...slowForever, maxWaitSec: 60 }, measure);
    // Waits of 2 s until 8 s are spent (a third would pass 9), then a second attempt of 3 s empties it.
    assert.deepEqual(first.pace, { waitedSec: 4 * RETRY_SEC, slow: true, attempts: 2 });
    assert.equal(gate.remainingSec, 0);
    const probesBefore = slowForever.probes();
    const next = await measureAtUsualPace(gate, { ...slowForever, maxWaitSec: 60 }, measure);
    assert.deepEqual(next.pace, { waitedSec: 0, slow: true, attempts: 1 }, 'no wait, no second attempt: only marked');
    assert.equal(slowForever.probes() - probesBefore, 2, 'still probed before and after, for the mark');
  });
});
