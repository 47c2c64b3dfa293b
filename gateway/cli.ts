#!/usr/bin/env node
import './production-mode.js';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { parse, validate, Source, type GraphQLError } from 'graphql';
import { DIRECTIVE_DEFINITIONS } from '../directives/definitions.js';
import { didYouMean } from '../directives/suggest.js';
import { loadConfig } from './config/load.js';
import { buildBlueprint } from './blueprint/build.js';
import { collectWarnings } from './blueprint/warnings.js';
import { GatewayConfigError, formatDiagnostic, type Diagnostic } from './config/diagnostics.js';
import { buildPlan } from './plan/build.js';
import { printPlan } from './plan/print.js';
import type { RunningGateway } from './server/start.js';
import type { reloadedLine } from './server/reload.js';
import type { watchGatewayFiles } from './server/watch.js';

const USAGE = `usage:
  gqlgw serve --config FILE [--port N] [--host H] [--watch]
                                                    serve a gateway.toml; --watch (or SIGHUP) reloads it
  gqlgw check --config FILE [--strict]              validate config and schema; exit 1 with every problem
                                                    (--strict: warnings fail too)
  gqlgw plan  --config FILE [--operation NAME] (QUERY | --file FILE.graphql)
                                                    print which fields run in which round
  gqlgw sdl                                         print the directive definitions (for editors)
`;

const COMMANDS = ['serve', 'check', 'plan', 'sdl'];

interface CliValues {
  config?: string;
  port?: string;
  host?: string;
  operation?: string;
  file?: string;
  help?: boolean;
  watch?: boolean;
  strict?: boolean;
}

/** `gqlgw serve | check | plan | sdl`. A user's mistake prints a message and exits 1, never a stack. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  let values: CliValues;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        port: { type: 'string', short: 'p' },
        host: { type: 'string' },
        operation: { type: 'string' },
        file: { type: 'string', short: 'f' },
        help: { type: 'boolean', short: 'h' },
        watch: { type: 'boolean', short: 'w' },
        strict: { type: 'boolean' },
      },
    }));
  } catch (err) {
    process.stderr.write(`gqlgw: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (!command || values.help || command === 'help' || command === '--help') {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  if (!COMMANDS.includes(command)) {
    process.stderr.write(`gqlgw: unknown command "${command}"${didYouMean(command, COMMANDS)}\n${USAGE}`);
    return 2;
  }
  if (command === 'sdl') {
    process.stdout.write(`${DIRECTIVE_DEFINITIONS.trim()}\n`);
    return 0;
  }
  const configPath = values.config ?? 'gateway.toml';
  try {
    if (command === 'check') return checkCommand(configPath, values.strict === true);
    if (command === 'plan') return planCommand(configPath, values, positionals);
    return await serveCommand(configPath, values);
  } catch (err) {
    if (err instanceof GatewayConfigError) {
      process.stderr.write(`${err.message}\n${problemSummary(err.diagnostics)}${command === 'serve' ? '; nothing was started' : ''}\n`);
      return 1;
    }
    throw err;
  }
}

/**
 * The server's modules (yoga, undici, prom-client) are imported only here, so that `check`, `plan`
 * and `sdl` start in a fraction of the time.
 */
async function serveCommand(configPath: string, values: CliValues): Promise<number> {
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) {
      process.stderr.write(`gqlgw: --port must be an integer from 0 to 65535, found "${values.port}"\n`);
      return 2;
    }
  }
  const { startGateway, ListenError } = await import('./server/start.js');
  let gateway: RunningGateway;
  try {
    gateway = await startGateway({ configPath, port, host: values.host });
  } catch (err) {
    if (!(err instanceof ListenError)) throw err;
    process.stderr.write(`gqlgw: ${err.message}\n`);
    return 1;
  }
  process.stdout.write(`gqlgw listening on ${gateway.url}\n`);
  handleStopSignals(gateway);
  const { reloadedLine } = await import('./server/reload.js');
  const { watchGatewayFiles } = await import('./server/watch.js');
  handleReloads(gateway, values.watch ? watchGatewayFiles : undefined, reloadedLine);
  return -1;
}

/** `N problems in FILE[, FILE]`, naming the files the problems are in. */
function problemSummary(diagnostics: readonly Diagnostic[], noun = 'problem'): string {
  const files = [...new Set(diagnostics.map((d) => d.file))];
  return `${diagnostics.length} ${noun}${diagnostics.length === 1 ? '' : 's'} in ${files.join(', ')}`;
}

function checkCommand(configPath: string, strict: boolean): number {
  const warnings = collectWarnings(buildBlueprint(loadConfig(configPath)));
  for (const w of warnings) process.stderr.write(`${formatDiagnostic({ ...w, message: `warning: ${w.message}` })}\n`);
  if (warnings.length === 0) {
    process.stdout.write(`${configPath}: ok\n`);
    return 0;
  }
  const summary = problemSummary(warnings, 'warning');
  if (strict) {
    process.stderr.write(`${summary}; --strict makes warnings fail\n`);
    return 1;
  }
  process.stdout.write(`${configPath}: ok, ${summary}\n`);
  return 0;
}

/**
 * SIGHUP, and with `--watch` every change to gateway.toml or a schema file, reloads
 * (gateway/server/reload.ts). The reload line goes to stdout; diagnostics and restart notes to
 * stderr; a broken edit leaves the last good version serving.
 */
function handleReloads(gateway: RunningGateway, watch: typeof watchGatewayFiles | undefined, line: typeof reloadedLine): void {
  const watcher = watch?.(gateway.config, () => reload(true));
  function reload(ifChanged: boolean): void {
    const report = gateway.reload({ ifChanged });
    if (report.status === 'unchanged') return;
    if (report.status === 'failed') {
      const lines = report.diagnostics.map(formatDiagnostic);
      process.stderr.write(`${lines.join('\n')}\n${problemSummary(report.diagnostics)}; reload failed, still serving the last good version\n`);
      return;
    }
    watcher?.retarget(gateway.config);
    for (const note of report.restart) process.stderr.write(`gqlgw: ${note}\n`);
    process.stdout.write(`${line(report)}\n`);
  }
  process.on('SIGHUP', () => reload(false));
}

/**
 * SIGTERM or SIGINT: graceful stop (docs/hardening.md "Lifecycle"): stop accepting, let in-flight
 * requests finish within shutdown_grace_ms, close pools and memcached, exit 0. A second signal,
 * or a shutdown stuck 5 s past the grace period, exits 1 at once.
 */
function handleStopSignals(gateway: RunningGateway): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`gqlgw: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    const graceMs = gateway.config.shutdownGraceMs;
    process.stderr.write(`gqlgw: ${signal}: draining (up to ${graceMs} ms)\n`);
    setTimeout(() => {
      process.stderr.write('gqlgw: shutdown did not finish, exiting\n');
      process.exit(1);
    }, graceMs + 5000).unref();
    void gateway.shutdown(graceMs).then((inTime) => {
      process.stderr.write(inTime ? 'gqlgw: stopped\n' : 'gqlgw: stopped; requests still running after the grace period were cut off\n');
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function planCommand(configPath: string, values: CliValues, positionals: string[]): number {
  const blueprint = buildBlueprint(loadConfig(configPath));
  let text: string;
  if (values.file !== undefined) {
    try {
      text = readFileSync(values.file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (err as Error).message;
      process.stderr.write(`gqlgw plan: cannot read --file ${values.file}: ${why}\n`);
      return 1;
    }
  } else text = positionals.join(' ');
  if (!text.trim()) {
    process.stderr.write(`gqlgw plan: give a query as an argument or with --file\n`);
    return 2;
  }
  const shownName = values.file ?? 'query';
  let document;
  try {
    document = parse(new Source(text, shownName));
  } catch (err) {
    process.stderr.write(`gqlgw plan: ${queryError(err as GraphQLError, shownName)}\n`);
    return 1;
  }
  const errors = validate(blueprint.schema, document);
  if (errors.length > 0) {
    for (const e of errors) process.stderr.write(`gqlgw plan: ${queryError(e, shownName)}\n`);
    process.stderr.write(`gqlgw plan: the query is not valid against the schema of ${configPath}; nothing was planned\n`);
    return 1;
  }
  const plan = buildPlan(blueprint, document, values.operation);
  if (!plan) {
    process.stderr.write(`gqlgw plan: no operation${values.operation ? ` named "${values.operation}"` : ''} to plan (name one with --operation)\n`);
    return 1;
  }
  process.stdout.write(printPlan(plan));
  return 0;
}

/** `query:1:13: Cannot query field ...` — graphql-js's message at its line:column. */
function queryError(err: GraphQLError, shownName: string): string {
  const loc = err.locations?.[0];
  return loc ? `${shownName}:${loc.line}:${loc.column}: ${err.message}` : `${shownName}: ${err.message}`;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`gqlgw: internal error: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(70);
  },
);
