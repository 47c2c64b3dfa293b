/**
 * `gqlgw serve` with `--workers N` or `[gateway] workers = N` (N > 1): N processes serve one port
 * through node:cluster (docs/scale-out.md). The primary process accepts connections and hands
 * them to the workers in turn (node:cluster's round-robin); each worker is one whole gateway with
 * its own L2 cache, source pools and memcached client, started from the same command line.
 *
 * The primary
 * - is started after cli.ts has checked config and schema, so a mistake is printed once and no
 *   worker starts;
 * - resolves with the URL once every worker listens (cli.ts prints the one listening line), or
 *   with undefined after a worker failed to start (that worker printed why; the others are
 *   stopped);
 * - answers the workers' metrics requests with the sum over all of them (cluster-metrics.ts);
 * - replaces a worker that dies while serving; a replacement that fails to start is not retried,
 *   and the primary exits 1 when no worker is left;
 * - on SIGTERM or SIGINT drains every worker: each stops accepting, lets its in-flight requests
 *   finish within shutdown_grace_ms (their responses carry `Connection: close`) and exits; the
 *   primary exits 0 once all have exited cleanly, 1 otherwise. A second signal, or a drain stuck
 *   5 s past the grace period, kills the workers and exits 1;
 * - on SIGHUP, and with `--watch` on every change of config or schema files (one watcher, in the
 *   primary), tells every worker to reload (reload.ts's RELOAD_MESSAGE); each worker reloads and
 *   reports as one process does.
 * A worker drains when the primary asks, or on its own SIGTERM (a supervisor may signal the whole
 * process group). It ignores SIGINT, which a terminal sends to the whole group, and leaves that to
 * the primary. A worker whose primary dies exits at once (node:cluster does that).
 */
import cluster, { type Worker } from 'node:cluster';
import { loadConfig } from '../config/load.js';
import type { GatewayConfig } from '../config/types.js';
import { answerClusterMetrics, clusterMetricsRenderer } from '../observability/cluster-metrics.js';
import { RELOAD_MESSAGE } from './reload.js';
import type { RunningGateway, WorkerRole } from './start.js';
import type { ConfigWatcher } from './watch.js';

/** How long past the grace period a drain may take before the primary kills the workers. */
const STUCK_AFTER_GRACE_MS = 5000;

type WorkerMessage = { readonly type: 'gqlgw:listening'; readonly url: string };
type PrimaryMessage = { readonly type: 'gqlgw:stop' } | { readonly type: typeof RELOAD_MESSAGE; readonly ifChanged: boolean };

function messageType(message: unknown): string | undefined {
  const type = typeof message === 'object' && message !== null ? (message as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : undefined;
}

export interface PrimaryOptions {
  /** Workers to run, at least 2. */
  readonly workers: number;
  /** The checked config (its shutdown_grace_ms bounds a drain; `--watch` watches its files). */
  readonly config: GatewayConfig;
  /** `serve --watch`: watch.ts's watchGatewayFiles. */
  readonly watch?: (config: GatewayConfig, onChange: () => void) => ConfigWatcher;
}

/** The primary's state: what `servePrimary`'s steps share. */
interface Primary {
  readonly options: PrimaryOptions;
  /** Workers that said they listen and have not exited. */
  readonly started: Set<Worker>;
  phase: 'starting' | 'serving' | 'stopping' | 'failed';
  cleanExits: boolean;
  /** Resolves servePrimary's promise: the URL once every worker listens, undefined after a failed start. */
  readonly settle: (url: string | undefined) => void;
}

const log = (line: string): boolean => process.stderr.write(`gqlgw: ${line}\n`);

function send(worker: Worker, message: PrimaryMessage): void {
  if (worker.isConnected()) worker.send(message);
}

function live(): Worker[] {
  return Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
}

function killAll(): void {
  for (const worker of live()) worker.process.kill('SIGKILL');
}

/** Runs the primary process; see the module comment. */
export function servePrimary(options: PrimaryOptions): Promise<string | undefined> {
  answerClusterMetrics();
  let settle: (url: string | undefined) => void = () => {};
  const ready = new Promise<string | undefined>((resolve) => (settle = resolve));
  const primary: Primary = { options, started: new Set(), phase: 'starting', cleanExits: true, settle };
  cluster.on('exit', (worker, code, signal) => workerExited(primary, worker, signal ? `signal ${signal}` : `code ${code}`, code));
  const stop = (signal: NodeJS.Signals): void => stopWorkers(primary, signal);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  reloadOnRequest(options);
  for (let i = 0; i < options.workers; i++) fork(primary);
  return ready;
}

/** Starts a worker; the last of the first `workers` to listen settles the primary's promise with its URL. */
function fork(primary: Primary): void {
  const worker = cluster.fork();
  worker.on('message', (message: unknown) => {
    if (messageType(message) !== 'gqlgw:listening') return;
    primary.started.add(worker);
    if (primary.phase === 'stopping') send(worker, { type: 'gqlgw:stop' });
    if (primary.phase === 'starting' && primary.started.size === primary.options.workers) {
      primary.phase = 'serving';
      primary.settle((message as WorkerMessage).url);
    }
  });
}

/** A worker exited (`how`: its code or signal): the end of a drain, a failed start, or a worker to replace. */
function workerExited(primary: Primary, worker: Worker, how: string, code: number | null): void {
  const wasServing = primary.started.delete(worker);
  if (primary.phase === 'failed') return;
  if (primary.phase === 'stopping') {
    if (code !== 0) {
      primary.cleanExits = false;
      log(`worker ${worker.id} (pid ${worker.process.pid}) exited with ${how} while draining`);
    }
    if (live().length === 0) {
      log(primary.cleanExits ? 'stopped' : 'stopped; not every worker exited cleanly');
      process.exit(primary.cleanExits ? 0 : 1);
    }
    return;
  }
  if (primary.phase === 'starting') {
    primary.phase = 'failed';
    log(`worker ${worker.id} exited with ${how} before it listened; stopping`);
    killAll();
    primary.settle(undefined);
    return;
  }
  if (wasServing) {
    log(`worker ${worker.id} (pid ${worker.process.pid}) exited with ${how}; starting another`);
    fork(primary);
    return;
  }
  log(`worker ${worker.id} exited with ${how} before it listened; not restarted (${primary.started.size} left)`);
  if (live().length === 0) {
    log('no worker left, exiting');
    process.exit(1);
  }
}

/** SIGTERM or SIGINT: drain every worker; a second signal, or a drain stuck past the grace period, kills them. */
function stopWorkers(primary: Primary, signal: NodeJS.Signals): void {
  if (primary.phase === 'failed') return;
  if (primary.phase === 'stopping') {
    log(`${signal} again, exiting now`);
    killAll();
    process.exit(1);
  }
  primary.phase = 'stopping';
  const workers = live();
  const graceMs = primary.options.config.shutdownGraceMs;
  log(`${signal}: draining ${workers.length} workers (up to ${graceMs} ms)`);
  setTimeout(() => {
    log('shutdown did not finish, exiting');
    killAll();
    process.exit(1);
  }, graceMs + STUCK_AFTER_GRACE_MS).unref();
  for (const worker of workers) send(worker, { type: 'gqlgw:stop' });
  if (workers.length === 0) process.exit(0);
}

/** SIGHUP, and with `--watch` every change of config or schema files: every worker reloads. */
function reloadOnRequest(options: PrimaryOptions): void {
  const reloadWorkers = (ifChanged: boolean): void => {
    for (const worker of live()) send(worker, { type: RELOAD_MESSAGE, ifChanged });
  };
  process.on('SIGHUP', () => reloadWorkers(false));
  const watcher = options.watch?.(options.config, () => {
    reloadWorkers(true);
    try {
      watcher?.retarget(loadConfig(options.config.file));
    } catch {
      // A broken config: the workers print its diagnostics; keep watching the folders we have.
    }
  });
}

/** The role of this process when it is a cluster worker, for startGateway. */
export function workerRole(): WorkerRole {
  return { id: cluster.worker?.id ?? 0, shareMetrics: (metrics) => clusterMetricsRenderer(metrics.registry) };
}

/**
 * A started worker's part in the group (see the module comment): drains when the primary asks or
 * on SIGTERM, reloads when the primary asks (`reload(ifChanged)` is the CLI's reload-and-report),
 * and tells the primary it listens.
 */
export function serveAsWorker(gateway: RunningGateway, reload: (ifChanged: boolean) => void): void {
  const id = cluster.worker?.id ?? 0;
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void gateway.shutdown().then((inTime) => {
      if (!inTime) process.stderr.write(`gqlgw: worker ${id}: requests still running after the grace period were cut off\n`);
      process.exit(0);
    });
  };
  process.on('message', (message: unknown) => {
    const type = messageType(message);
    if (type === 'gqlgw:stop') stop();
    else if (type === RELOAD_MESSAGE) reload((message as { ifChanged?: unknown }).ifChanged === true);
  });
  process.on('SIGTERM', stop);
  process.on('SIGINT', () => {});
  const listening: WorkerMessage = { type: 'gqlgw:listening', url: gateway.url };
  process.send?.(listening);
}
