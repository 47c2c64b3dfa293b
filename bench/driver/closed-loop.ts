/**
 * Closed-loop load: `connections` clients, each sending its next request as soon as its last one
 * is answered, for `durationSec`; every answer checked byte for byte.
 *
 * One exchange (the same request every time) runs in wrk (driver/wrk.ts). Several (one per key)
 * run in the keyed loop here: each connection sends a random key's request and its answer is
 * compared with that key's bytes, so an answer meant for another key counts wrong. wrk could only
 * check that with one thread (one Lua state) per connection, and wrk starts each thread's load
 * while it is still creating the next ones, before the clock it divides by: at 1,024 threads on
 * the load core the start took minutes and req/s came out several times too high.
 *
 * The keyed loop runs in the runner's process on the load core with the bench's own light client
 * (load-client.ts). Its window opens when the first request is sent; an answer counts when it
 * arrives inside the window, and its latency is measured from its own send.
 */
import type { LoadResult } from '../results.js';
import { REQUEST_HEADERS } from '../shared/data.js';
import { LoadClient, postRequest } from './load-client.js';
import { percentile } from './stats.js';
import { runWrk, type Exchange } from './wrk.js';

/** How long the keyed loop waits after the window for the answers still in flight before it closes their connections. */
const DRAIN_MS = 10_000;

/** Closed-loop load of `url`: wrk for one exchange, the keyed loop for several. */
export function runClosedLoad(url: string, connections: number, durationSec: number, exchanges: readonly Exchange[]): Promise<LoadResult> {
  return exchanges.length > 1 ? runKeyedLoop(url, connections, durationSec, exchanges) : runWrk(url, connections, durationSec, exchanges);
}

/** The keyed closed loop: each of `connections` sends a random exchange's request, again and again, until the window ends. */
export async function runKeyedLoop(
  url: string,
  connections: number,
  durationSec: number,
  exchanges: readonly Exchange[],
): Promise<LoadResult> {
  const target = new URL(url);
  const requests = exchanges.map((e) => postRequest(target, REQUEST_HEADERS, e.request));
  const expected = exchanges.map((e) => Buffer.from(e.expected));
  const client = new LoadClient({ host: target.hostname, port: Number(target.port || 80), connections });
  const latencies: number[] = [];
  let [wrong, inFlight] = [0, 0];
  let wrongSample: string | undefined;
  const start = performance.now();
  const end = start + durationSec * 1000;
  let drained: () => void = () => undefined;

  const send = (): void => {
    const key = Math.floor(Math.random() * requests.length);
    const sentAt = performance.now();
    inFlight++;
    client.send((error, status, body) => {
      inFlight--;
      const now = performance.now();
      if (now <= end) {
        latencies.push(now - sentAt);
        if (error !== undefined || status !== 200 || body === undefined || !body.equals(expected[key]!)) {
          wrong++;
          wrongSample ??= error !== undefined ? `request failed: ${String(error)}` : `${status} ${String(body).slice(0, 400)}`;
        }
      }
      if (now < end) send();
      else if (inFlight === 0) drained();
    }, requests[key]);
  };

  for (let i = 0; i < connections; i++) send();
  await new Promise<void>((resolve) => {
    drained = resolve;
    setTimeout(resolve, end - performance.now() + DRAIN_MS).unref();
  });
  client.close();
  const sorted = Float64Array.from(latencies).sort();
  const seconds = (end - start) / 1000;
  const total = latencies.reduce((sum, ms) => sum + ms, 0);
  return {
    responses: latencies.length,
    durationSec: seconds,
    rps: latencies.length / seconds,
    avgMs: latencies.length > 0 ? total / latencies.length : 0,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.at(-1) ?? 0,
    wrong,
    wrongSample,
  };
}

/** Seconds of each warm-up segment. */
export const WARMUP_SEGMENT_SEC = 2;

/** `seconds` of closed-loop load in WARMUP_SEGMENT_SEC segments after a server starts: req/s of each, and the wrong answers. */
type WarmUp = { rps: number[]; wrong: number };
export async function warmUp(url: string, seconds: number, connections: number, exchanges: readonly Exchange[]): Promise<WarmUp> {
  const rps: number[] = [];
  let wrong = 0;
  for (let done = 0; done < seconds; done += WARMUP_SEGMENT_SEC) {
    const segment = await runClosedLoad(url, connections, Math.min(WARMUP_SEGMENT_SEC, seconds - done), exchanges);
    rps.push(segment.rps);
    wrong += segment.wrong;
  }
  return { rps, wrong };
}
