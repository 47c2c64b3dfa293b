import { readFileSync } from 'node:fs';

/**
 * The gateway's package version (package.json `version`), read once: what `user_agent`'s default
 * `gqlgw/VERSION` names (docs/reference.md). From dist/gateway/config/ and from
 * gateway/config/ alike, package.json is two or three folders up.
 */
export const PACKAGE_VERSION: string = readVersion();

function readVersion(): string {
  for (const up of ['../../../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'gqlgw' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not there: try the next folder up
    }
  }
  return '0.0.0';
}
