/**
 * The real CLI (dist/gateway/cli.js) as a child process, for tests of what only the CLI does
 * (signals, workers, reloads, what it prints):
 *
 *   const run = await runCli(['check', '--strict'], files.dir);   // to its end: status, stdout, stderr
 *   const cli = spawnCli(['serve', '--watch'], files.dir);         // keeps running
 *   await cli.waitFor('stdout', /^gqlgw reloaded: /, mark);         // a line printed after `mark`
 *   const proc = await serveCli(files.configPath, ['--workers', '2']);   // serve --port 0, listening
 *   await fetch(proc.url, ...); proc.child.kill('SIGTERM');
 *   const { code } = await proc.exited; proc.stdout(); proc.stderr();
 *
 * Waiting is for printed lines (events), never a fixed time; every wait has a bound. The caller
 * stops a process it spawned (`stop()`, or kill and await `exited`) even when a test fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/gateway/cli.js, the compiled `gqlgw` binary. */
export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../gateway/cli.js');

export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `gqlgw ...args` in `cwd` to its end (killed after 20 s). */
export function runCli(args: readonly string[], cwd?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export interface RunningCli {
  readonly child: ChildProcess;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Exit code and when it happened (performance.now()). */
  readonly exited: Promise<{ code: number | null; atMs: number }>;
  /**
   * Resolves with the first line on `stream` matching `pattern`, printed after offset `from`
   * (default: anything so far); rejects when the process exits first or after `timeoutMs`.
   */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, from?: number, timeoutMs?: number): Promise<string>;
  /** Sends SIGTERM unless it exited, and waits for the exit. */
  stop(): Promise<void>;
}

/** Starts `gqlgw ...args` in `cwd` (node started with `nodeFlags`) and returns at once. */
export function spawnCli(args: readonly string[], cwd?: string, nodeFlags: readonly string[] = []): RunningCli {
  const child = spawn(process.execPath, [...nodeFlags, CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  const poke = (): void => {
    for (const w of [...waiters]) w();
  };
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out.stdout += c;
    poke();
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    out.stderr += c;
    poke();
  });
  let hasExited = false;
  const exited = new Promise<{ code: number | null; atMs: number }>((resolve) =>
    child.once('exit', (code) => {
      hasExited = true;
      resolve({ code, atMs: performance.now() });
      poke();
    }),
  );
  return {
    child,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    exited,
    waitFor(stream, pattern, from = 0, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const line = out[stream]
            .slice(from)
            .split('\n')
            .find((l) => pattern.test(l));
          if (line !== undefined) done(undefined, line);
          else if (hasExited) done(new Error(`gqlgw exited before printing ${pattern}; stderr:\n${out.stderr}`));
        };
        const timer = setTimeout(
          () =>
            done(
              new Error(
                `no line matching ${pattern} on ${stream} within ${timeoutMs} ms; ${stream}:\n${out[stream]}\nstderr:\n${out.stderr}`,
              ),
            ),
          timeoutMs,
        );
        function done(err: Error | undefined, line = ''): void {
          clearTimeout(timer);
          waiters.delete(check);
          if (err) reject(err);
          else resolve(line);
        }
        waiters.add(check);
        check();
      });
    },
    async stop() {
      if (!hasExited) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface ServeProcess {
  readonly child: ChildProcess;
  /** The URL from the listening line. */
  readonly url: string;
  readonly port: number;
  stdout(): string;
  stderr(): string;
  /** Exit code and when it happened (performance.now()). */
  readonly exited: Promise<{ code: number | null; atMs: number }>;
}

/**
 * Runs `gqlgw serve --config FILE --port 0 ...extraArgs` (node started with `nodeFlags`) and waits
 * for its listening line (rejects after 15 s or when it exits first, with its stderr).
 */
export async function serveCli(
  configPath: string,
  extraArgs: readonly string[] = [],
  nodeFlags: readonly string[] = [],
): Promise<ServeProcess> {
  const proc = spawnCli(['serve', '--config', configPath, '--port', '0', ...extraArgs], undefined, nodeFlags);
  const line = await proc.waitFor('stdout', /gqlgw listening on \S+/);
  const url = line.replace(/^.*gqlgw listening on (\S+).*$/, '$1');
  return { child: proc.child, url, port: Number(new URL(url).port), stdout: proc.stdout, stderr: proc.stderr, exited: proc.exited };
}
