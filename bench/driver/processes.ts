/**
 * Starting the benchmark's processes pinned to a core, waiting for their ready line, reading
 * their CPU time and peak memory, and stopping them. Pinning uses `taskset -c CORE` when taskset
 * exists and the machine has at least two cores; otherwise processes run unpinned and `pinning()`
 * says so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { allocFile } from '../shared/paths.js';

/** Core 0: the server under test (gqlgw or a peer). Core 1: backend, load generator, runner. */
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;
/** A row with workers runs on both cores (and so shares core 1 with the load side). */
export const ALL_CORES = '0,1';

let pinningChecked: boolean | undefined;

export function pinning(): boolean {
  pinningChecked ??= spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0 && availableParallelism() >= 2;
  return pinningChecked;
}

/** Pins the calling process (the runner) to `core`; no-op without pinning. */
export function pinSelf(core: number): void {
  if (pinning()) spawnSync('taskset', ['-a', '-cp', String(core), String(process.pid)], { stdio: 'ignore' });
}

/** The command line that runs `command args` pinned to `core` (a number or a list such as "0,1"). */
export function pinnedCommand(core: number | string, command: string, args: readonly string[]): [string, string[]] {
  return pinning() ? ['taskset', ['-c', String(core), command, ...args]] : [command, [...args]];
}

/**
 * Runs `command args` to its end and resolves with the rest of its first output line that starts
 * with `prefix`; rejects, with everything it printed, when it exits non-zero or prints no such line.
 */
export function runForLine(what: string, command: string, args: readonly string[], prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(prefix));
      if (code !== 0 || line === undefined) reject(new Error(`${what} exited with ${code}:\n${out}`));
      else resolve(line.slice(prefix.length));
    });
  });
}

export interface StartedProcess {
  readonly name: string;
  /** The first capture group of the ready pattern (the URL). */
  readonly url: string;
  /** User + system CPU seconds of the process and its children (cluster workers), from /proc. */
  cpuSeconds(): number;
  /** Peak resident memory (VmHWM) in MiB, summed over the process and its children; `rssMiB`: now (VmRSS). */
  peakRssMiB(): number;
  rssMiB(): number;
  /** Young-generation bytes allocated since start, summed over the process and its children (driver/alloc-meter.ts); NaN when not metered. */
  allocatedBytes(): Promise<number>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  readonly name: string;
  readonly core: number | string;
  readonly command: string;
  readonly args: readonly string[];
  /** A stdout line that says the process is ready; group 1 is its URL. */
  readonly ready: RegExp;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** A /proc file's text; empty when the process is gone (or there is no /proc). */
const read = (file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/** The pid and its descendants, from /proc/PID/task/PID/children. */
function processTree(pid: number): number[] {
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    const children = read(`/proc/${pids[i]}/task/${pids[i]}/children`).trim();
    if (children !== '') pids.push(...children.split(/\s+/).map(Number));
  }
  return pids;
}

/** utime + stime of /proc/PID/stat, at 100 clock ticks per second. */
function cpuSecondsOf(pid: number): number {
  const stat = read(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return stat === '' ? 0 : (Number(fields[11]) + Number(fields[12])) / 100;
}

const rssOf = (pid: number, f = 'HWM'): number => Number(RegExp(`^Vm${f}:\\s+(\\d+)`, 'm').exec(read(`/proc/${pid}/status`))?.[1]) / 1024;

/** What alloc-meter.ts counted in `pid`: it is signalled and its answer file awaited (NaN: no meter answered within 2 s). */
async function allocatedBytesOf(pid: number): Promise<number> {
  const file = allocFile(pid);
  const seqOf = (): { seq: number; bytes: number } | undefined => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as { seq: number; bytes: number };
    } catch {
      return undefined;
    }
  };
  const before = seqOf()?.seq ?? 0;
  try {
    process.kill(pid, 'SIGUSR2');
  } catch {
    return Number.NaN;
  }
  for (const deadline = performance.now() + 2000; performance.now() < deadline;) {
    const now = seqOf();
    if (now !== undefined && now.seq > before) return now.bytes;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return Number.NaN;
}

export async function startProcess(options: StartOptions): Promise<StartedProcess> {
  const [command, args] = pinnedCommand(options.core, options.command, options.args);
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name}: could not spawn ${command}`);
  let stderrTail = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const stop = async (graceMs = 5000): Promise<void> => {
    if (hasExited) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  const ready = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.name}: not ready within 30 s\n${stderrTail}`)), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const match = options.ready.exec(stdout.slice(0, stdout.lastIndexOf('\n') + 1));
      if (match !== null) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with code ${code} before it was ready:\n${stderrTail.trim()}`));
    });
  }).catch(async (error: unknown) => {
    await stop(1000);
    throw error;
  });
  child.stdout.removeAllListeners('data');
  child.stdout.resume();
  return {
    name: options.name,
    url: ready[1] ?? '',
    cpuSeconds: () => processTree(pid).reduce((sum, p) => sum + cpuSecondsOf(p), 0),
    peakRssMiB: () => processTree(pid).reduce((sum, p) => sum + rssOf(p), 0),
    rssMiB: () => processTree(pid).reduce((sum, p) => sum + rssOf(p, 'RSS'), 0),
    allocatedBytes: async () => (await Promise.all(processTree(pid).map(allocatedBytesOf))).reduce((a, b) => a + b, 0),
    stop,
  };
}
