/**
 * Starting the benchmark's processes pinned to a core, waiting for their ready line, reading
 * their CPU time, and stopping them. Pinning uses `taskset -c CORE` when taskset exists and the
 * machine has at least two cores; otherwise processes run unpinned and `pinning()` says so.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Core 0: the server under test (gqlgw or a peer). Core 1: backend, load generator, runner. */
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;
/** A row with workers runs on both cores (and so shares core 1 with the load side). */
export const ALL_CORES = '0,1';

let pinningChecked: boolean | undefined;

/** True when processes are pinned with taskset. */
export function pinning(): boolean {
  if (pinningChecked === undefined) {
    const hasTaskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
    pinningChecked = hasTaskset && availableParallelism() >= 2;
  }
  return pinningChecked;
}

/** Pins the calling process (the runner) to `core`; no-op without pinning. */
export function pinSelf(core: number): void {
  if (pinning()) spawnSync('taskset', ['-a', '-cp', String(core), String(process.pid)], { stdio: 'ignore' });
}

/** The command line that runs `command args` pinned to `core` (a number or a taskset list such as "0,1"). */
export function pinnedCommand(core: number | string, command: string, args: readonly string[]): [string, string[]] {
  return pinning() ? ['taskset', ['-c', String(core), command, ...args]] : [command, [...args]];
}

/**
 * Runs `command args` to its end and resolves with the rest of its first output line (stdout or
 * stderr) that starts with `prefix`; rejects, with everything it printed, when it exits non-zero
 * or prints no such line. `what` names it in that error.
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
  readonly pid: number;
  /** The first capture group of the ready pattern (the URL). */
  readonly url: string;
  /** User + system CPU seconds used so far by the process and its children (cluster workers), from /proc; 0 where /proc is missing. */
  cpuSeconds(): number;
  /** Peak resident memory (VmHWM) in MiB, summed over the process and its children; NaN where /proc is missing. */
  peakRssMiB(): number;
  /** Sends a line to the process's stdin. */
  send(line: string): void;
  /** Resolves with the first stdout line matching `pattern` (within `timeoutMs`). */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
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
  readonly timeoutMs?: number;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

const CLOCK_TICKS = 100;

/** CPU seconds of a pid (utime + stime of /proc/PID/stat). */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** The pid and its descendants (e.g. cluster workers), from /proc/PID/task/PID/children. */
function processTree(pid: number): number[] {
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    const p = pids[i]!;
    try {
      const children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim();
      if (children !== '') pids.push(...children.split(/\s+/).map(Number));
    } catch {
      // Gone, or no /proc: counted as nothing.
    }
  }
  return pids;
}

/** VmHWM (peak resident set) of a pid in MiB; NaN when unreadable. */
function peakRssOf(pid: number): number {
  try {
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

export async function startProcess(options: StartOptions): Promise<StartedProcess> {
  const [command, args] = pinnedCommand(options.core, options.command, options.args);
  const child: ChildProcess = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name}: could not spawn ${command}`);
  let stderrTail = '';
  let stdoutBuffer = '';
  const waiters: Array<{ pattern: RegExp; resolve: (m: RegExpExecArray) => void }> = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4000);
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    stdoutBuffer += chunk.toString('utf8');
    let newline: number;
    while ((newline = stdoutBuffer.indexOf('\n')) >= 0) {
      const line = stdoutBuffer.slice(0, newline);
      stdoutBuffer = stdoutBuffer.slice(newline + 1);
      for (let i = waiters.length - 1; i >= 0; i--) {
        const waiter = waiters[i];
        const match = waiter?.pattern.exec(line);
        if (waiter && match) {
          waiter.resolve(match);
          waiters.splice(i, 1);
        }
      }
    }
  });

  const waitForLine = (pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${options.name}: no line matching ${pattern} within ${timeoutMs} ms\n${stderrTail}`)),
        timeoutMs,
      );
      waiters.push({
        pattern,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${options.name} exited with code ${code} before printing ${pattern}:\n${stderrTail.trim()}`));
      });
    });

  const stop = async (graceMs = 5000): Promise<void> => {
    if (hasExited) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  let ready: RegExpExecArray;
  try {
    ready = await waitForLine(options.ready, options.timeoutMs ?? 30_000);
  } catch (error) {
    await stop(1000);
    throw error;
  }
  return {
    name: options.name,
    pid,
    url: ready[1] ?? '',
    cpuSeconds: () => processTree(pid).reduce((sum, p) => sum + cpuSecondsOf(p), 0),
    peakRssMiB: () => processTree(pid).reduce((sum, p) => sum + peakRssOf(p), 0),
    send: (line) => {
      child.stdin?.write(`${line}\n`);
    },
    waitForLine,
    stop,
  };
}
