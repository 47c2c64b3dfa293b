/** The data one `npm run bench` produces (saved as bench/out/results.json, rendered to RESULTS.md). */
import type { LoadResult } from './driver/cell.js';
import type { PaceWait } from './driver/pace-gate.js';
import type { WarmupRun } from './driver/wrk.js';
import type { ProfileSummary } from './profile/categorize.js';
import type { RowId } from './rows.js';

export const CLOSED_CONNECTIONS = [16, 1, 64] as const;
export const OPEN_PERCENTS = [50, 80, 100] as const;
export type CellKey = `c${(typeof CLOSED_CONNECTIONS)[number]}` | `open${(typeof OPEN_PERCENTS)[number]}`;

/** One cell of one run: the load result plus what the backend and the processes saw. */
export interface CellRun extends LoadResult {
  /** Backend requests during the cell / responses. */
  readonly subrequestsPerQuery: number;
  /** CPU used by the server under test / wall time, in % of one core. */
  readonly serverCpuPct: number;
  /** CPU used by the backend / wall time, in % of one core (it shares its core with the load generator). */
  readonly backendCpuPct: number;
  /**
   * Busy time of the server's core not used by the server process, in % (other processes of this
   * shared machine, kernel work for the process's sockets): high values make the cell less fair.
   */
  readonly otherLoadOnServerCorePct: number;
  /** gqlgw rows: what the gateway's metrics say about the same cell. */
  readonly gatewayTimings?: GatewayTimings;
  /** The run (1-based) whose server session measured this cell; absent in results written before it was recorded. */
  readonly run?: number;
  /** What the pace gate (bench/driver/pace-gate.ts) did around the cell; absent when unpinned or before the gate. */
  readonly pace?: PaceWait;
}

export interface RowResult {
  readonly id: RowId;
  readonly label: string;
  /** Backend requests of the first verified query and of later ones (cache warm). */
  verification?: { readonly first: number; readonly later: number };
  /** Why a run of this row could not be measured (start-up failure, wrong answer). */
  readonly failures: string[];
  /**
   * Peak resident memory per run in MiB (VmHWM at the end of the run's server session, after all
   * its cells), summed over the process and its children: for a row with workers, the primary and
   * every worker, an upper bound of what they held at once.
   */
  readonly peakRssMiB: number[];
  /** Each run's warm-up after the server started (bench/driver/wrk.ts `warmUp`), before the measured cells. */
  readonly warmups: WarmupRun[];
  /**
   * Each run's machine-speed probes around its server session (bench/driver/speed-probe.ts);
   * absent in results written before the probe existed.
   */
  readonly speed?: SessionSpeed[];
  readonly cells: Partial<Record<CellKey, CellRun[]>>;
}

/** µs per probe operation on each core (bench/driver/speed-probe.ts): higher is slower. */
export interface CoreSpeeds {
  readonly serverCore: number;
  readonly loadCore: number;
}

/** The probes right before a server session started and right after it stopped. */
export interface SessionSpeed {
  readonly run: number;
  readonly before: CoreSpeeds;
  readonly after: CoreSpeeds;
}

export interface Settings {
  readonly durationSec: number;
  readonly secondaryDurationSec: number;
  readonly warmupSec: number;
  readonly runs: number;
  readonly quick: boolean;
  readonly pinned: boolean;
  readonly backendDelayMs: number;
  /** The pace gate's longest wait for one cell, over all its attempts (BENCH_PACE_WAIT); absent before the gate. */
  readonly paceWaitSec?: number;
  /** The pace gate's budget for the run, waits and cells measured again (BENCH_PACE_BUDGET). */
  readonly paceBudgetSec?: number;
}

export interface Environment {
  readonly date: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly wrk: string;
  readonly packages: Readonly<Record<string, string>>;
  readonly gitCommit: string;
  /** The node flags every Node process of the run started with (bench/rows.ts NODE_FLAGS); absent in runs before they existed. */
  readonly nodeFlags?: readonly string[];
}

/** Per-query wall times the gateway reports in its Prometheus metrics over one cell. */
export interface GatewayTimings {
  /** Mean of gqlgw_operation_duration_seconds (the executor's run of the operation). */
  readonly operationAvgMs: number | undefined;
  /** Sum of gqlgw_upstream_duration_seconds / queries: time spent waiting on sources. */
  readonly upstreamMsPerQuery: number | undefined;
  readonly upstreamRequestsPerQuery: number | undefined;
}

export interface ProfileResult {
  readonly rowId: RowId;
  readonly connections: number;
  readonly queries: number;
  readonly rps: number;
  /** CPU seconds the gateway used while profiled (from /proc), and per query. */
  readonly cpuSeconds: number;
  readonly cpuMicrosPerQuery: number;
  readonly summary: ProfileSummary;
  readonly profileFile: string;
}

export interface BenchResults {
  readonly settings: Settings;
  readonly environment: Environment;
  readonly rows: RowResult[];
  /** CPU profiles of the gqlgw batch and batch + cache variants (when those rows ran). */
  readonly profiles: ReadonlyArray<ProfileResult | { readonly rowId: RowId; readonly error: string }>;
  /** Busy % of the two cores over a few seconds before the run started (other processes). */
  readonly idleCheck?: { readonly seconds: number; readonly core0Pct: number; readonly core1Pct: number };
  /** Seconds of the pace gate's budget (Settings.paceBudgetSec) left at the end of the run. */
  readonly paceBudgetLeftSec?: number;
  readonly elapsedSec: number;
  /** True when dist/gateway was rebuilt while the run was going (shared working tree). */
  readonly buildChangedDuringRun: boolean;
}
