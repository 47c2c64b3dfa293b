/**
 * Preloaded (`--import`) into every server the bench measures: counts the bytes allocated in the
 * young generation (V8's new space) since start, for "KB allocated per query" (bench/README.md).
 * V8's GC profiler reports each collection's new-space use before and after it; what was allocated
 * between two collections is the use before the second minus the use after the first, and since the
 * last collection it is the use now minus the use after it. On SIGUSR2 the total goes to
 * `$TMPDIR/gqlgw-bench-alloc-PID.json` as `{"seq": n, "bytes": b}` (driver/processes.ts reads it).
 * The profiler is restarted at each read so its event list never grows for long.
 */
import { writeFileSync } from 'node:fs';
import { GCProfiler, getHeapSpaceStatistics } from 'node:v8';
import { allocFile } from '../shared/paths.js';

type SpaceStats = ReadonlyArray<{ readonly spaceName: string; readonly spaceUsedSize: number }>;
type GcEvent = {
  readonly beforeGC: { readonly heapSpaceStatistics: SpaceStats };
  readonly afterGC: { readonly heapSpaceStatistics: SpaceStats };
};

const newSpaceOf = (spaces: SpaceStats): number => spaces.find((s) => s.spaceName === 'new_space')?.spaceUsedSize ?? 0;
const newSpaceNow = (): number =>
  newSpaceOf(getHeapSpaceStatistics().map((s) => ({ spaceName: s.space_name, spaceUsedSize: s.space_used_size })));

let allocated = 0;
let usedAfterLast = newSpaceNow();
let seq = 0;
let profiler = new GCProfiler();
profiler.start();

function total(): number {
  const events = (profiler.stop()?.statistics ?? []) as unknown as GcEvent[];
  profiler = new GCProfiler();
  profiler.start();
  for (const event of events) {
    allocated += Math.max(0, newSpaceOf(event.beforeGC.heapSpaceStatistics) - usedAfterLast);
    usedAfterLast = newSpaceOf(event.afterGC.heapSpaceStatistics);
  }
  return allocated + Math.max(0, newSpaceNow() - usedAfterLast);
}

// A server started with --expose-gc (the live phase, bench/live.ts) is collected in full first, so its RSS is then what it retains.
process.on('SIGUSR2', () => {
  (globalThis as { gc?: () => void }).gc?.();
  seq++;
  writeFileSync(allocFile(process.pid), JSON.stringify({ seq, bytes: total() }));
});
