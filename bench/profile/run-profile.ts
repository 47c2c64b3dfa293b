/**
 * The cost breakdown of one gqlgw query. Two measurements of the same variant:
 * 1. wall time at 1 connection (no queueing): client latency, the gateway's own operation
 *    duration and its upstream time per query, from its Prometheus metrics;
 * 2. CPU at 16 connections: a V8 CPU profile of the gateway process (profiled-gateway.ts)
 *    over one cell, summarised by category (categorize.ts), with the CPU seconds the process
 *    used (from /proc) divided by the queries served.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_CORE, startProcess, type StartedProcess } from '../driver/processes.js';
import { verifyServer } from '../driver/verify.js';
import { runWrk } from '../driver/wrk.js';
import { histogramDelta, OPERATION_DURATION, scrapeMetrics, UPSTREAM_DURATION } from '../driver/metrics.js';
import type { ProfileResult, Settings, WallBreakdown } from '../results.js';
import { variantConfigPath, type RowSpec } from '../rows.js';
import { BENCH_OUT_DIR, distEntry, ROOT_DIR } from '../shared/paths.js';
import { summarizeProfile, type CpuProfile } from './categorize.js';

async function wallBreakdown(url: string, expectedBody: string, seconds: number): Promise<WallBreakdown | undefined> {
  const metricsUrl = url.replace(/\/graphql$/, '/metrics');
  const before = await scrapeMetrics(metricsUrl).catch(() => undefined);
  const load = await runWrk(url, 1, seconds, expectedBody);
  const after = before === undefined ? undefined : await scrapeMetrics(metricsUrl).catch(() => undefined);
  const operation = before && after ? histogramDelta(before, after, OPERATION_DURATION) : undefined;
  const upstream = before && after ? histogramDelta(before, after, UPSTREAM_DURATION) : undefined;
  const queries = operation?.count ?? load.responses;
  return {
    connections: 1,
    queries: load.responses,
    clientAvgMs: load.avgMs,
    operationAvgMs: operation && operation.count > 0 ? operation.sumMs / operation.count : undefined,
    upstreamMsPerQuery: upstream && queries > 0 ? upstream.sumMs / queries : undefined,
    upstreamRequestsPerQuery: upstream && queries > 0 ? upstream.count / queries : undefined,
    sources: [operation?.name, upstream?.name].filter((n): n is string => n !== undefined),
  };
}

export async function profileGateway(row: RowSpec, backend: StartedProcess, settings: Settings): Promise<ProfileResult> {
  if (row.variant === undefined) throw new Error(`${row.id} is not a gqlgw row`);
  const outFile = join(BENCH_OUT_DIR, `gqlgw-${row.variant}.cpuprofile`);
  const gateway = await startProcess({
    name: 'gqlgw (profiled)',
    core: SERVER_CORE,
    command: process.execPath,
    args: [distEntry('profile/profiled-gateway.js'), '--config', variantConfigPath(row.variant), '--out', outFile],
    ready: /gqlgw listening on (\S+)/,
    cwd: ROOT_DIR,
  });
  try {
    const verification = await verifyServer(gateway.url, backend.url);
    if (!verification.ok) throw new Error(`wrong answer: ${verification.reason}`);
    const expected = verification.body;
    await runWrk(gateway.url, 16, settings.warmupSec, expected);
    const wall = await wallBreakdown(gateway.url, expected, settings.secondaryDurationSec).catch(() => undefined);

    const started = gateway.waitForLine(/^profile started$/, 10_000);
    gateway.send('start');
    await started;
    const cpu0 = gateway.cpuSeconds();
    const load = await runWrk(gateway.url, 16, settings.durationSec, expected);
    const cpuSeconds = gateway.cpuSeconds() - cpu0;
    const written = gateway.waitForLine(/^profile written$/, 30_000);
    gateway.send('stop');
    await written;
    const profile = JSON.parse(readFileSync(outFile, 'utf8')) as CpuProfile;
    return {
      rowId: row.id,
      connections: 16,
      queries: load.responses,
      rps: load.rps,
      cpuSeconds,
      cpuMicrosPerQuery: load.responses > 0 ? (cpuSeconds * 1e6) / load.responses : Number.NaN,
      summary: summarizeProfile(profile),
      wall,
    };
  } finally {
    await gateway.stop();
  }
}
