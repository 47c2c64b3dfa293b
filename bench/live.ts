/**
 * The live-data phase (bench/README.md): N SSE subscribers over N keys of `Subscription.item`
 * (`@poll(every)`, `@batch(max: 100)`, `@webhook`), from this process. Its backend runs here too, so
 * change times and arrival times share one clock: key k's value is `E.B`, E = floor((now + off(k)) / P)
 * (it changes every P = 2 × every seconds at a known phase), B = webhook bumps of k.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type StartedProcess } from './driver/processes.js';
import { percentile } from './driver/stats.js';
import { BENCH_SRC_DIR } from './shared/paths.js';
import { listen } from './shared/http.js';

export interface LiveOptions {
  readonly subscribers: number;
  readonly every: number;
  readonly ticks: number;
  readonly webhooks: number;
  /** Starts gqlgw with a config file; resolves with its process (`url`: the GraphQL endpoint). */
  readonly start: (config: string) => Promise<StartedProcess>;
}

export interface LiveResult {
  readonly subscribers: number;
  readonly connected: number;
  readonly keysPerCall: number;
  readonly callsPerTick: number[];
  readonly cpuMicrosPerSubscriberTick: number;
  readonly kbPerSubscriber: number;
  readonly events: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly webhookEvents: number;
  readonly webhookP50Ms: number;
  readonly webhookP99Ms: number;
  readonly tickMs: number;
}

const SECRET = 'bench-secret';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The backend: `/items/{id}`, `/items?ids=`; `calls` holds the time of every `?ids=` call. */
async function liveBackend(periodMs: number) {
  const bumps = new Map<string, number>();
  const off = (id: string): number => (Number(id) * 7919) % periodMs;
  const value = (id: string): string => `${Math.floor((Date.now() + off(id)) / periodMs)}.${bumps.get(id) ?? 0}`;
  const item = (id: string): string => `{"id":"${id}","value":"${value(id)}"}`;
  const calls: number[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const ids = url.searchParams.get('ids');
    if (ids !== null) calls.push(Date.now());
    const body = ids !== null ? `[${ids.split(',').map(item).join(',')}]` : item(url.pathname.slice('/items/'.length));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
  /** When the value E of `id` began. */
  const changedAt = (id: string, e: number): number => e * periodMs - off(id);
  return { ...(await listen(server, 0, '')), calls, bumps, changedAt };
}

type Arrival = (key: string, value: string, at: number) => void;

/** One SSE subscription (graphql-sse distinct connections); resolves at its first event. */
function subscribe(url: string, agent: Agent, key: string, onEvent: Arrival): Promise<() => void> {
  const body = JSON.stringify({ query: 'subscription ($id: ID!) { item(id: $id) { value } }', variables: { id: key } });
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { accept: 'text/event-stream', 'content-type': 'application/json' } });
    req.on('error', reject).end(body);
    req.on('response', (res) => {
      let buffer = '';
      res.setEncoding('utf8').on('error', reject);
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const value = /^event: next\ndata: .*"value":"([^"]+)"/m.exec(message)?.[1];
          if (value === undefined) continue;
          onEvent(key, value, Date.now());
          resolve(() => req.destroy());
        }
      });
    });
  });
}

/** gqlgw's config for this run: bench/live.toml and its schema, with the backend's URL and `every`. */
function writeConfig(backendUrl: string, every: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'gqlgw-bench-live-'));
  const schema = readFileSync(join(BENCH_SRC_DIR, 'variants/live.graphqls'), 'utf8').replace('every: 5', `every: ${every}`);
  writeFileSync(join(dir, 'live.graphqls'), schema);
  const toml = readFileSync(join(BENCH_SRC_DIR, 'live.toml'), 'utf8')
    .replace('"variants/live.graphqls"', '"live.graphqls"')
    .replace('http://127.0.0.1:4805', backendUrl);
  writeFileSync(join(dir, 'live.toml'), toml);
  return join(dir, 'live.toml');
}

/** Calls in bursts (less than a third of a tick apart): the size of each. */
function bursts(calls: readonly number[], tickMs: number): number[] {
  const sizes: number[] = [];
  calls.forEach((t, i) => (i > 0 && t - calls[i - 1]! < tickMs / 3 ? sizes[sizes.length - 1]!++ : sizes.push(1)));
  return sizes;
}

/** Subscribes every key (256 at a time), measures `ticks` ticks, then `webhooks` signed deliveries one by one. */
export async function runLive(o: LiveOptions): Promise<LiveResult> {
  const tickMs = o.every * 1000;
  const backend = await liveBackend(2 * tickMs);
  const server = await o.start(writeConfig(backend.url, o.every));
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const closers: Array<() => void> = [];
  try {
    const last = new Map<string, string>();
    const [delays, hookDelays] = [[] as number[], [] as number[]];
    const waiting = new Map<string, { bump: number; since: number; done: () => void }>();
    const onEvent: Arrival = (key, value, at) => {
      const [e, b] = value.split('.').map(Number) as [number, number];
      const before = last.get(key);
      last.set(key, value);
      const hook = waiting.get(key);
      if (hook !== undefined && b >= hook.bump) {
        hookDelays.push(at - hook.since);
        return hook.done();
      }
      if (before !== undefined && before !== value) delays.push(at - backend.changedAt(key, e));
    };
    const rss0 = server.peakRssMiB();
    const keys = Array.from({ length: o.subscribers }, (_, i) => String(i + 1));
    for (let i = 0; i < keys.length; i += 256)
      closers.push(...(await Promise.all(keys.slice(i, i + 256).map((k) => subscribe(server.url, agent, k, onEvent)))));
    const [cpu0, t0] = [server.cpuSeconds(), Date.now()];
    delays.length = 0;
    await sleep(o.ticks * tickMs + 300);
    const cpuSec = server.cpuSeconds() - cpu0;
    const rss1 = server.peakRssMiB();
    const callsPerTick = bursts(
      backend.calls.filter((t) => t >= t0),
      tickMs,
    );
    const hookUrl = new URL('/hooks/bench', server.url);
    for (let i = 0; i < o.webhooks; i++) {
      const key = keys[(i * 37) % keys.length]!;
      const bump = (backend.bumps.get(key) ?? 0) + 1;
      const body = JSON.stringify({ item: { id: key } });
      const seen = new Promise<void>((done) => waiting.set(key, { bump, since: Date.now(), done }));
      backend.bumps.set(key, bump);
      const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
      const res = await fetch(hookUrl, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-signature': signature } });
      if (res.status !== 204) throw new Error(`webhook delivery answered ${res.status}`);
      await Promise.race([seen, sleep(tickMs + 1000)]);
      waiting.delete(key);
    }
    const sorted = (a: number[]): number[] => a.sort((x, y) => x - y);
    return {
      subscribers: o.subscribers,
      connected: closers.length,
      keysPerCall: 100,
      callsPerTick,
      cpuMicrosPerSubscriberTick: (cpuSec * 1e6) / o.subscribers / Math.max(1, callsPerTick.length),
      kbPerSubscriber: ((rss1 - rss0) * 1024) / o.subscribers,
      events: delays.length,
      p50Ms: percentile(sorted(delays), 50),
      p99Ms: percentile(delays, 99),
      webhookEvents: hookDelays.length,
      webhookP50Ms: percentile(sorted(hookDelays), 50),
      webhookP99Ms: percentile(hookDelays, 99),
      tickMs,
    };
  } finally {
    for (const close of closers) close();
    await server.stop();
    await backend.close();
  }
}
