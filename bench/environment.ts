/** The machine, versions and date a run is reported with. */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { resolve } from 'node:path';
import type { Environment } from './results.js';
import { NODE_FLAGS } from './rows.js';
import { ROOT_DIR } from './shared/paths.js';

const PACKAGES = ['graphql', 'graphql-yoga', 'graphql-jit', 'dataloader', 'undici', 'lru-cache', 'prom-client', 'typescript'];

function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(resolve(ROOT_DIR, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'missing';
  }
}

export function collectEnvironment(wrkVersion: string): Environment {
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT_DIR, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'gateway', 'directives'], {
    cwd: ROOT_DIR,
    encoding: 'utf8',
  });
  const commit = git.status === 0 ? git.stdout.trim() : 'unknown';
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${type()} ${release()}`,
    node: process.version,
    wrk: wrkVersion,
    nodeFlags: NODE_FLAGS,
    packages: Object.fromEntries(PACKAGES.map((p) => [p, packageVersion(p)])),
    gitCommit: dirty.status === 0 && dirty.stdout.trim() !== '' ? `${commit} (gateway sources modified)` : commit,
  };
}

/**
 * A fingerprint of the compiled gateway (dist/gateway, dist/directives: paths, sizes, mtimes).
 * The working tree is shared: if someone recompiles during a run, the start and end differ and
 * RESULTS.md says so.
 */
export function gatewayBuildFingerprint(): string {
  const hash = createHash('sha1');
  const walk = (dir: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of entries) {
      const path = resolve(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else hash.update(`${path}:${stat.size}:${stat.mtimeMs}\n`);
    }
  };
  walk(resolve(ROOT_DIR, 'dist/gateway'));
  walk(resolve(ROOT_DIR, 'dist/directives'));
  return hash.digest('hex').slice(0, 12);
}
