/**
 * Renders bench/RESULTS.md from one run's results: set-up, the tables (tables.ts), the targets
 * (targets.ts, defined once), the cost breakdown of one gqlgw query and the reading (reading.ts).
 */
import type { BenchResults } from '../results.js';
import { QUERY } from '../shared/data.js';
import { reading } from './reading.js';
import { closedTable, openTable, profileSection, ratiosTable, secondaryTable, targetsTable, wallSection, warmupTable } from './tables.js';
import { MAX_ATTEMPTS, REFERENCE_QUANTILE, RETRY_SEC, SLOW_FACTOR } from '../driver/pace-gate.js';
import { atUsualPace, paceGateSentence, SLOW_PACE, speedTable } from './speed.js';
import { evaluateTargets } from './targets.js';
import { num, View } from './view.js';
import { WARMUP_SEGMENT_SEC } from '../driver/wrk.js';

export function renderResults(data: BenchResults): string {
  const v = new View(data);
  const e = data.environment;
  const s = data.settings;
  const outcomes = evaluateTargets(v);
  const parts: string[] = [];
  parts.push(`# gqlgw benchmark results

Written by \`npm run bench\` (bench/run.ts) on ${e.date}; the run took ${num(data.elapsedSec / 60, 1)} min. Everything below comes from that one run${s.quick ? ' (**quick mode: 1 short run, numbers are rough**)' : ''}. How to run it and what each row is: [README.md](README.md).

## Set-up

- Machine: ${e.cpu}, ${e.cores} cores, ${e.memoryGiB} GiB, ${e.os}. Node ${e.node}, ${e.wrk}. Commit ${e.gitCommit}.${data.buildChangedDuringRun ? ' **The compiled gateway (dist/gateway) changed during the run: the gqlgw rows may mix two builds.**' : ''}
- Packages: ${Object.entries(e.packages)
    .map(([k, ver]) => `${k} ${ver}`)
    .join(', ')}.
- Query \`${QUERY}\`, POSTed as JSON; backend: ${s.backendDelayMs} ms per request, 100 posts by 100 distinct authors, \`/posts?limit=\`, \`/users/{id}\`, \`/users?ids=\`.
- ${s.pinned ? 'Pinning (taskset): the server under test on core 0 alone; the backend, wrk, the open-loop driver and the runner on core 1. The row with 2 workers runs on both cores, sharing core 1 with the load side.' : '**Not pinned** (taskset or a second core missing): all processes share the cores, ratios are less fair.'}
- Closed loop: wrk, 1 thread, ${s.durationSec} s per cell at 16 connections, ${s.secondaryDurationSec} s at 1 and 64, after a ${s.warmupSec} s warm-up per server start (its req/s: "Warm-up after each start"); the backend, started once, gets the same warm-up before the first row. Open loop: ${s.secondaryDurationSec} s per rate.
- ${s.runs} run${s.runs === 1 ? '' : 's'}, interleaved (every row once, then again), the rows a target compares back to back and every second run in reverse order (bench/rows.ts \`MEASURE_ORDER\`), so a drift of the machine moves both sides of a ratio alike; per run each server is started fresh, verified, warmed up, then measured closed loop then open loop. Numbers are medians over the runs; "range" is min–max of req/s, "spread" is ±half of (max − min)/median. "wrong" is summed over all runs.
- Answers: before load, a verification pass sends 4 sequential queries to the server and checks each against the expected data (parsed, value by value; bench/shared/check.ts) and counts the backend requests each caused. Under load every response is then compared byte for byte with that verified body: by a Lua \`response\` hook inside wrk, by the open-loop driver itself. Non-200s, timeouts and socket errors count as wrong too.
- Subrequests per query: the backend's own request counter over the cell / responses. Peak RSS: VmHWM of the server process (and of its workers, summed) at the end of each run's server session, median of the runs.
- Node flags of every Node process (each server under test, the backend, the open-loop driver): ${e.nodeFlags === undefined || e.nodeFlags.length === 0 ? 'none' : `\`${e.nodeFlags.join(' ')}\``} (bench/rows.ts \`NODE_FLAGS\`: the heap floor of gqlgw's production launch line, the peers' too).
- Coalescing across requests (\`[sources.X] coalesce\`) is off in the like-for-like gqlgw rows (bench/*.toml); the rows "coalescing on" are extra.
- Server CPU: the process's CPU time (from /proc) over the cell's wall time; µs/query = that / req/s. "Other load, server core": busy time of core 0 (from /proc/stat) not used by the server process: other processes on this shared machine, or kernel network work.
${paceGateBullet(s)}- Machine load before the run: ${data.idleCheck === undefined ? 'not measured' : `core 0 ${num(data.idleCheck.core0Pct)} % and core 1 ${num(data.idleCheck.core1Pct)} % busy over ${num(data.idleCheck.seconds)} s${data.idleCheck.core0Pct > 10 || data.idleCheck.core1Pct > 10 ? ' (**the machine was not idle**)' : ''}`}.

## Closed loop, 16 connections

${closedTable(v)}

## Closed loop, 1 and 64 connections

${secondaryTable(v)}

## Warm-up after each start

Every server session starts with ${s.warmupSec} s of 16-connection load, answers checked, in segments of up to ${WARMUP_SEGMENT_SEC} s, before the measured cells above (medians over the runs). A fresh Node process runs its hot code unoptimised until V8 has compiled it, on the same core; a server with more code on the request path reaches its steady state later. The measured cells compare the steady states; this table shows what a freshly started (or restarted) server costs in its first seconds.

${warmupTable(v)}

## Open loop at fixed offered rates

Rates are 50, 80 and 100 % of the row's closed-loop maximum in the same run and server session (the higher req/s at 16 or 64 connections); the offered column shows the median rate. Driver: bench/driver/open-loop.ts, a Node process with its own keep-alive HTTP/1.1 client (bench/driver/load-client.ts; up to 64 connections, like the largest closed-loop cell; requests beyond them wait in the driver, on the clock) on the load core; requests leave on a fixed schedule and **latency is measured from each request's scheduled send time**, so queueing anywhere (server, connection pool, a late driver) counts. Each rate runs 1 s unmeasured first. Requests still unanswered 2 s after the last send are counted in "unanswered" (overload, not wrong answers) and enter the percentiles with their wait so far, so a p99 there is a lower bound. "driver send lag" is how late the driver itself sent (p99); when it is large the latencies include the driver's lateness.

${openTable(v)}

${machineSpeedSection(v)}## Ratios (same run)

${ratiosTable(v)}

## Targets

${targetsTable(outcomes)}
${usualPaceTargets(data)}

## Where the time goes: one gqlgw query
`);
  parts.push(wallSection(v), '');
  if (data.profiles.length === 0) parts.push('Not profiled in this run (the gqlgw batch rows were not selected).');
  for (const profile of data.profiles) {
    parts.push('', `### CPU of ${v.label(profile.rowId)}`, '');
    parts.push('error' in profile ? `The profile failed: \`${profile.error.split('\n')[0]}\`` : profileSection(v, profile));
  }
  parts.push(`

## Reading

${reading(v, outcomes)}
`);
  const failures = data.rows.filter((r) => r.failures.length > 0);
  if (failures.length > 0) {
    parts.push('\n## Failures\n');
    for (const r of failures) {
      parts.push(`- ${r.label}:`);
      for (const f of [...new Set(r.failures)]) parts.push(`  \`\`\`\n  ${f.replace(/\n/g, '\n  ')}\n  \`\`\``);
    }
  }
  const samples = data.rows.flatMap((r) =>
    Object.entries(r.cells).flatMap(([k, cells]) =>
      (cells ?? [])
        .filter((c) => c.wrongSample !== undefined)
        .slice(0, 1)
        .map((c) => `- ${r.label}, ${k}: \`${(c.wrongSample ?? '').slice(0, 700).replace(/`/g, "'").replace(/\n/g, ' ')}\``),
    ),
  );
  if (samples.length > 0) parts.push(`\n## First wrong answer per cell\n\n${samples.join('\n')}\n`);
  return `${parts.join('\n').trimEnd()}\n`;
}

/** The set-up line on the pace gate (with its newline), or nothing when it did not run. */
function paceGateBullet(s: BenchResults['settings']): string {
  if (!s.pinned || s.paceWaitSec === undefined) return '';
  const wait =
    s.paceWaitSec > 0
      ? `the cell waits for the usual pace, probing every ${RETRY_SEC} s (up to ${s.paceWaitSec} s of waits per cell)`
      : 'the cell does not wait (`BENCH_PACE_WAIT=0`)';
  return `- Pace gate (bench/driver/pace-gate.ts): right before each measured cell and right after it, each time once the server and the backend are idle, both cores run the speed probe ("Machine speed around each session"). A core is slowed when it takes over ${SLOW_FACTOR}× its reference, the ${Math.round(REFERENCE_QUANTILE * 100)}th percentile of that core's probes so far in the run (the machine's slow pace is about 1.6×). Before a cell, ${wait}. A cell with a slowed probe before or after it is measured again, up to ${MAX_ATTEMPTS} times; when every attempt had one, the last is kept and marked. The waits and the cells measured again share a budget of ${s.paceBudgetSec ?? 0} s per run; once it is spent, cells are measured once and only marked. Every row gets the same gate. A slow spell that starts and ends within one cell, between its two probes, goes unseen.\n`;
}

/** "Machine speed around each session" with its table and a blank line after, or nothing without probes. */
function machineSpeedSection(v: View): string {
  const speed = speedTable(v);
  if (speed === undefined) return '';
  const gate = paceGateSentence(v.data);
  return `## Machine speed around each session

Right before each server session started and right after it stopped, every core ran the same piece of Node work with nothing else of the bench on it: JSON.parse and JSON.stringify of the backend's 100 posts for 300 ms, in its own pinned process (bench/driver/speed-probe.ts). Each cell shows the session's paces, relative to the median of all that core's probes in this run: server core before→after · load core before→after; **bold** is under ${SLOW_PACE} (${Math.round((1 - SLOW_PACE) * 100)} % or more slower than usual). On a shared VM a core can run slower for seconds or minutes with nothing in /proc/stat to show it (no steal time, no other process); the project's machine has two paces about 1.6× apart (docs/performance.md, "The machine's pace"). The probes see a session's start and end, not what happens in between: a bold probe says the machine was slowed around that session, whatever its row; a session between two plain probes may still have had slow seconds.

${speed}
${
  gate === undefined
    ? ''
    : `
${gate}
`
}
`;
}

/**
 * The throughput and tail targets again without the cells of sessions measured on a slowed core,
 * after the verdicts (which read every session); nothing when no session was slowed.
 */
function usualPaceTargets(data: BenchResults): string {
  const usual = atUsualPace(data);
  if (usual === undefined) return '';
  const outcomes = evaluateTargets(new View(usual)).filter((o) => o.spec.kind !== 'memory');
  return `
### The same targets without the sessions and cells measured on a slowed core

The verdicts above read every session and stay the verdicts. Here the throughput and tail targets are read again without the cells of the sessions that "Machine speed around each session" marks (a probe under ${SLOW_PACE}× of its core's usual pace) and without the cells the pace gate kept with a core slowed around every attempt, to show how much of each verdict the machine's pace made; an unmarked session may still have had slow seconds.

${targetsTable(outcomes)}
`;
}
