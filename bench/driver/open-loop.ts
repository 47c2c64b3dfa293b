/**
 * The open-loop driver: sends requests at a fixed offered rate, on a schedule that does not wait
 * for answers, and measures every latency from the request's *scheduled* send time, so time spent
 * queueing (in the server, in the connection pool, or behind a late driver) is not hidden
 * (no coordinated omission). Runs as its own Node process (open-loop-cli.ts) pinned to the load
 * core, with its own light HTTP client (load-client.ts). Every body is compared byte for byte with
 * the verified answer, as in wrk.
 *
 * The driver's own lateness is measured too (`sendLagP99Ms`: how late requests left compared
 * with their schedule), so a cell where the driver, not the server, fell behind can be seen.
 */
import { performance } from 'node:perf_hooks';
import { REQUEST_BODY, REQUEST_HEADERS } from '../shared/data.js';
import type { LoadResult } from './cell.js';
import { LoadClient, postRequest } from './load-client.js';
import { percentile } from './stats.js';

export interface OpenLoopOptions {
  readonly url: string;
  readonly ratePerSec: number;
  readonly durationSec: number;
  /**
   * Seconds sent at the same rate before the measured ones and not counted: they warm up the
   * driver (JIT, connections) and the server at this rate, so neither's cold start is measured.
   */
  readonly warmupSec?: number;
  readonly expectedBody: string;
  /** Connections the driver may open; requests beyond them wait in the driver's queue (and count). */
  readonly connections?: number;
  /** How long to wait for answers after the last send before counting them as failed (2 s). */
  readonly drainMs?: number;
}

export async function runOpenLoop(options: OpenLoopOptions): Promise<LoadResult> {
  const target = new URL(options.url);
  const client = new LoadClient({
    host: target.hostname,
    port: Number(target.port || 80),
    connections: options.connections ?? 64,
    request: postRequest(target, REQUEST_HEADERS, REQUEST_BODY),
  });
  const expected = Buffer.from(options.expectedBody);
  const measured = Math.max(1, Math.round(options.ratePerSec * options.durationSec));
  const warmup = Math.round(options.ratePerSec * (options.warmupSec ?? 1));
  const total = warmup + measured;
  const intervalMs = 1000 / options.ratePerSec;
  const latencies = new Float64Array(measured);
  const lags = new Float64Array(measured);
  /** Scheduled send time of each measured request, and whether it has completed. */
  const scheduledAt = new Float64Array(measured);
  const answeredFlag = new Uint8Array(measured);
  let completed = 0;
  let recorded = 0;
  let answered = 0;
  let wrong = 0;
  let wrongSample: string | undefined;
  let lastCompletion = 0;
  /** Set when the drain deadline passed: requests still open are destroyed and counted as unanswered. */
  let abandoned = false;
  const start = performance.now() + 20;
  /** Scheduled time of the first measured request. */
  let measuredStart = Number.POSITIVE_INFINITY;

  const send = (i: number, scheduled: number): void => {
    const counted = i >= warmup;
    if (counted) {
      lags[i - warmup] = performance.now() - scheduled;
      scheduledAt[i - warmup] = scheduled;
      measuredStart = Math.min(measuredStart, scheduled);
    }
    client.send((error, statusCode, body) => {
      completed++;
      if (error !== undefined || body === undefined) {
        if (abandoned) return;
        wrong++;
        wrongSample ??= `request failed: ${String(error)}`;
        if (!counted) return;
        answeredFlag[i - warmup] = 1;
        latencies[recorded++] = performance.now() - scheduled;
        return;
      }
      const now = performance.now();
      if (statusCode !== 200 || !body.equals(expected)) {
        wrong++;
        const text = body.toString('utf8');
        wrongSample ??= `${statusCode} ${text.length > 700 ? `${text.slice(0, 250)} ... ${text.slice(-400)}` : text}`;
      }
      if (!counted) return;
      answeredFlag[i - warmup] = 1;
      latencies[recorded++] = now - scheduled;
      lastCompletion = now;
      answered++;
    });
  };

  await new Promise<void>((resolve) => {
    let next = 0;
    const tick = (): void => {
      const now = performance.now();
      while (next < total && start + next * intervalMs <= now) {
        send(next, start + next * intervalMs);
        next++;
      }
      if (next >= total) {
        resolve();
        return;
      }
      setTimeout(tick, Math.max(0, start + next * intervalMs - performance.now()));
    };
    setTimeout(tick, Math.max(0, start - performance.now()));
  });
  const drainDeadline = performance.now() + (options.drainMs ?? 2_000);
  while (completed < total && performance.now() < drainDeadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  const unfinished = total - completed;
  abandoned = true;
  // Unanswered requests enter the percentiles with their wait so far: a lower bound, not nothing.
  const giveUp = performance.now();
  scheduledAt.forEach((scheduled, k) => {
    if (answeredFlag[k] === 0) latencies[recorded++] = giveUp - scheduled;
  });
  client.close();

  const sorted = latencies.slice(0, recorded).sort();
  const durationSec = Math.max(lastCompletion - measuredStart, 1) / 1000;
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    responses: answered,
    requestsSent: total,
    durationSec,
    rps: answered / durationSec,
    avgMs: sum / sorted.length,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1] ?? 0,
    wrong,
    wrongSample,
    unanswered: unfinished,
    offeredRps: options.ratePerSec,
    sendLagP99Ms: percentile(Float64Array.from(lags).sort(), 99),
  };
}
