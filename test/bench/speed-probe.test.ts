/**
 * The bench's machine-speed probe (bench/driver/speed-probe.ts) against a real core: it reports
 * µs per operation from a pinned process, and a core that other work keeps busy reads slower,
 * which is what RESULTS.md's "Machine speed around each session" relies on to name slowed sessions.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { pinnedCommand, pinning, SERVER_CORE } from '../../bench/driver/processes.js';
import { probeCores } from '../../bench/driver/speed-probe.js';

describe('bench speed probe', () => {
  it('reads a core that three busy loops share with it as slower than the same core alone', async (t) => {
    const [alone] = await probeCores([SERVER_CORE]);
    assert.ok(alone !== undefined && alone > 0 && Number.isFinite(alone), `µs per operation: ${alone}`);
    if (!pinning()) {
      t.diagnostic('no taskset or a single core: the probe runs unpinned, so there is no core to share');
      return;
    }
    const spinners = [0, 1, 2].map(() => {
      const [command, args] = pinnedCommand(SERVER_CORE, process.execPath, ['-e', 'for (;;) {}']);
      return spawn(command, args, { stdio: 'ignore' });
    });
    try {
      await new Promise((r) => setTimeout(r, 100));
      const [shared] = await probeCores([SERVER_CORE]);
      // Four runnable processes on one core: the probe gets about a quarter of it, so even a probe
      // alone that other tests slowed (npm test runs two files at once, unpinned) reads faster.
      assert.ok(shared! > alone * 1.5, `shared ${shared} µs/op against alone ${alone}`);
    } finally {
      for (const s of spinners) s.kill('SIGKILL');
    }
  });
});
