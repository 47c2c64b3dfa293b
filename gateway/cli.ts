#!/usr/bin/env node
import './production-mode.js';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { parse } from 'graphql';
import { loadConfig } from './config/load.js';
import { buildBlueprint } from './blueprint/build.js';
import { GatewayConfigError } from './config/diagnostics.js';
import { buildPlan } from './plan/build.js';
import { printPlan } from './plan/print.js';
import { startGateway, type RunningGateway } from './server/start.js';

const USAGE = `usage:
  gqlgw serve --config FILE [--port N] [--host H]   serve a gateway.toml
  gqlgw check --config FILE                         validate config and schema; exit 1 with every problem
  gqlgw plan  --config FILE [--operation NAME] (QUERY | --file FILE.graphql)
                                                    print which fields run in which round
`;

/** `gqlgw serve | check | plan`. A user's mistake prints a message and exits 1, never a stack. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  let values: { config?: string; port?: string; host?: string; operation?: string; file?: string; help?: boolean };
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
  if (!['serve', 'check', 'plan'].includes(command)) {
    process.stderr.write(`gqlgw: unknown command "${command}"\n${USAGE}`);
    return 2;
  }
  const configPath = values.config ?? 'gateway.toml';
  try {
    if (command === 'check') {
      buildBlueprint(loadConfig(configPath));
      process.stdout.write(`${configPath}: ok\n`);
      return 0;
    }
    if (command === 'plan') return planCommand(configPath, values, positionals);
    let port: number | undefined;
    if (values.port !== undefined) {
      port = Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        process.stderr.write(`gqlgw: --port must be an integer from 0 to 65535, found "${values.port}"\n`);
        return 2;
      }
    }
    const gateway = await startGateway({ configPath, port, host: values.host });
    process.stdout.write(`gqlgw listening on ${gateway.url}\n`);
    handleStopSignals(gateway);
    return -1;
  } catch (err) {
    if (err instanceof GatewayConfigError) {
      process.stderr.write(`${err.message}\n${err.diagnostics.length} problem${err.diagnostics.length === 1 ? '' : 's'} in ${configPath}; nothing was started\n`);
      return 1;
    }
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      process.stderr.write(`gqlgw: cannot listen: ${(err as Error).message}\n`);
      return 1;
    }
    throw err;
  }
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

function planCommand(configPath: string, values: { operation?: string; file?: string }, positionals: string[]): number {
  const blueprint = buildBlueprint(loadConfig(configPath));
  const text = values.file ? readFileSync(values.file, 'utf8') : positionals.join(' ');
  if (!text.trim()) {
    process.stderr.write(`gqlgw plan: give a query as an argument or with --file\n`);
    return 2;
  }
  let document;
  try {
    document = parse(text);
  } catch (err) {
    process.stderr.write(`gqlgw plan: ${(err as Error).message}\n`);
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

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`gqlgw: internal error: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(70);
  },
);
