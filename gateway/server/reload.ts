import { fetchKeyPrefix } from '../cache/cache-key.js';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadConfig } from '../config/load.js';
import type { GatewayConfig } from '../config/types.js';
import { GatewayConfigError, type Diagnostic } from '../config/diagnostics.js';
import { buildBlueprint } from '../blueprint/build.js';
import { expandSchemaGlobs } from '../blueprint/glob.js';
import type { Blueprint, FetchBlueprint } from '../blueprint/types.js';
import { L2Cache, l2LimitsOf } from '../cache/l2.js';

/**
 * Reload (docs/reference.md: `serve --watch`, SIGHUP; docs/dev-loop.md).
 *
 * `reload()` reads gateway.toml and every file its schema globs match *now*, compiles them, and
 * only when that succeeds hands the result to `install` in one synchronous step: the next request
 * is served by the new version, requests already running finish on the one they started with.
 * A broken edit returns its diagnostics and changes nothing.
 *
 * Caches: L2 is kept, except that for every coordinate whose fetch changed (source name, URL or
 * forwarded headers, @fetch method, path or select, @batch path, match, select, method or body)
 * or that disappeared, the L2 entries under that fetch's key prefix (`{source}:` + the path text
 * before its first placeholder or `?`, e.g. `users:/users/`) are dropped; entries of other
 * coordinates with the same prefix go too, which costs a miss, never a wrong answer. A changed
 * `l2_max_entries` starts an empty L2. memcached is shared with other gateways and is left alone:
 * its entries expire by their ttl.
 *
 * What a running process cannot change is reported in `restart`: the listen address (unless
 * `--host`/`--port` fixed it), `headers_timeout_ms`, `request_timeout_ms`, `workers` and
 * `[metrics] enabled`.
 */
export interface InstalledVersion {
  readonly config: GatewayConfig;
  readonly blueprint: Blueprint;
  readonly l2: L2Cache;
}

export interface ReloadOptions {
  /** Do nothing when config and schema files read the same as at the last attempt (the watcher). */
  readonly ifChanged?: boolean;
}

export type ReloadReport =
  | {
      readonly status: 'reloaded';
      /** Fields of object types in the new schema (blueprint coordinates). */
      readonly fields: number;
      readonly sources: number;
      /** One sentence per setting that needs a restart to take effect. */
      readonly restart: readonly string[];
      /** Coordinates whose fetch changed or went away; their L2 entries were dropped. */
      readonly changedFetches: readonly string[];
    }
  | { readonly status: 'failed'; readonly diagnostics: readonly Diagnostic[] }
  | { readonly status: 'unchanged' };

export interface ReloaderOptions {
  readonly configPath: string;
  /** The URL being served, for the restart message. */
  readonly url: string;
  /** Whether --host / --port fixed the listen address (then the config's is not used). */
  readonly overridden: { readonly host: boolean; readonly port: boolean };
  current(): InstalledVersion;
  install(next: InstalledVersion): void;
}

export interface Reloader {
  reload(options?: ReloadOptions): ReloadReport;
}

/** The message a cluster worker gets to reload (docs/dev-loop.md, "Workers"). */
export const RELOAD_MESSAGE = 'gqlgw:reload';

export function createReloader(options: ReloaderOptions): Reloader {
  let lastInputs = readInputs(options.configPath);
  return {
    reload(reloadOptions = {}) {
      const inputs = readInputs(options.configPath);
      if (reloadOptions.ifChanged && inputs === lastInputs) return { status: 'unchanged' };
      lastInputs = inputs;
      let config: GatewayConfig;
      let blueprint: Blueprint;
      try {
        config = loadConfig(options.configPath);
        blueprint = buildBlueprint(config);
      } catch (err) {
        if (err instanceof GatewayConfigError) return { status: 'failed', diagnostics: err.diagnostics };
        throw err;
      }
      const old = options.current();
      const changedFetches = changedCoordinates(old.blueprint, blueprint);
      let l2 = old.l2;
      if (!l2.hasLimits(l2LimitsOf(config.cache))) l2 = new L2Cache(l2LimitsOf(config.cache));
      else for (const coordinate of changedFetches) l2.deletePrefix(keyPrefix(old.blueprint.fields.get(coordinate)!.fetch!));
      options.install({ config, blueprint, l2 });
      return {
        status: 'reloaded',
        fields: blueprint.fields.size,
        sources: config.sources.size,
        restart: restartNotes(old.config, config, options),
        changedFetches,
      };
    },
  };
}

/** The line printed after each successful reload. */
export function reloadedLine(report: { readonly fields: number; readonly sources: number }): string {
  return `gqlgw reloaded: ${report.fields} fields, ${report.sources} sources`;
}

function restartNotes(old: GatewayConfig, next: GatewayConfig, options: ReloaderOptions): string[] {
  const notes: string[] = [];
  if (!options.overridden.host && old.host !== next.host) {
    notes.push(`[gateway] host changed from "${old.host}" to "${next.host}": restart gqlgw to listen there (still serving ${options.url})`);
  }
  if (!options.overridden.port && old.port !== next.port) {
    notes.push(`[gateway] port changed from ${old.port} to ${next.port}: restart gqlgw to listen there (still serving ${options.url})`);
  }
  // Read once when the process starts (the HTTP server's timeouts, the metrics registry).
  const startOnly: Array<[string, unknown, unknown]> = [
    ['[gateway] headers_timeout_ms', old.headersTimeoutMs, next.headersTimeoutMs],
    ['[gateway] request_timeout_ms', old.requestTimeoutMs, next.requestTimeoutMs],
    ['[gateway] workers', old.workers, next.workers],
    ['[metrics] enabled', old.metrics.enabled, next.metrics.enabled],
    ['[tracing]', JSON.stringify(old.tracing ?? null), JSON.stringify(next.tracing ?? null)],
  ];
  for (const [key, before, after] of startOnly) {
    if (before !== after) notes.push(`${key} changed from ${String(before)} to ${String(after)}: restart gqlgw for it to take effect`);
  }
  return notes;
}

/** Coordinates of `old` that fetch, whose fetch is gone or differs in `next`. */
function changedCoordinates(old: Blueprint, next: Blueprint): string[] {
  const changed: string[] = [];
  for (const [coordinate, field] of old.fields) {
    if (!field.fetch) continue;
    const now = next.fields.get(coordinate)?.fetch;
    if (!now || fetchSignature(now) !== fetchSignature(field.fetch)) changed.push(coordinate);
  }
  return changed;
}

/** What decides the values a fetch caches: where it goes, what it asks and which part it keeps. */
function fetchSignature(fetch: FetchBlueprint): string {
  const { source, template, batch } = fetch;
  return JSON.stringify([
    source.name,
    source.url,
    source.forwardHeaders,
    source.claimHeaders,
    fetch.method, // only GET values are cached: a body matters only beside another method
    template.text,
    fetch.keySuffix,
    batch && [batch.template.text, batch.match, batch.select, batch.method, batch.body],
  ]);
}

/** What every cache key of a fetch starts with (cache/cache-key.ts). */
function keyPrefix(fetch: FetchBlueprint): string {
  return fetchKeyPrefix(fetch.source.name, fetch.template.text);
}

/** Config text and every matched schema file with its text: equal strings mean nothing to reload. */
function readInputs(configPath: string): string {
  const parts = [readOrEmpty(configPath)];
  try {
    const config = loadConfig(configPath);
    for (const { files } of expandSchemaGlobs(config.schema, dirname(config.file))) {
      for (const file of files) parts.push(file, readOrEmpty(file));
    }
  } catch {
    // A broken config: its text alone decides.
  }
  return parts.join('\0');
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
