/**
 * The open-loop driver: sends requests at a fixed offered rate, on a schedule that does not wait
 * for answers, and measures every latency from the request's *scheduled* send time, so time spent
 * queueing (in the server, in the connection pool, or behind a late driver) is not hidden (no
 * coordinated omission). It runs in the runner's process on the load core, with its own light
 * client (load-client.ts), and compares every body byte for byte with the verified answer. Its
 * own lateness is measured too (`sendLagP99Ms`), so a cell where the driver fell behind shows.
 */
import { REQUEST_BODY, REQUEST_HEADERS } from '../shared/data.js';
import type { LoadResult } from '../results.js';
import { LoadClient, postRequest } from './load-client.js';
import { percentile } from './stats.js';

export interface OpenLoopOptions {
  readonly url: string;
  readonly ratePerSec: number;
  readonly durationSec: number;
  /** Seconds sent at the same rate before the measured ones, not counted (1). */
  readonly warmupSec?: number;
  readonly expectedBody: string;
  /** Connections the driver may open (64); requests beyond them wait in its queue, on the clock. */
  readonly connections?: number;
}

/** How long the driver waits for answers after its last send; later ones count as unanswered. */
const DRAIN_MS = 2_000;

export async function runOpenLoop(options: OpenLoopOptions): Promise<LoadResult> {
  const target = new URL(options.url);
  const request = postRequest(target, REQUEST_HEADERS, REQUEST_BODY);
  const client = new LoadClient({
    host: target.hostname,
    port: Number(target.port || 80),
    connections: options.connections ?? 64,
    request,
  });
  const expected = Buffer.from(options.expectedBody);
  const warmup = Math.round(options.ratePerSec * (options.warmupSec ?? 1));
  const measured = Math.max(1, Math.round(options.ratePerSec * options.durationSec));
  const total = warmup + measured;
  const intervalMs = 1000 / options.ratePerSec;
  /** Latency of each measured request once answered (NaN while open), and how late it was sent. */
  const latencies = new Float64Array(measured).fill(Number.NaN);
  const lags = new Float64Array(measured);
  let [completed, answered, wrong, lastCompletion] = [0, 0, 0, 0];
  let wrongSample: string | undefined;
  let abandoned = false;
  const start = performance.now() + 20;

  const send = (i: number, scheduled: number): void => {
    const k = i - warmup;
    if (k >= 0) lags[k] = performance.now() - scheduled;
    client.send((error, status, body) => {
      completed++;
      if (abandoned) return;
      const now = performance.now();
      const right = error === undefined && status === 200 && body !== undefined && body.equals(expected);
      if (!right) {
        wrong++;
        wrongSample ??= error !== undefined ? `request failed: ${String(error)}` : `${status} ${String(body).slice(0, 400)}`;
      }
      if (k < 0) return;
      latencies[k] = now - scheduled;
      if (error === undefined) [answered, lastCompletion] = [answered + 1, now];
    });
  };

  await new Promise<void>((resolve) => {
    let next = 0;
    const tick = (): void => {
      for (const now = performance.now(); next < total && start + next * intervalMs <= now; next++) send(next, start + next * intervalMs);
      if (next >= total) resolve();
      else setTimeout(tick, Math.max(0, start + next * intervalMs - performance.now()));
    };
    setTimeout(tick, Math.max(0, start - performance.now()));
  });
  const deadline = performance.now() + DRAIN_MS;
  while (completed < total && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  abandoned = true;
  // Unanswered requests enter the percentiles with their wait so far: a lower bound, not nothing.
  const giveUp = performance.now();
  const measuredStart = start + warmup * intervalMs;
  for (let k = 0; k < measured; k++) if (Number.isNaN(latencies[k]!)) latencies[k] = giveUp - (measuredStart + k * intervalMs);
  client.close();
  const sorted = latencies.sort();
  const durationSec = Math.max(lastCompletion - measuredStart, 1) / 1000;
  return {
    responses: answered,
    requestsSent: total,
    durationSec,
    rps: answered / durationSec,
    avgMs: sorted.reduce((s, v) => s + v, 0) / sorted.length,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1] ?? 0,
    wrong,
    wrongSample,
    unanswered: total - completed,
    offeredRps: options.ratePerSec,
    sendLagP99Ms: percentile(lags.sort(), 99),
  };
}
