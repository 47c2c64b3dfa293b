/**
 * Runs the real CLI (dist/gateway/cli.js) as a child process, for the writer's-loop tests.
 * `runCli` waits for the exit; `spawnCli` keeps a server running and lets a test wait for a line
 * on stdout or stderr (polling for events, never sleeping a fixed time).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../gateway/cli.js', import.meta.url));

export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `gqlgw ...args` to its end (at most 20 s) in `cwd`. */
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
  /**
   * Resolves with the first line matching `pattern` printed after the `from` offset (default: any
   * so far) on the stream; rejects when the process exits or after `timeoutMs`.
   */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, from?: number, timeoutMs?: number): Promise<string>;
  /** Sends SIGTERM and waits for the exit. */
  stop(): Promise<void>;
}

export function spawnCli(args: readonly string[], cwd?: string): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  const poke = () => {
    for (const w of [...waiters]) w();
  };
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    out.stdout += c;
    poke();
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    out.stderr += c;
    poke();
  });
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      poke();
      resolve();
    }),
  );
  return {
    child,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    waitFor(stream, pattern, from = 0, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`no line matching ${pattern} on ${stream} within ${timeoutMs} ms; ${stream}:\n${out[stream]}\nstderr:\n${out.stderr}`)), timeoutMs);
        const check = () => {
          const line = out[stream].slice(from).split('\n').find((l) => pattern.test(l));
          if (line !== undefined) done(undefined, line);
          else if (exited) done(new Error(`gqlgw exited before printing ${pattern}; stderr:\n${out.stderr}`));
        };
        const done = (err: Error | undefined, line?: string) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (err) reject(err);
          else resolve(line!);
        };
        waiters.add(check);
        check();
      });
    },
    async stop() {
      if (!exited) child.kill('SIGTERM');
      await exit;
    },
  };
}
