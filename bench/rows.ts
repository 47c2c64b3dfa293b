/**
 * The rows of the benchmark: what runs, how to start it, and what it is compared with.
 * Every row is its own process pinned to the server core and answers the same query with the
 * same JSON from the same backend.
 */
import { resolve } from 'node:path';
import type { PeerRole } from './peers/roles.js';
import { distEntry, ROOT_DIR, BENCH_SRC_DIR } from './shared/paths.js';
import type { VariantName } from './variants.js';
import { ALL_CORES, LOAD_CORE, SERVER_CORE, startProcess, type StartedProcess } from './driver/processes.js';

export const ROW_IDS = [
  'gqlgw-no-batch',
  'gqlgw-batch',
  'gqlgw-batch-cache',
  'gqlgw-batch-2-workers',
  'gqlgw-no-batch-coalesce',
  'gqlgw-batch-coalesce',
  'ceiling',
  'no-batch-hand-written',
  'per-item-cache',
  'yoga-dataloader',
  'jit-dataloader',
  'floor',
] as const;
export type RowId = (typeof ROW_IDS)[number];

export interface RowSpec {
  readonly id: RowId;
  readonly label: string;
  /** One line for the README and RESULTS.md. */
  readonly description: string;
  /** gqlgw rows: the schema variant (bench/variants/NAME.graphqls). */
  readonly variant?: VariantName;
  /** gqlgw rows: bench/NAME.toml; the variant's name when absent. */
  readonly config?: string;
  /** gqlgw rows: `--workers N`; the row then runs on every core (see `cores`). */
  readonly workers?: number;
  readonly role?: PeerRole;
}

/** The cores a row's server runs on: core 0 alone, or every core for a row with workers. */
export function rowCores(row: RowSpec): string {
  return row.workers !== undefined && row.workers > 1 ? ALL_CORES : String(SERVER_CORE);
}

export const ROWS: readonly RowSpec[] = [
  {
    id: 'gqlgw-no-batch',
    label: 'gqlgw, no batch',
    variant: 'no-batch',
    description: 'gqlgw serving bench/no-batch.toml: one /users/{id} per distinct author (1 + 100 subrequests).',
  },
  {
    id: 'gqlgw-batch',
    label: 'gqlgw, batch',
    variant: 'batch',
    description: 'gqlgw serving bench/batch.toml: @batch, one /users?ids= per round (2 subrequests).',
  },
  {
    id: 'gqlgw-batch-cache',
    label: 'gqlgw, batch + cache (warm)',
    variant: 'batch-cache',
    description: 'gqlgw serving bench/batch-cache.toml: @batch + @cache(ttl: 300), L2 warm (1 subrequest).',
  },
  {
    id: 'gqlgw-batch-2-workers',
    label: 'gqlgw, batch, 2 workers',
    variant: 'batch',
    workers: 2,
    description:
      'gqlgw serving bench/batch.toml with --workers 2 on both cores, which it shares with the backend and wrk: what the second core gives on this 2-core machine, not a doubling.',
  },
  {
    id: 'gqlgw-no-batch-coalesce',
    label: 'gqlgw, no batch, coalescing on',
    variant: 'no-batch',
    config: 'no-batch-coalesce',
    description:
      'bench/no-batch-coalesce.toml: as "gqlgw, no batch" with coalesce = true (the default): identical calls in flight across requests are sent once.',
  },
  {
    id: 'gqlgw-batch-coalesce',
    label: 'gqlgw, batch, coalescing on',
    variant: 'batch',
    config: 'batch-coalesce',
    description: 'bench/batch-coalesce.toml: as "gqlgw, batch" with coalesce = true (the default).',
  },
  {
    id: 'ceiling',
    label: 'hand-written (ceiling)',
    role: 'ceiling',
    description: 'node:http + undici, the same two backend calls, no GraphQL engine: the ceiling for the batch variant.',
  },
  {
    id: 'no-batch-hand-written',
    label: 'hand-written, no batch',
    role: 'no-batch',
    description:
      'node:http + undici, /posts then one /users/{id} per author at once (1 + 100 subrequests): the peer of gqlgw without @batch.',
  },
  {
    id: 'per-item-cache',
    label: 'hand-written + per-item cache (warm)',
    role: 'per-item-cache',
    description: 'the ceiling plus a process LRU of users (ttl 300 s), misses batched: the peer of batch + cache.',
  },
  {
    id: 'yoga-dataloader',
    label: 'graphql-yoga + DataLoader',
    role: 'yoga-dataloader',
    description: 'graphql-yoga 5 with resolvers and a per-request DataLoader for Post.author.',
  },
  {
    id: 'jit-dataloader',
    label: 'graphql-jit + DataLoader',
    role: 'jit-dataloader',
    description: 'node:http, graphql-jit compiled query (cached per query), same resolvers and DataLoader.',
  },
  {
    id: 'floor',
    label: 'empty handler (floor)',
    role: 'floor',
    description: 'node:http writing the precomputed answer: no backend, no parsing; the cost of HTTP alone.',
  },
];

/**
 * The order rows are measured in within a run (the tables keep ROWS' order). This machine drifts
 * over minutes (other tenants, its clock), and a run of 12 rows takes several: rows measured
 * minutes apart can differ by 20 % with no change of code. So the rows a target compares run
 * back to back (gqlgw batch, the ceiling, graphql-jit; batch + cache and the per-item cache; no
 * batch and its hand-written peer), and every second run goes through the list backwards
 * (`measureOrder`), so a drift during a run moves both sides of a ratio alike rather than one.
 */
export const MEASURE_ORDER: readonly RowId[] = [
  'gqlgw-batch',
  'ceiling',
  'jit-dataloader',
  'gqlgw-batch-cache',
  'per-item-cache',
  'gqlgw-no-batch',
  'no-batch-hand-written',
  'gqlgw-batch-2-workers',
  'gqlgw-no-batch-coalesce',
  'gqlgw-batch-coalesce',
  'yoga-dataloader',
  'floor',
];

/** The selected rows in the order run `run` (1-based) measures them: MEASURE_ORDER, backwards in even runs. */
export function measureOrder<T extends { readonly id: RowId }>(rows: readonly T[], run: number): T[] {
  const ordered = [...rows].sort((a, b) => MEASURE_ORDER.indexOf(a.id) - MEASURE_ORDER.indexOf(b.id));
  return run % 2 === 0 ? ordered.reverse() : ordered;
}

/** Fixed, because bench/*.toml name it: the backend's port. */
export const BACKEND_PORT = 4801;

/**
 * The node flags of every Node process the bench starts: each server under test (gqlgw and the
 * Node peers alike), the backend and the open-loop driver. It is the heap floor of gqlgw's
 * production launch line (README "Running in production", docs/performance.md "The heap floor"):
 * V8 skips mark-compacts while the old generation is below 128 MiB. gqlgw needs it for its tail
 * at 80 % load; the peers get it too, so the ratios compare code, not GC settings; and the backend
 * and driver, which share the load core, pause less often for their own mark-compacts.
 */
export const NODE_FLAGS: readonly string[] = ['--initial-old-space-size=128'];

/** Starts the backend on the load core at BACKEND_PORT; exits the process, saying why, when it cannot. */
export function startBackend(): Promise<StartedProcess> {
  return startProcess({
    name: 'backend',
    core: LOAD_CORE,
    command: process.execPath,
    args: [...NODE_FLAGS, distEntry('serve.js'), 'backend', '--port', String(BACKEND_PORT)],
    ready: /listening on (\S+)/,
  }).catch((error: unknown) => {
    process.stderr.write(
      `The backend could not start on port ${BACKEND_PORT} (bench/*.toml point there; is another bench running?):\n${String(error)}\n`,
    );
    process.exit(1);
  });
}

/** bench/<config or variant>.toml of a gqlgw row. */
export function rowConfigPath(row: RowSpec): string {
  return resolve(BENCH_SRC_DIR, `${row.config ?? row.variant}.toml`);
}

/**
 * Every server runs as in production: NODE_ENV=production (graphql-js then skips its development
 * checks; gqlgw's CLI sets it too) unless the caller's environment sets NODE_ENV.
 */
function serverEnv(): NodeJS.ProcessEnv {
  return { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production' };
}

/**
 * Starts a row's server on the server core; `url` is its GraphQL endpoint. NODE_FLAGS and
 * then `nodeFlags` go before the script (the profile passes --cpu-prof there).
 */
export function startRow(row: RowSpec, backendUrl: string, nodeFlags: readonly string[] = []): Promise<StartedProcess> {
  const script =
    row.variant !== undefined
      ? [
          resolve(ROOT_DIR, 'dist/gateway/cli.js'),
          'serve',
          '--config',
          rowConfigPath(row),
          '--port',
          '0',
          ...(row.workers ? ['--workers', String(row.workers)] : []),
        ]
      : [distEntry('serve.js'), row.role as PeerRole, '--port', '0', '--backend', backendUrl];
  return startProcess({
    name: row.label,
    core: rowCores(row),
    command: process.execPath,
    args: [...NODE_FLAGS, ...nodeFlags, ...script],
    ready: row.variant !== undefined ? /gqlgw listening on (\S+)/ : /listening on (\S+)/,
    cwd: ROOT_DIR,
    env: serverEnv(),
  });
}
