/** The data one `npm run bench` produces (saved as bench/out/results.json, rendered to RESULTS.md). */
import type { LiveResult } from './live.js';
import type { Phase } from './rows.js';

/** What one load run (wrk or the open-loop driver) measured. */
export interface LoadResult {
  /** Responses received (right or wrong) in the measured window. */
  readonly responses: number;
  /** Open loop: requests sent, its unmeasured first second included. */
  readonly requestsSent?: number;
  readonly durationSec: number;
  readonly rps: number;
  readonly avgMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Responses that differ from the expected bytes, non-200s, timeouts and socket errors. */
  readonly wrong: number;
  /** The first wrong response (status and start of body, or the error), for diagnosis. */
  readonly wrongSample?: string;
  /** Open loop: requests still unanswered 2 s after the last send (overload); the offered rate; how late the driver sent (p99). */
  readonly unanswered?: number;
  readonly offeredRps?: number;
  readonly sendLagP99Ms?: number;
}

/** One cell of one run: the load, the backend requests (and their body bytes, their 304s) per query, CPU in % of a core, and the noise flag (driver/noise.ts). */
export interface CellRun extends LoadResult {
  readonly run: number;
  readonly subrequestsPerQuery: number;
  readonly upstreamBytesPerQuery?: number;
  readonly notModifiedPerQuery?: number;
  readonly serverCpuPct: number;
  /** The server's CPU (user + system, its process group) over the cell divided by the queries answered, in µs. */
  readonly serverCpuMicrosPerQuery?: number;
  /** Young-generation bytes the server allocated over the cell per query answered, in KB (driver/alloc-meter.ts). */
  readonly allocatedKbPerQuery?: number;
  readonly backendCpuPct: number;
  readonly noisy: boolean;
}

export interface RowResult {
  readonly id: string;
  readonly label: string;
  /** Why a run of this row could not be measured (start-up failure, wrong answer). */
  readonly failures: string[];
  /** Peak resident memory per run in MiB (VmHWM at the end of the session, workers summed). */
  readonly peakRssMiB: number[];
  /** Each run's warm-up after the start, req/s per segment, and the warm-ups' wrong answers. */
  readonly warmups: number[][];
  warmupWrong: number;
  /** By key: `c16`, `c1`, `c64`, `open50`, `open80`, `open100` (blog); `a16`, `a64`, `b16`, `b64` (shared batching); `r16` (revalidation). */
  readonly cells: Partial<Record<string, CellRun[]>>;
}

export interface Settings {
  readonly durationSec: number;
  readonly secondaryDurationSec: number;
  readonly warmupSec: number;
  readonly runs: number;
  readonly quick: boolean;
  readonly pinned: boolean;
  readonly phases: readonly Phase[];
}

export interface BenchResults {
  readonly settings: Settings;
  /** Machine, versions, commit, date. */
  readonly environment: Readonly<Record<string, string>>;
  readonly rows: RowResult[];
  readonly elapsedSec: number;
  /** The live-data phase (bench/live.ts), when it ran. */
  live?: LiveResult;
}
