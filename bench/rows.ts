/**
 * The rows of the benchmark: what runs and how to start it. Every row is its own process pinned
 * to the server core and answers its phase's queries with the same JSON from the same backend.
 * ROWS is also the order rows are measured in within a run (every second run backwards), so the
 * rows a target compares run back to back and a drift of the machine moves both sides alike.
 */
import { execFile } from 'node:child_process';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PeerRole, Role } from './peers/roles.js';
import { ALL_CORES, LOAD_CORE, SERVER_CORE, startProcess, type StartedProcess } from './driver/processes.js';
import { BENCH_SRC_DIR, distEntry, ROOT_DIR } from './shared/paths.js';

/** `blog`: the posts query (closed and open loop); `shared-batching`: the lookup workloads; `revalidation`: cached lookups that expire under load; `tiny`: `{ __typename }`. */
export const PHASES = ['blog', 'shared-batching', 'revalidation', 'tiny', 'live'] as const;
export type Phase = (typeof PHASES)[number];

export interface RowSpec {
  readonly id: string;
  readonly label: string;
  readonly phase: Phase;
  /** gqlgw rows: bench/NAME.toml. */
  readonly config?: string;
  /** gqlgw rows: `--workers N`; the row then runs on both cores. */
  readonly workers?: number;
  readonly role?: PeerRole;
  /** gqlgw rows whose config has [tracing]: the phase starts the OTLP sink (OTLP_SINK_PORT). `nodeFlags`: more node flags. */
  readonly tracing?: boolean;
  readonly nodeFlags?: readonly string[];
}

const blog = (id: string, label: string, more: Partial<RowSpec>): RowSpec => ({ id, label, phase: 'blog', ...more });
const lookups = (id: string, label: string, more: Partial<RowSpec>): RowSpec => ({ id, label, phase: 'shared-batching', ...more });
const revalidation = (id: string, label: string, config: string): RowSpec => ({ id, label, phase: 'revalidation', config });
const tiny = (id: string, label: string, more: Partial<RowSpec>): RowSpec => ({ id, label, phase: 'tiny', ...more });

export const ROWS: readonly RowSpec[] = [
  blog('gqlgw-batch-tracing', 'gqlgw batch, tracing on, sample 1.0', { config: 'batch-tracing', tracing: true }),
  blog('gqlgw-batch', 'gqlgw, batch', { config: 'batch' }),
  blog('ceiling', 'hand-written (ceiling)', { role: 'ceiling' }),
  blog('jit-dataloader', 'graphql-jit + DataLoader', { role: 'jit-dataloader' }),
  blog('gqlgw-batch-cache', 'gqlgw, batch + cache (warm)', { config: 'batch-cache' }),
  blog('per-item-cache', 'hand-written + per-item cache (warm)', { role: 'per-item-cache' }),
  blog('gqlgw-no-batch', 'gqlgw, no batch', { config: 'no-batch' }),
  blog('no-batch-hand-written', 'hand-written, no batch', { role: 'no-batch' }),
  blog('hive-openapi', 'Hive Gateway, OpenAPI source', { role: 'hive-openapi' }),
  blog('gqlgw-batch-2-workers', 'gqlgw, batch, 2 workers', { config: 'batch', workers: 2 }),
  blog('gqlgw-no-batch-coalesce', 'gqlgw, no batch, coalescing on', { config: 'no-batch-coalesce' }),
  blog('gqlgw-batch-coalesce', 'gqlgw, batch, coalescing on', { config: 'batch-coalesce' }),
  blog('gqlgw-batch-coalesce-sharing', 'gqlgw, batch, coalescing + sharing on', { config: 'batch-coalesce-sharing' }),
  blog('yoga-dataloader', 'graphql-yoga + DataLoader', { role: 'yoga-dataloader' }),
  blog('floor', 'empty handler (floor)', { role: 'floor' }),
  lookups('gqlgw-sharing-on', 'gqlgw, sharing on', { config: 'lookups-sharing-on' }),
  lookups('lookup-dataloader', 'hand-written, process-wide DataLoader', { role: 'lookup-dataloader' }),
  lookups('lookup-per-request', 'hand-written, one call per lookup', { role: 'lookup-per-request' }),
  lookups('gqlgw-sharing-off', 'gqlgw, sharing off', { config: 'lookups-sharing-off' }),
  // NODE_FLAGS' young generation against V8's default (a later flag wins): docs/performance.md "The young generation".
  lookups('gqlgw-sharing-on-young16', 'gqlgw, sharing on, V8 default young gen', {
    config: 'lookups-sharing-on',
    nodeFlags: ['--max-semi-space-size=16'],
  }),
  revalidation('gqlgw-revalidate-on', 'gqlgw, cache ttl 1 s, revalidate = true', 'revalidate-on'),
  revalidation('gqlgw-revalidate-off', 'gqlgw, cache ttl 1 s, revalidate = false', 'revalidate-off'),
  tiny('gqlgw-tiny', 'gqlgw, { __typename }', { config: 'batch' }),
  tiny('floor-tiny', 'empty handler (floor), { __typename }', { role: 'floor-tiny' }),
  { id: 'gqlgw-live', label: 'gqlgw, SSE subscribers of a @poll @batch field', phase: 'live', config: 'live', nodeFlags: ['--expose-gc'] },
];

/** The connection counts of the shared-batching phase's scale curve, workload (a). */
export const SCALE_CONNECTIONS: readonly number[] = [1, 16, 64, 256, 1024];

/** The rows in the order run `run` (1-based) measures them: ROWS' order, backwards in even runs. */
export function measureOrder<T>(rows: readonly T[], run: number): T[] {
  return run % 2 === 0 ? [...rows].reverse() : [...rows];
}

/** Fixed, because bench/*.toml name them: each phase's backend (its role) and port, and the OTLP sink's port. */
export const BACKENDS: Readonly<Record<Exclude<Phase, 'live'>, readonly [Role, number]>> = {
  blog: ['backend', 4801],
  'shared-batching': ['pool-backend', 4802],
  revalidation: ['etag-backend', 4803],
  tiny: ['backend', 4801],
};
export const OTLP_SINK_PORT = 4804;

/** The node flags of every server and backend: gqlgw's production heap floor (docs/performance.md "The heap floor"), for the peers too. */
export const NODE_FLAGS: readonly string[] = ['--initial-old-space-size=128', '--max-semi-space-size=64'];

/** Starts a backend or the OTLP sink on the load core at its port. */
export function startService(role: Role, port: number): Promise<StartedProcess> {
  return startProcess({
    name: role,
    core: LOAD_CORE,
    command: process.execPath,
    args: [...NODE_FLAGS, distEntry('peers/roles.js'), role, '--port', String(port)],
    ready: /listening on (\S+)/,
  });
}

const CLI = resolve(ROOT_DIR, 'dist/gateway/cli.js');
const configPath = (row: RowSpec): string => resolve(BENCH_SRC_DIR, `${row.config}.toml`);

/** undefined when the gateway accepts the row's config (`gqlgw check`), else the first problem it names: the run then stops before it starts. */
export async function configProblem(row: RowSpec): Promise<string | undefined> {
  if (row.config === undefined) return undefined;
  const config = relative(ROOT_DIR, configPath(row)); // as the report names it
  return new Promise((done) =>
    execFile(process.execPath, [CLI, 'check', '--config', config], { cwd: ROOT_DIR, encoding: 'utf8' }, (error, stdout, stderr) =>
      done(
        error
          ? (`${stderr}${stdout}`.split('\n').find((l) => l.trim() !== '') ?? `gqlgw check exited with ${String(error.code)}`)
          : undefined,
      ),
    ),
  );
}

/** Starts a row's server (NODE_ENV=production, as in production) on the server core; `url` is its GraphQL endpoint. */
export function startRow(row: RowSpec, backendUrl: string): Promise<StartedProcess> {
  const workers = row.workers ? ['--workers', String(row.workers)] : [];
  const gqlgw = [CLI, 'serve', '--config', configPath(row), '--port', '0', ...workers];
  const script = row.config !== undefined ? gqlgw : [distEntry('peers/roles.js'), row.role!, '--port', '0', '--backend', backendUrl];
  return startProcess({
    name: row.label,
    core: row.workers ? ALL_CORES : SERVER_CORE,
    command: process.execPath,
    args: [...NODE_FLAGS, ...(row.nodeFlags ?? []), `--import=${pathToFileURL(distEntry('driver/alloc-meter.js')).href}`, ...script],
    ready: /listening on (\S+)/,
    cwd: ROOT_DIR,
    env: { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production' },
  });
}
