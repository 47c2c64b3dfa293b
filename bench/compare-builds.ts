/**
 * One gqlgw row served by several builds of the gateway, side by side in one run: did a change cost
 * throughput? Each build is a checkout with its own `dist/` (e.g. a `git worktree` of an older
 * commit, built with `npx tsc`); every build serves the same config from THIS checkout's bench/
 * (so all of them run with the same settings, `coalesce = false` included), against the same
 * backend, pinned like `npm run bench`. Runs are interleaved (every build once, then again);
 * the table shows medians with min–max, CPU per query from /proc, backend requests per query,
 * peak RSS (VmHWM at the end of each server session: its warm-up and its cell) and wrong answers
 * (every response is checked against the verified body).
 *
 *   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/ && (cd /tmp/before && npx tsc)
 *   npm run build && node dist/bench/compare-builds.js before=/tmp/before now=.
 *
 * Environment: BENCH_VARIANT (batch; or no-batch, batch-cache, front), BENCH_DURATION (5 s per
 * cell), BENCH_RUNS (3), BENCH_CONNECTIONS (16; 64 shows memory under the deepest queues), BENCH_WARMUP (8 s
 * of load before each cell; the backend gets as much before the first). It
 * writes nothing; the table goes to stdout.
 *
 * `front` measures the fixed cost of a request: every build answers `{ __typename }` (nothing to
 * fetch) with bench/batch.toml, next to a bare node:http server that parses the body and writes the
 * same bytes (the `front` role), so what a build adds to the HTTP server alone is the difference.
 */
import { resolve } from 'node:path';
import { backendRequestCount } from './driver/backend-stats.js';
import { warmBackend } from './driver/backend-warmup.js';
import { SERVER_CORE, startProcess, type StartedProcess } from './driver/processes.js';
import { queryOnce, verifyServer } from './driver/verify.js';
import { DEFAULT_WARMUP_SEC, runWrk, type WrkExchange } from './driver/wrk.js';
import { NODE_FLAGS, startBackend } from './rows.js';
import { FRONT_EXPECTED_BODY, FRONT_REQUEST_BODY } from './shared/data.js';
import { BENCH_SRC_DIR, distEntry } from './shared/paths.js';

interface Cell {
  readonly rps: number;
  readonly cpuMicrosPerQuery: number;
  readonly subrequestsPerQuery: number;
  readonly peakRssMiB: number;
  readonly wrong: number;
}

const builds = process.argv.slice(2).map((arg) => {
  const eq = arg.indexOf('=');
  if (eq <= 0) throw new Error(`expected LABEL=DIR, got "${arg}"`);
  return { label: arg.slice(0, eq), root: resolve(arg.slice(eq + 1)) };
});
if (builds.length === 0) {
  process.stderr.write('usage: node dist/bench/compare-builds.js LABEL=DIR [LABEL=DIR ...]\n');
  process.exit(2);
}
const variant = process.env.BENCH_VARIANT ?? 'batch';
const seconds = Number(process.env.BENCH_DURATION ?? 5);
const runs = Number(process.env.BENCH_RUNS ?? 3);
/** Seconds of load before each measured cell, as `npm run bench` (bench/README.md "Warm-up, then steady state"). */
const warmupSeconds = Number(process.env.BENCH_WARMUP ?? DEFAULT_WARMUP_SEC);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
if (!Number.isInteger(connections) || connections < 1) throw new Error(`BENCH_CONNECTIONS must be a positive integer`);
const front = variant === 'front';
const config = resolve(BENCH_SRC_DIR, `${front ? 'batch' : variant}.toml`);
/** The front reference's label (not a build: the bare node:http server). */
const BARE = 'node:http alone';
const FRONT: WrkExchange = { request: FRONT_REQUEST_BODY, expected: FRONT_EXPECTED_BODY };

/** Starts a build's gateway, or the bare front reference (no root), on the server core. */
function startServer(build: { readonly label: string; readonly root?: string }): Promise<StartedProcess> {
  if (build.root === undefined) {
    return startProcess({
      name: BARE,
      core: SERVER_CORE,
      command: process.execPath,
      args: [...NODE_FLAGS, distEntry('serve.js'), 'front', '--port', '0'],
      ready: /listening on (\S+)/,
    });
  }
  return startProcess({
    name: build.label,
    core: SERVER_CORE,
    command: process.execPath,
    args: [...NODE_FLAGS, resolve(build.root, 'dist/gateway/cli.js'), 'serve', '--config', config, '--port', '0'],
    ready: /gqlgw listening on (\S+)/,
    cwd: build.root,
    env: { ...process.env, NODE_ENV: 'production' },
  });
}

/** What every answer must be: the verified bench answer, or `{ __typename }`'s for the front. */
async function exchangeOf(label: string, url: string, backendUrl: string): Promise<WrkExchange | string> {
  if (front) {
    const { status, body } = await queryOnce(url, FRONT_REQUEST_BODY);
    if (status !== 200 || body !== FRONT_EXPECTED_BODY) throw new Error(`${label}: wrong answer: ${status} ${body.slice(0, 200)}`);
    return FRONT;
  }
  const verified = await verifyServer(url, backendUrl);
  if (!verified.ok) throw new Error(`${label}: wrong answer: ${verified.reason}`);
  return verified.body;
}

const servers: ReadonlyArray<{ readonly label: string; readonly root?: string }> = front ? [...builds, { label: BARE }] : builds;
const backend = await startBackend();
await warmBackend(backend.url, warmupSeconds);
const cells = new Map<string, Cell[]>(servers.map((b) => [b.label, []]));
try {
  for (let run = 1; run <= runs; run++) {
    for (const build of servers) {
      const server = await startServer(build);
      try {
        const exchange = await exchangeOf(build.label, server.url, backend.url);
        await runWrk(server.url, connections, warmupSeconds, exchange);
        const cpu0 = server.cpuSeconds();
        const requests0 = await backendRequestCount(backend.url);
        const load = await runWrk(server.url, connections, seconds, exchange);
        const cpu = server.cpuSeconds() - cpu0;
        const requests = (await backendRequestCount(backend.url)) - requests0;
        const cell: Cell = {
          rps: load.rps,
          cpuMicrosPerQuery: (cpu * 1e6) / load.responses,
          subrequestsPerQuery: requests / load.responses,
          peakRssMiB: server.peakRssMiB(),
          wrong: load.wrong,
        };
        cells.get(build.label)!.push(cell);
        process.stderr.write(
          `run ${run}/${runs} ${build.label}: ${cell.rps.toFixed(0)} req/s, ${cell.cpuMicrosPerQuery.toFixed(0)} µs CPU/query, ${cell.peakRssMiB.toFixed(0)} MiB peak RSS\n`,
        );
      } finally {
        await server.stop(20_000);
      }
    }
  }
} finally {
  await backend.stop(5_000);
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const span = (xs: readonly number[]): string => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;
const lines = [
  front
    ? `the HTTP front alone: { __typename } (bench/batch.toml), ${connections} connections, ${seconds} s cells, ${runs} interleaved runs; medians (min–max)`
    : `gqlgw, ${variant} (bench/${variant}.toml), ${connections} connections, ${seconds} s cells, ${runs} interleaved runs; medians (min–max)`,
  '',
  '| build | req/s | CPU µs/query | subreq/query | peak RSS MiB | wrong |',
  '| :--- | ---: | ---: | ---: | ---: | ---: |',
];
for (const [label, cs] of cells) {
  const rps = cs.map((c) => c.rps);
  const cpu = cs.map((c) => c.cpuMicrosPerQuery);
  const rss = cs.map((c) => c.peakRssMiB);
  lines.push(
    `| ${label} | ${median(rps).toFixed(0)} (${span(rps)}) | ${median(cpu).toFixed(0)} (${span(cpu)}) | ${median(cs.map((c) => c.subrequestsPerQuery)).toFixed(2)} | ${median(rss).toFixed(0)} (${span(rss)}) | ${cs.reduce((n, c) => n + c.wrong, 0)} |`,
  );
}
process.stdout.write(lines.join('\n') + '\n');
