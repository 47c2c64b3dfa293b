/**
 * The "Reading" of RESULTS.md: sentences generated from the same numbers as the tables, so they
 * cannot disagree with them; every target outcome comes from targets.ts.
 */
import type { RowId } from '../rows.js';
import { EXPECTED_BODY } from '../shared/data.js';
import { speedReading } from './speed.js';
import type { TargetOutcome } from './targets.js';
import { aggregate, ms, num, ratio, View } from './view.js';

export function reading(v: View, outcomes: readonly TargetOutcome[]): string {
  const out: string[] = [];
  const d = v.data;
  const c16 = (id: RowId): ReturnType<typeof aggregate> => v.cell(id, 'c16');
  const ideal = 16 / ((2 * d.settings.backendDelayMs) / 1000);
  out.push(
    `- With ${d.settings.backendDelayMs} ms per backend request and two sequential rounds, one query cannot take less than ~${2 * d.settings.backendDelayMs} ms, so 16 connections cap any server at ~${num(ideal)} req/s (Little's law); rows well below that with a busy core are CPU-bound.`,
  );
  const batch = c16('gqlgw-batch');
  const ceiling = c16('ceiling');
  if (batch && ceiling) {
    out.push(
      `- gqlgw (batch) serves ${num(batch.rps)} req/s at 16 connections, ${ratio(batch.rps / ceiling.rps)} the hand-written ceiling (${num(ceiling.rps)} req/s). ` +
        `Its core is ${num(batch.serverCpuPct)} % busy and it spends ${num(batch.cpuMicrosPerQuery)} µs of CPU per query against the ceiling's ${num(ceiling.cpuMicrosPerQuery)} µs (${ratio(batch.cpuMicrosPerQuery / ceiling.cpuMicrosPerQuery)}).`,
    );
  }
  for (const peer of ['yoga-dataloader', 'jit-dataloader'] as const) {
    const p = c16(peer);
    if (batch && p)
      out.push(
        `- Against ${v.label(peer)} (${num(p.rps)} req/s, ${num(p.cpuMicrosPerQuery)} µs CPU/query): ${ratio(batch.rps / p.rps)} the throughput.`,
      );
  }
  const cache = c16('gqlgw-batch-cache');
  const itemCache = c16('per-item-cache');
  if (cache && itemCache) {
    out.push(
      `- Batch + cache (warm) makes ${num(cache.subrequests, 2)} subrequest per query and serves ${num(cache.rps)} req/s, ${ratio(cache.rps / itemCache.rps)} the hand-written per-item cache (${num(itemCache.rps)} req/s).`,
    );
  }
  const handNoBatch = c16('no-batch-hand-written');
  const noBatchEarly = c16('gqlgw-no-batch');
  if (noBatchEarly && handNoBatch) {
    out.push(
      `- Without @batch both gqlgw and the hand-written server make ${num(noBatchEarly.subrequests, 1)} and ${num(handNoBatch.subrequests, 1)} subrequests per query; gqlgw serves ${num(noBatchEarly.rps)} req/s, ${ratio(noBatchEarly.rps / handNoBatch.rps)} the hand-written ${num(handNoBatch.rps)}, ` +
        `at ${num(noBatchEarly.cpuMicrosPerQuery / Math.max(1, noBatchEarly.subrequests))} µs of CPU per subrequest against ${num(handNoBatch.cpuMicrosPerQuery / Math.max(1, handNoBatch.subrequests))}.`,
    );
  }
  const workers = c16('gqlgw-batch-2-workers');
  if (workers && batch) {
    out.push(
      `- With 2 workers (both cores) gqlgw (batch) serves ${num(workers.rps)} req/s, ${ratio(workers.rps / batch.rps)} one process on its own core. On this 2-core machine the workers share core 1 with the backend and wrk ` +
        `(backend ${num(workers.backendCpuPct)} % of a core, the workers ${num(workers.serverCpuPct)} % of one core in total), so this shows what the second core adds here, not how gqlgw scales on a machine with cores to spare.`,
    );
  }
  for (const [on, off] of [
    ['gqlgw-batch-coalesce', 'gqlgw-batch'],
    ['gqlgw-no-batch-coalesce', 'gqlgw-no-batch'],
  ] as const satisfies ReadonlyArray<readonly [RowId, RowId]>) {
    const a = c16(on);
    const b = c16(off);
    if (a && b)
      out.push(
        `- ${v.label(on)}: ${num(a.subrequests, 2)} subrequests per query (${num(b.subrequests, 2)} with it off) and ${num(a.rps)} req/s, ${ratio(a.rps / b.rps)} the like-for-like row; identical queries in flight at once share their calls, which the peers do not do.`,
      );
  }
  const noBatch = c16('gqlgw-no-batch');
  if (noBatch && batch) {
    out.push(
      `- Without @batch gqlgw makes ${num(noBatch.subrequests, 1)} subrequests per query and serves ${num(noBatch.rps)} req/s (batch is ${ratio(batch.rps / noBatch.rps)} that). ` +
        (noBatch.backendCpuPct >= 80
          ? `The backend's core (shared with wrk) is ${num(noBatch.backendCpuPct)} % busy there, so that row is bounded by the backend as much as by the gateway (${num(noBatch.serverCpuPct)} % CPU).`
          : `The gateway's core is ${num(noBatch.serverCpuPct)} % busy and the backend's ${num(noBatch.backendCpuPct)} %.`),
    );
  }
  if (cache && batch && cache.cpuMicrosPerQuery > batch.cpuMicrosPerQuery) {
    out.push(
      `- Batch + cache spends more CPU per query than batch (${num(cache.cpuMicrosPerQuery)} vs ${num(batch.cpuMicrosPerQuery)} µs) although it makes one subrequest fewer: serving 100 authors from the cache costs more than the /users?ids= call it saves. The hand-written per-item cache spends ${itemCache ? num(itemCache.cpuMicrosPerQuery) : '–'} µs per query.`,
    );
  }
  const floor = c16('floor');
  if (floor)
    out.push(
      `- The empty handler (floor) serves ${num(floor.rps)} req/s at ${num(floor.cpuMicrosPerQuery)} µs CPU per request: the price of Node's HTTP and writing the same ${num(EXPECTED_BODY.length / 1024, 1)} KB answer, which every row pays.`,
    );
  const disturbed = d.rows.flatMap((r) =>
    Object.entries(r.cells).flatMap(([key, cells]) =>
      (cells ?? []).filter((c) => c.otherLoadOnServerCorePct > 15).map((c) => `${r.label} ${key} (${num(c.otherLoadOnServerCorePct)} %)`),
    ),
  );
  if (disturbed.length > 0) {
    out.push(
      `- Interference: in ${disturbed.length} cell run(s) more than 15 % of the server core was busy with something other than the server process (other processes on this shared machine, or kernel network work): ${disturbed.slice(0, 8).join(', ')}${disturbed.length > 8 ? ', …' : ''}. Medians damp this, but these cells are less reliable.`,
    );
  }
  const busyBackend = d.rows.filter((r) => (aggregate(r.cells.c16)?.backendCpuPct ?? 0) >= 80).map((r) => r.label);
  if (busyBackend.length > 0)
    out.push(
      `- Load-core saturation: the backend (with wrk on the same core) was ≥ 80 % busy for ${busyBackend.join(', ')}; those rows measure the load side too.`,
    );
  const laggy = d.rows.flatMap((r) =>
    (['open50', 'open80', 'open100'] as const)
      .filter((k) => {
        const a = aggregate(r.cells[k]);
        return a !== undefined && a.sendLagP99Ms > Math.max(5, a.p50Ms / 2);
      })
      .map((k) => `${r.label} ${k.slice(4)} %`),
  );
  const loadBound = d.rows.flatMap((r) =>
    (['open50', 'open80', 'open100'] as const)
      .filter((k) => {
        const a = aggregate(r.cells[k]);
        return a !== undefined && a.rps < 0.9 * a.offered && a.serverCpuPct < 70;
      })
      .map((k) => `${r.label} ${k.slice(4)} %`),
  );
  if (loadBound.length > 0)
    out.push(
      `- Open loop limited by the load side, not the server (achieved < 90 % of offered while the server's core was under 70 % busy): ${loadBound.join(', ')}. One Node driver on the shared load core cannot offer those rates; read those rows as a driver limit.`,
    );
  if (laggy.length > 0)
    out.push(
      `- Open loop: the driver itself sent late (p99 send lag over 5 ms and over half the p50) in ${laggy.join(', ')}; there the latencies include the driver's own lateness (one Node process sharing the load core with the backend).`,
    );
  for (const profile of d.profiles) {
    if ('error' in profile) continue;
    const s = profile.summary;
    const top = [...s.stages]
      .filter((x) => x.micros > 0 && x.stage !== 'start-up (not per query)')
      .sort((a, b) => b.micros - a.micros)
      .slice(0, 3);
    out.push(
      `- Where gqlgw's CPU goes (${v.label(profile.rowId)}, 16 connections, ${num(v.cell(profile.rowId, 'c16')?.cpuMicrosPerQuery ?? profile.cpuMicrosPerQuery)} µs per query): ${top.map((x) => `${x.stage} ${num((x.micros / s.perQueryMicros) * 100, 0)} %`).join(', ')}.`,
    );
  }
  for (const id of ['gqlgw-batch', 'gqlgw-batch-cache'] as const) {
    const open80 = v.cell(id, 'open80');
    const closed16 = c16(id);
    if (open80 && closed16 && open80.p99Ms > 3 * open80.p50Ms) {
      out.push(
        `- ${v.label(id)} at 80 % offered: ${num(open80.offered)} req/s is ${num((open80.offered / closed16.rps) * 100)} % of its 16-connection throughput (the maximum is the better of 16 and 64 connections), so on a core that is already ${num(open80.serverCpuPct)} % busy short stalls (GC, bursts) queue up: p99 ${ms(open80.p99Ms)} ms against p50 ${ms(open80.p50Ms)} ms.`,
      );
    }
  }
  const missed = outcomes.filter((o) => o.met === false);
  const unmeasured = outcomes.filter((o) => o.met === undefined);
  if (missed.length === 0 && unmeasured.length === 0) out.push('- Every target is met in this run.');
  for (const o of missed) out.push(`- Target missed: ${o.text}: ${o.measured}, ${o.verdict}.`);
  if (unmeasured.length > 0) out.push(`- Not measured in this run: ${unmeasured.map((o) => o.text).join('; ')}.`);
  const wrong = d.rows.reduce(
    (s, r) =>
      s +
      Object.values(r.cells)
        .flat()
        .reduce((t, c) => t + (c?.wrong ?? 0), 0),
    0,
  );
  const responses = d.rows.reduce(
    (s, r) =>
      s +
      Object.values(r.cells)
        .flat()
        .reduce((t, c) => t + (c?.responses ?? 0), 0),
    0,
  );
  const warmupWrong = d.rows.reduce((s, r) => s + r.warmups.reduce((t, w) => t + w.wrong, 0), 0);
  if (warmupWrong > 0) out.push(`- ${warmupWrong} answers during the warm-ups were wrong or failed: see "Warm-up after each start".`);
  const pace = speedReading(d);
  if (pace !== undefined) out.push(pace);
  out.push(
    wrong === 0
      ? `- All ${responses} measured responses were right (0 wrong).`
      : `- ${wrong} of ${responses} measured responses were wrong or failed: see the tables and the failures below.`,
  );
  return out.join('\n');
}
