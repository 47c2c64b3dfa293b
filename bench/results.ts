/** The data one `npm run bench` produces (saved as bench/out/results.json, rendered to RESULTS.md). */
import type { LoadResult } from './driver/cell.js';
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
}

export interface RowResult {
  readonly id: RowId;
  readonly label: string;
  /** Backend requests of the first verified query and of later ones (cache warm). */
  verification?: { readonly first: number; readonly later: number };
  /** Why a run of this row could not be measured (start-up failure, wrong answer). */
  readonly failures: string[];
  readonly cells: Partial<Record<CellKey, CellRun[]>>;
  /** The offered rates of the open-loop cells (from the closed-loop maximum). */
  openRates?: Partial<Record<CellKey, number>>;
}

export interface Settings {
  readonly durationSec: number;
  readonly secondaryDurationSec: number;
  readonly warmupSec: number;
  readonly runs: number;
  readonly quick: boolean;
  readonly pinned: boolean;
  readonly backendDelayMs: number;
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
}

/** Gateway-side timings per query, from its Prometheus metrics (undefined when not found). */
export interface WallBreakdown {
  readonly connections: number;
  readonly queries: number;
  /** Client-observed mean latency. */
  readonly clientAvgMs: number;
  readonly operationAvgMs: number | undefined;
  readonly upstreamMsPerQuery: number | undefined;
  readonly upstreamRequestsPerQuery: number | undefined;
  /** The metric series the numbers came from. */
  readonly sources: readonly string[];
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
  readonly wall?: WallBreakdown;
}

export interface BenchResults {
  readonly settings: Settings;
  readonly environment: Environment;
  readonly rows: RowResult[];
  profile?: ProfileResult | { readonly error: string };
  readonly elapsedSec: number;
}
