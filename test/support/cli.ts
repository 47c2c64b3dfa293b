/**
 * `gqlgw serve` as a real child process, for tests of what only the CLI does (signals, workers,
 * what it prints):
 *
 *   const proc = await serveCli(files.configPath, ['--workers', '2']);
 *   await fetch(proc.url, ...); proc.child.kill('SIGTERM');
 *   const { code } = await proc.exited; proc.stdout(); proc.stderr();
 *
 * Resolves once the process printed its `gqlgw listening on URL` line (rejects after 15 s or when
 * it exits first, with its stderr). The caller kills it if a test fails before it exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/gateway/cli.js, the compiled `gqlgw` binary. */
export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../gateway/cli.js');

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

/** Runs `gqlgw serve --config FILE --port 0 ...extraArgs` and waits for its listening line. */
export async function serveCli(configPath: string, extraArgs: readonly string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--config', configPath, '--port', '0', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; atMs: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, atMs: performance.now() })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line; stderr: ${err}`)), 15_000);
    const look = (): void => {
      const m = /gqlgw listening on (\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve(m[1]!);
    };
    child.stdout!.on('data', look);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited early; stderr: ${err}`));
    });
  });
  return { child, url, port: Number(new URL(url).port), stdout: () => out, stderr: () => err, exited };
}
