/**
 * The targets and RESULTS.md against a fixed, hand-made run (no benchmark is run): every target is
 * judged from TARGETS alone (met, missed, not measured, not supported by this build), a noisy cell
 * is marked where it is read, and the rows a target compares are measured back to back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderResults } from '../../bench/report.js';
import type { BenchResults, CellRun, RowResult } from '../../bench/results.js';
import { measureOrder, ROWS } from '../../bench/rows.js';
import { evaluateTargets, TARGETS, View } from '../../bench/targets.js';

/** A cell of 10 s at `rps`: p50 10 ms, p99 20 ms, 2 subrequests per query, 0 wrong, not noisy, with `more`. */
function cell(rps: number, more: Partial<CellRun> = {}): CellRun {
  const base = { run: 1, responses: rps * 10, durationSec: 10, rps, avgMs: 10, p50Ms: 10, p99Ms: 20, maxMs: 40, wrong: 0 };
  return { ...base, subrequestsPerQuery: 2, serverCpuPct: 90, backendCpuPct: 20, noisy: false, ...more };
}

const row = (id: string, cells: RowResult['cells'], more: Partial<RowResult> = {}): RowResult => {
  const label = ROWS.find((r) => r.id === id)!.label;
  return { id, label, failures: [], peakRssMiB: [60], warmups: [[900, 1000]], warmupWrong: 0, cells, ...more };
};

const open80 = (p50Ms: number, p99Ms: number, rps = 800): CellRun[] => [cell(rps, { p50Ms, p99Ms, offeredRps: 800 })];

function fixture(changes: { wrongInWarmup?: number } = {}): BenchResults {
  return {
    settings: { durationSec: 10, secondaryDurationSec: 3, warmupSec: 8, runs: 3, quick: false, pinned: true, phases: ['blog'] },
    environment: { date: '2026-12-01T00:00:00Z', commit: 'abc1234', machine: 'test', node: 'v20', wrk: 'wrk 4', nodeFlags: '' },
    rows: [
      row(
        'gqlgw-batch',
        { c16: [cell(1000), cell(980, { noisy: true }), cell(1020)], open80: open80(10, 25) },
        { peakRssMiB: [100, 126, 130] },
      ),
      row('ceiling', { c16: [cell(1050)] }),
      row('jit-dataloader', { c16: [cell(1010)] }),
      row('gqlgw-no-batch', { c16: [cell(500)], open80: open80(10, 25, 500) }, { warmupWrong: changes.wrongInWarmup ?? 0 }),
      row('no-batch-hand-written', { c16: [cell(700)] }),
      row('gqlgw-batch-tracing', { c16: [cell(840)] }),
      row('lookup-dataloader', { a64: [cell(12000, { p99Ms: 9 })], b64: [cell(6000)] }),
      row('lookup-per-request', { a16: [cell(5000)], a64: [cell(6500)] }),
    ],
    elapsedSec: 60,
  };
}

const verdictOf = (data: BenchResults, text: RegExp): { measured: string; verdict: string; met: boolean | undefined } => {
  const found = evaluateTargets(new View(data)).find((o) => text.test(o.text));
  assert.ok(found, `no target ${text}`);
  return found;
};

describe('bench targets and report', () => {
  it('judges the throughput targets as ratios of medians, and names the noisy cells they read', () => {
    const data = fixture();
    const batch = verdictOf(data, /^gqlgw, batch ≥ 0.9 × hand-written \(ceiling\) \(req\/s, 16 connections\)$/);
    assert.deepEqual([batch.met, batch.measured], [true, '0.95× (1000 vs 1050 req/s; 1 of 4 cells noisy)']);
    const missed = verdictOf(data, /^gqlgw, batch ahead of graphql-jit/);
    assert.equal(missed.met, false);
    assert.match(missed.verdict, /missed by 1\.0 %/);
    assert.match(verdictOf(data, /^gqlgw, no batch ≥ 0.8/).verdict, /missed by 10\.7 %/);
    assert.equal(verdictOf(data, /^gqlgw, batch \+ cache/).verdict, 'not measured');
  });

  it('misses the tail target when p99 > 3 × p50 or when the row did not carry the rate', () => {
    const data = fixture();
    assert.equal(verdictOf(data, /^gqlgw, batch: p99 ≤ 3 × p50/).met, true);
    assert.match(verdictOf(data, /^gqlgw, no batch: p99 ≤ 3 × p50/).verdict, /overloaded \(answered 500 of 800/);
    data.rows[0]!.cells.open80 = open80(10, 31);
    assert.match(verdictOf(data, /^gqlgw, batch: p99 ≤ 3 × p50/).verdict, /p99 is 3\.1 × p50/);
    assert.match(verdictOf(data, /^gqlgw, batch: peak RSS ≤ 2 ×/).verdict, /missed by 5\.0 %/, '126 MiB median against 2 × 60');
  });

  it('judges the shared-batching targets once the row is measured, and the tracing row against gqlgw, batch', () => {
    const data = fixture();
    const sharing = evaluateTargets(new View(data)).filter((o) => o.text.startsWith('gqlgw, sharing on'));
    assert.ok(sharing.length >= 7 && sharing.every((o) => o.met === undefined && o.verdict === 'not measured'));
    const tracing = verdictOf(data, /^gqlgw batch, tracing on, sample 1\.0 ≥ 0\.85 × gqlgw, batch \(req\/s, 16 connections\)$/);
    assert.deepEqual([tracing.met, tracing.verdict], [false, 'missed by 1.2 %']);
    data.rows.push(row('gqlgw-sharing-on', { a16: [cell(5100)], a64: [cell(12500, { p99Ms: 10 })], b64: [cell(6000)] }));
    assert.equal(verdictOf(data, /^gqlgw, sharing on ≥ 1 × hand-written, process-wide DataLoader \(req\/s, \(a\), 64/).met, true);
    assert.equal(verdictOf(data, /^gqlgw, sharing on ≥ 1.8 × hand-written, one call per lookup \(req\/s, \(a\), 64/).met, true);
    assert.equal(verdictOf(data, /^gqlgw, sharing on ≥ 0.95 × hand-written, one call per lookup \(req\/s, \(a\), 16/).met, true);
    const p99 = verdictOf(data, /^gqlgw, sharing on: p99 ≤ hand-written, process-wide DataLoader's \(\(a\), 64/);
    assert.equal(p99.verdict, "missed: 1.11× the peer's p99");
    assert.equal(verdictOf(data, /^gqlgw, sharing on ≥ 0.95 × .* \(b\), 16/).verdict, 'not measured');
  });

  it('judges CPU and allocation per query as ratios of medians, strictly below where the target says so', () => {
    const data = fixture();
    const at = (cpu: number, kb: number): Partial<CellRun> => ({ serverCpuMicrosPerQuery: cpu, allocatedKbPerQuery: kb });
    data.rows[0] = row('gqlgw-batch', { c16: [cell(1000, at(900, 20)), cell(1000, at(1100, 22)), cell(1000, at(1000, 21))] });
    data.rows[1] = row('ceiling', { c16: [cell(1050, at(800, 10))] });
    data.rows[2] = row('jit-dataloader', { c16: [cell(1010, at(1000, 30))] });
    const ceiling = verdictOf(data, /^gqlgw, batch: CPU per query ≤ 1.15 × hand-written \(ceiling\)'s \(16 connections\)$/);
    assert.deepEqual([ceiling.met, ceiling.measured, ceiling.verdict], [false, '1.25× (1000.0 vs 800.0 µs)', 'missed by 8.7 %']);
    const jit = verdictOf(data, /^gqlgw, batch: CPU per query below graphql-jit \+ DataLoader's/);
    assert.deepEqual([jit.met, jit.measured], [false, '1.00× (1000.0 vs 1000.0 µs)']);
    data.rows.push(row('gqlgw-sharing-on', { a64: [cell(12500, at(100, 11))] }));
    data.rows[6] = row('lookup-dataloader', { a64: [cell(12000, at(95, 10))] });
    assert.equal(verdictOf(data, /^gqlgw, sharing on: CPU per query ≤ 1.1 × .*\(a\), 64/).met, true);
    const alloc = verdictOf(data, /^gqlgw, sharing on: young-generation allocation per query ≤ 1.2 × .*\(a\), 64/);
    assert.deepEqual([alloc.met, alloc.measured], [true, '1.10× (11.0 vs 10.0 KB)']);
    assert.equal(verdictOf(data, /^gqlgw, sharing on: CPU per query ≤ 1.1 × .*\(b\), 64/).verdict, 'not measured');
  });

  it("judges gqlgw's CPU per query on { __typename } against the empty handler's, and renders its table", () => {
    const data = fixture();
    const text = /^gqlgw, \{ __typename \}: CPU per query ≤ 1.3 × empty handler \(floor\), \{ __typename \}'s \(16 connections\)$/;
    assert.equal(verdictOf(data, text).verdict, 'not measured');
    data.rows.push(row('gqlgw-tiny', { t16: [cell(9000, { serverCpuMicrosPerQuery: 140, allocatedKbPerQuery: 3 })] }));
    data.rows.push(row('floor-tiny', { t16: [cell(12000, { serverCpuMicrosPerQuery: 100, allocatedKbPerQuery: 1 })] }));
    const tiny = verdictOf(data, text);
    assert.deepEqual([tiny.met, tiny.measured, tiny.verdict], [false, '1.40× (140.0 vs 100.0 µs)', 'missed by 7.7 %']);
    assert.match(
      renderResults(data),
      /\| gqlgw, \{ __typename \} \| 9000 \| 9000–9000 \| 10\.0 \| 20\.0 \| 0 \| 90 \| 140 \| 140–140 \| 3\.0 \|/,
    );
  });

  it('judges the live-data targets against their bounds and renders the phase table', () => {
    const data = fixture();
    assert.equal(verdictOf(data, /^live: upstream calls/).verdict, 'not measured');
    const delays = { events: 5000, p50Ms: 2600, p99Ms: 5080, webhookEvents: 300, webhookP50Ms: 4, webhookP99Ms: 61, tickMs: 5000 };
    const base = { subscribers: 10000, connected: 10000, keysPerCall: 100, callsPerTick: [100, 106, 100] };
    data.live = { ...base, cpuMicrosPerSubscriberTick: 3.5, driverCpuPct: 40, kbPerSubscriber: 9.5, floorKbPerSubscriber: 7.25, ...delays };
    const got = (re: RegExp): unknown[] => [verdictOf(data, re).met, verdictOf(data, re).measured, verdictOf(data, re).verdict];
    assert.deepEqual(got(/^live: upstream calls per tick ≤ 1.05 × ceil/), [false, '106.0 calls (bound 105.0)', 'missed by 1.0 calls']);
    assert.deepEqual(got(/^live: RSS growth per subscriber ≤ 10 KB$/), [true, '9.5 KB (bound 10.0)', 'met']);
    const late = [false, '5080.0 ms (bound 5050.0)', 'missed by 30.0 ms'];
    assert.deepEqual(got(/^live: p99 delay from an upstream change .* one tick \+ 50 ms$/), late);
    assert.deepEqual(got(/^live: p99 delay from a webhook/), [false, '61.0 ms (bound 50.0)', 'missed by 11.0 ms']);
    const md = renderResults(data);
    assert.match(md, /\| 10000 \/ 10000 \| 100, 106, 100 \| 3\.50 \| 9\.50 \| 7\.25 \| 2600 \/ 5080 \(5000\) \| 4\.00 \/ 61\.0 \(300\) \|/);
  });

  it('counts wrong answers of warm-ups and cells in the one wrong-answer target', () => {
    assert.equal(verdictOf(fixture(), /^every answer right/).met, true);
    const wrong = verdictOf(fixture({ wrongInWarmup: 3 }), /^every answer right/);
    assert.equal(wrong.met, false);
    assert.match(wrong.measured, /^3 wrong of 379000 measured responses$/);
  });

  it('renders tables with the targets, the noisy marks and the ratios', () => {
    const md = renderResults(fixture());
    assert.match(md, /\| gqlgw, batch \| 16 \| 1000 \*1 \| 980–1020 \|/);
    assert.match(md, /\| gqlgw, batch \/ hand-written \(ceiling\) \| ≥ 0\.9× \| 0\.95× \|/);
    assert.match(md, /\| gqlgw, batch \| 900 \| 1000 \| 1000 \|/, 'warm-up segments beside the measured cell');
    assert.match(md, /1 noisy cell\(s\) in this run/);
    assert.equal(md.match(/^\| (?!target|:---).*\| (met|missed.*|not measured.*) \|$/gm)?.length, TARGETS.length);
  });

  it("measures each throughput target's rows back to back, every second run backwards", () => {
    const ids = ROWS.map((r) => r.id);
    for (const t of TARGETS.filter((x) => x.kind === 'throughput')) {
      const [a, b] = [ids.indexOf(t.row), ids.indexOf(t.peer)];
      const group = new Set(TARGETS.flatMap((o) => (o.kind === 'throughput' && o.row === t.row ? [o.row, o.peer] : [])));
      assert.ok(
        ids.slice(Math.min(a, b) + 1, Math.max(a, b)).every((id) => group.has(id)),
        `${t.row} and ${t.peer} are measured apart`,
      );
    }
    assert.deepEqual(measureOrder([1, 2, 3], 1), [1, 2, 3]);
    assert.deepEqual(measureOrder([1, 2, 3], 2), [3, 2, 1]);
  });
});
