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
import { percentile } from './driver/stats.js';
import { BENCH_SRC_DIR } from './shared/paths.js';
import { listen } from './shared/http.js';
import { ROWS, startRow, type RowSpec } from './rows.js';

export type LiveOptions = { readonly subscribers: number; readonly every: number; readonly ticks: number; readonly webhooks: number };
export type LiveResult = Awaited<ReturnType<typeof runLive>>;

const SECRET = 'bench-secret';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The backend: `/items/{id}`, `/items?ids=`; `calls` holds the time and the key count of every `?ids=` call. */
async function liveBackend(periodMs: number) {
  const bumps = new Map<string, number>();
  const off = (id: string): number => (Number(id) * 7919) % periodMs;
  const value = (id: string): string => `${Math.floor((Date.now() + off(id)) / periodMs)}.${bumps.get(id) ?? 0}`;
  const [item, calls] = [(id: string): string => `{"id":"${id}","value":"${value(id)}"}`, [] as Array<[number, number]>];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const ids = url.searchParams.get('ids');
    if (ids !== null) calls.push([Date.now(), ids.split(',').length]);
    const body = ids !== null ? `[${ids.split(',').map(item).join(',')}]` : item(url.pathname.slice('/items/'.length));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
  const changedAt = (id: string, e: number): number => e * periodMs - off(id); // when value E of `id` began
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
          const value = /^event: next\ndata: .*"value":"([^"]+)"/m.exec(buffer.slice(0, end))?.[1];
          buffer = buffer.slice(end + 2);
          if (value === undefined) continue;
          onEvent(key, value, Date.now());
          resolve(() => req.destroy());
        }
      });
    });
  });
}

/** The floor: Node's HTTP server holding the same SSE streams with nothing of GraphQL (peers/sse-floor.ts). */
const SSE_FLOOR: RowSpec = {
  id: 'floor-sse',
  label: 'empty SSE handler (floor)',
  phase: 'live',
  role: 'floor-sse',
  nodeFlags: ['--expose-gc'],
};
type Started = Awaited<ReturnType<typeof startRow>>;
/** RSS after a full collection, MiB (the row's --expose-gc: driver/alloc-meter.ts collects before it answers SIGUSR2). */
const retainedMiB = async (server: Started): Promise<number> => (await server.allocatedBytes(), server.rssMiB());

/** Opens one stream per key, 256 at a time, each waiting for its first event; their closers go to `closers`. */
async function subscribeAll(url: string, keys: readonly string[], onEvent: Arrival, closers: Array<() => void>): Promise<void> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  for (let i = 0; i < keys.length; i += 256)
    closers.push(...(await Promise.all(keys.slice(i, i + 256).map((k) => subscribe(url, agent, k, onEvent)))));
}

/** KB of RSS per stream that the floor server keeps for `keys.length` open streams, measured as gqlgw's. */
async function floorKbPerStream(keys: readonly string[]): Promise<number> {
  const [server, closers] = [await startRow(SSE_FLOOR, ''), [] as Array<() => void>];
  try {
    const rss0 = await retainedMiB(server);
    await subscribeAll(server.url, keys, () => undefined, closers);
    return (((await retainedMiB(server)) - rss0) * 1024) / keys.length;
  } finally {
    for (const close of closers) close();
    await server.stop();
  }
}

/** gqlgw's config for this run (its path without `.toml`): bench/live.toml and its schema, with the backend's URL and `every`. */
function writeConfig(backendUrl: string, every: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'gqlgw-bench-live-'));
  const read = (name: string): string => readFileSync(join(BENCH_SRC_DIR, name), 'utf8');
  writeFileSync(join(dir, 'live.graphqls'), read('variants/live.graphqls').replace('every: 5', `every: ${every}`));
  writeFileSync(join(dir, 'live.toml'), read('live.toml').replace('variants/', '').replace('http://127.0.0.1:4805', backendUrl));
  return join(dir, 'live');
}

/**
 * Subscribes every key (256 at a time), measures `ticks` ticks, then 2 + `webhooks` signed deliveries
 * one by one (2 warm up); then the floor server's memory for as many streams.
 */
export async function runLive(o: LiveOptions) {
  const tickMs = o.every * 1000;
  const backend = await liveBackend(2 * tickMs);
  const server = await startRow({ ...ROWS.find((r) => r.id === 'gqlgw-live')!, config: writeConfig(backend.url, o.every) }, '');
  const closers: Array<() => void> = [];
  let result;
  try {
    const last = new Map<string, string>();
    const [delays, hookDelays] = [[] as number[], [] as number[]];
    const waiting = new Map<string, { bump: number; done: (at: number) => void }>();
    const onEvent: Arrival = (key, value, at) => {
      const [e, b] = value.split('.').map(Number) as [number, number];
      const [before, hook] = [last.get(key), waiting.get(key)];
      last.set(key, value);
      if (hook !== undefined && b >= hook.bump) return hook.done(at);
      if (before !== undefined && before !== value) delays.push(at - backend.changedAt(key, e));
    };
    const [rss0, keys] = [await retainedMiB(server), Array.from({ length: o.subscribers }, (_, i) => String(i + 1))];
    await subscribeAll(server.url, keys, onEvent, closers);
    const [cpu0, t0, own0] = [server.cpuSeconds(), Date.now(), process.cpuUsage()];
    delays.length = 0;
    await sleep(o.ticks * tickMs + 300);
    const [cpuSec, own, wallMs, changes] = [server.cpuSeconds() - cpu0, process.cpuUsage(own0), Date.now() - t0, delays.splice(0)];
    const [rss1, polled] = [await retainedMiB(server), backend.calls.filter(([t]) => t >= t0)];
    const callsPerTick = [(polled.length * o.subscribers) / polled.reduce((n, [, k]) => n + k, 0)];
    const hookUrl = new URL('/hooks/bench', server.url);
    for (let i = 0; i < o.webhooks + 2; i++) {
      const key = keys[(i * 37) % keys.length]!;
      const [bump, since] = [(backend.bumps.get(key) ?? 0) + 1, Date.now()];
      const body = JSON.stringify({ item: { id: key } });
      const seen = new Promise<void>((done) => waiting.set(key, { bump, done: (at) => done(void hookDelays.push(at - since)) }));
      backend.bumps.set(key, bump);
      const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
      const res = await fetch(hookUrl, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-signature': signature } });
      if (res.status !== 204) throw new Error(`webhook delivery answered ${res.status}`);
      await Promise.race([seen, sleep(tickMs + 1000)]);
      waiting.delete(key);
    }
    const q = (a: number[]): [number, number] => (a.sort((x, y) => x - y), [percentile(a, 50), percentile(a, 99)]);
    const [[p50Ms, p99Ms], [webhookP50Ms, webhookP99Ms]] = [q(changes), q(hookDelays.slice(2))];
    const load = { subscribers: o.subscribers, connected: closers.length, keysPerCall: 100, callsPerTick, tickMs };
    const cpuMicrosPerSubscriberTick = (cpuSec * 1e6) / o.subscribers / o.ticks;
    const [driverCpuPct, kbPerSubscriber] = [(own.user + own.system) / 10 / wallMs, ((rss1 - rss0) * 1024) / o.subscribers]; // driver: % of a core
    const hooks = { webhookEvents: hookDelays.length - 2, webhookP50Ms, webhookP99Ms };
    result = { ...load, cpuMicrosPerSubscriberTick, driverCpuPct, kbPerSubscriber, events: changes.length, p50Ms, p99Ms, ...hooks };
  } finally {
    for (const close of closers) close();
    await server.stop();
    await backend.close();
  }
  const keys = Array.from({ length: o.subscribers }, (_, i) => String(i + 1));
  return { ...result, floorKbPerSubscriber: await floorKbPerStream(keys) };
}
