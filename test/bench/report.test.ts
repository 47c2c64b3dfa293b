/**
 * The RESULTS.md renderer against a fixed, hand-made run (no benchmark is run): the targets are
 * judged from TARGETS alone (met, missed by how much, not measured), the ratios table shows each
 * target's goal, and the tables carry subrequests per query and peak RSS.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CellRun, BenchResults, RowResult } from '../../bench/results.js';
import { renderResults } from '../../bench/report/render.js';
import { evaluateTargets, TARGETS } from '../../bench/report/targets.js';
import { View } from '../../bench/report/view.js';
import { warmupSegments } from '../../bench/driver/wrk.js';
import type { RowId } from '../../bench/rows.js';

function cell(rps: number, more: Partial<CellRun> = {}): CellRun {
  return {
    responses: rps * 10,
    durationSec: 10,
    rps,
    avgMs: 10,
    p50Ms: 10,
    p99Ms: 20,
    maxMs: 40,
    wrong: 0,
    wrongSample: undefined,
    subrequestsPerQuery: 2,
    serverCpuPct: 90,
    backendCpuPct: 20,
    otherLoadOnServerCorePct: 0,
    ...more,
  };
}

function row(id: RowId, label: string, cells: RowResult['cells'], peakRssMiB: number[]): RowResult {
  return { id, label, failures: [], cells, peakRssMiB, warmups: [] };
}

/** `r` with these warm-ups (one per run). */
function warmedUp(r: RowResult, warmups: RowResult['warmups']): RowResult {
  return { ...r, warmups };
}

const FIXTURE: BenchResults = {
  settings: { durationSec: 10, secondaryDurationSec: 3, warmupSec: 7, runs: 3, quick: false, pinned: true, backendDelayMs: 2 },
  environment: {
    date: '2026-11-30T13:00:00Z',
    cpu: 'test cpu',
    cores: 2,
    memoryGiB: 8,
    os: 'Linux',
    node: 'v20',
    wrk: 'wrk 4',
    packages: {},
    gitCommit: 'abc1234',
    nodeFlags: ['--initial-old-space-size=128'],
  },
  rows: [
    row(
      'gqlgw-no-batch',
      'gqlgw, no batch',
      { c16: [cell(80, { subrequestsPerQuery: 101 }), cell(82, { subrequestsPerQuery: 101 }), cell(78, { subrequestsPerQuery: 101 })] },
      [140, 150, 145],
    ),
    warmedUp(
      row(
        'gqlgw-batch',
        'gqlgw, batch',
        {
          c16: [cell(880), cell(900), cell(950)],
          open80: [
            cell(720, { p50Ms: 10, p99Ms: 25, offeredRps: 720 }),
            cell(716, { p50Ms: 9, p99Ms: 40, offeredRps: 720 }),
            cell(719, { p50Ms: 11, p99Ms: 22, offeredRps: 720 }),
          ],
        },
        [120, 130, 125],
      ),
      // Three runs' warm-ups of 7 s: segments of 2, 2, 2 and 1 s; one run answered 3 wrong.
      [
        { rps: [400, 800, 880, 900], wrong: 0 },
        { rps: [500, 850, 900, 910], wrong: 3 },
        { rps: [450, 820, 870, 905], wrong: 0 },
      ],
    ),
    row(
      'gqlgw-batch-coalesce',
      'gqlgw, batch, coalescing on',
      // Past its capacity at "80 %": it answered 600 of 720 req/s, every request queues alike.
      { c16: [cell(900)], open80: [cell(600, { p50Ms: 200, p99Ms: 220, offeredRps: 720 })] },
      [100],
    ),
    warmedUp(row('ceiling', 'hand-written (ceiling)', { c16: [cell(1000), cell(990), cell(1010)] }, [60, 61, 59]), [
      { rps: [950, 1000, 1000, 1000], wrong: 0 },
      { rps: [900, 990, 1000, 1010], wrong: 0 },
      { rps: [980, 1000, 990, 1000], wrong: 0 },
    ]),
    row('no-batch-hand-written', 'hand-written, no batch', { c16: [cell(100, { subrequestsPerQuery: 101 })] }, [70]),
    row('jit-dataloader', 'graphql-jit + DataLoader', { c16: [cell(1000)] }, [80]),
  ],
  profiles: [],
  idleCheck: { seconds: 2, core0Pct: 30, core1Pct: 5 },
  elapsedSec: 600,
  buildChangedDuringRun: false,
};

describe('bench report renderer', () => {
  it('judges every target from TARGETS: met, missed by how much, not measured', () => {
    const outcomes = evaluateTargets(new View(FIXTURE));
    assert.equal(outcomes.length, TARGETS.length);
    const byText = new Map(outcomes.map((o) => [o.text, `${o.measured} | ${o.verdict}`]));
    assert.equal(
      byText.get('gqlgw, batch ≥ 0.9 × hand-written (ceiling) (req/s, 16 connections)'),
      '0.90× (900 vs 1000 req/s) | met by 0.0 %',
    );
    assert.equal(
      byText.get('gqlgw, batch ahead of graphql-jit + DataLoader (req/s, 16 connections)'),
      '0.90× (900 vs 1000 req/s) | missed by 10.0 % (needs 1000 req/s)',
    );
    assert.equal(
      byText.get('gqlgw, no batch ≥ 0.8 × hand-written, no batch (req/s, 16 connections)'),
      '0.80× (80 vs 100 req/s) | met by 0.0 %',
    );
    assert.equal(
      byText.get('gqlgw, batch + cache (warm) ≥ 0.9 × hand-written + per-item cache (warm) (req/s, 16 connections)'),
      '– (– vs – req/s) | not measured',
    );
    assert.equal(
      byText.get('gqlgw, batch: p99 ≤ 3 × p50 at 80 % of its maximum offered rate'),
      'p99/p50 = 2.50 (25.0 / 10.0 ms at 720 req/s; by run 2.50, 4.44, 2.00) | met',
      "the verdict reads the medians; each run's ratio is shown beside them",
    );
    assert.equal(
      byText.get('gqlgw, batch, coalescing on: p99 ≤ 3 × p50 at 80 % of its maximum offered rate'),
      'p99/p50 = 1.10 (220 / 200 ms at 720 req/s) | missed: overloaded (answered 600 of 720 req/s offered)',
      'a row that did not carry the rate cannot meet the tail target, however even its latencies',
    );
    assert.equal(
      byText.get("gqlgw, batch: peak RSS ≤ 2 × hand-written (ceiling)'s"),
      '2.08× (125 vs 60 MiB) | missed by 4.2 % (needs ≤ 120 MiB)',
    );
    assert.equal(
      byText.get("gqlgw, no batch: peak RSS ≤ 2 × hand-written (ceiling)'s"),
      '2.42× (145 vs 60 MiB) | missed by 20.8 % (needs ≤ 120 MiB)',
    );
    assert.ok(!outcomes.some((o) => o.text.startsWith('gqlgw, batch, 2 workers: peak RSS')), 'the row with workers has no memory target');
  });

  it('renders the targets, the goals in the ratios table, subrequests and peak RSS', () => {
    const text = renderResults(FIXTURE);
    const targets = text.slice(text.indexOf('## Targets'), text.indexOf('## Where the time goes'));
    assert.equal(
      targets.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| target') && !l.startsWith('| :--')).length,
      TARGETS.length,
    );
    assert.match(text, /^- Node flags of every Node process [^\n]*: `--initial-old-space-size=128` /m);
    assert.match(
      renderResults({ ...FIXTURE, environment: { ...FIXTURE.environment, nodeFlags: undefined } }),
      /^- Node flags of every Node process [^\n]*: none /m,
    );
    assert.match(text, /\| gqlgw, batch \/ hand-written \(ceiling\) \| ≥ 0\.9× \| 0\.90× \|/);
    assert.match(text, /\| gqlgw, batch \/ graphql-jit \+ DataLoader \| > 1× \| 0\.90× \|/);
    assert.match(text, /\| gqlgw, no batch \| 80 \| 78–82 \| [^\n]* \| 101\.00 \| 0 \| [^\n]* \| 145 \|\n/);
    assert.match(
      text,
      /- Target missed: gqlgw, batch ahead of graphql-jit \+ DataLoader \(req\/s, 16 connections\): 0\.90× \(900 vs 1000 req\/s\), missed by 10\.0 % \(needs 1000 req\/s\)\./,
    );
    assert.match(text, /the machine was not idle/);
  });

  it("cuts a warm-up into 2 s segments, the last one shorter, as the table's columns are labelled", () => {
    assert.deepEqual(warmupSegments(8), [2, 2, 2, 2]);
    assert.deepEqual(warmupSegments(7), [2, 2, 2, 1]);
    assert.deepEqual(warmupSegments(1), [1]);
    assert.deepEqual(warmupSegments(0), []);
  });

  it('shows each warm-up segment as the median of the runs, beside the measured cell, with its wrong answers', () => {
    const text = renderResults(FIXTURE);
    const warmup = text.slice(text.indexOf('## Warm-up after each start'), text.indexOf('## Open loop'));
    assert.match(warmup, /\| row \| 0–2 s req\/s \| 2–4 s req\/s \| 4–6 s req\/s \| 6–7 s req\/s \| measured after it/);
    assert.match(warmup, /\| gqlgw, batch \| 450 \| 820 \| 880 \| 905 \| 900 \| 0\.50× \| 3 \|/);
    assert.match(warmup, /\| hand-written \(ceiling\) \| 950 \| 1000 \| 1000 \| 1000 \| 1000 \| 0\.95× \| 0 \|/);
    assert.ok(!warmup.includes('graphql-jit'), 'a row without warm-up data has no line');
    assert.match(text, /^- 3 answers during the warm-ups were wrong or failed/m);
    assert.match(text, /after a 7 s warm-up per server start/);
  });

  it("shows each session's probed pace against the run's usual one, and names the slowed sessions", () => {
    const usual = { serverCore: 40, loadCore: 50 };
    const probed = (rowIndex: number, speed: RowResult['speed']): BenchResults => ({
      ...FIXTURE,
      rows: FIXTURE.rows.map((r, i) =>
        i === rowIndex ? { ...r, speed } : { ...r, speed: [1, 2, 3].map((run) => ({ run, before: usual, after: usual })) },
      ),
    });
    const slowed = probed(1, [
      { run: 1, before: usual, after: usual },
      { run: 2, before: usual, after: { serverCore: 64, loadCore: 50 } },
      { run: 3, before: { serverCore: 40, loadCore: 55 }, after: usual },
    ]);
    const label = slowed.rows[1]!.label;
    const text = renderResults(slowed);
    const section = text.slice(text.indexOf('## Machine speed around each session'), text.indexOf('## Ratios'));
    assert.match(
      section,
      /\| row \| run 1: server core · load core \| run 2: server core · load core \| run 3: server core · load core \|/,
    );
    const line = section.split('\n').find((l) => l.startsWith(`| ${label} |`));
    // 40/64 = 0.63 (bold: under 0.85); 50/55 = 0.91 (not bold).
    assert.equal(line, `| ${label} | 1.00→1.00 · 1.00→1.00 | 1.00→**0.63** · 1.00→1.00 | 1.00→1.00 · 0.91→1.00 |`);
    assert.match(
      text,
      new RegExp(
        `^- The machine-speed probe found a core under 0\\.85× of its usual pace around 1 of ${3 * FIXTURE.rows.length} server sessions: ${label.replace(/[()+]/g, '\\$&')} run 2 \\(0\\.63×\\)`,
        'm',
      ),
    );

    const even = renderResults(
      probed(
        1,
        [1, 2, 3].map((run) => ({ run, before: usual, after: usual })),
      ),
    );
    assert.match(even, /^- The machine-speed probe found both cores at 0\.85× or more of their usual pace around all \d+ server sessions/m);
    assert.ok(!renderResults(FIXTURE).includes('## Machine speed'), 'results without probes (older runs) have no section');
  });

  it('reads the throughput and tail targets again without the cells of slowed sessions, below the verdicts', () => {
    const usual = { serverCore: 40, loadCore: 50 };
    const numbered = (r: RowResult): RowResult => ({
      ...r,
      cells: Object.fromEntries(Object.entries(r.cells).map(([k, cells]) => [k, (cells ?? []).map((c, i) => ({ ...c, run: i + 1 }))])),
      speed: [1, 2, 3].map((run) => ({
        run,
        before: usual,
        after: r.id === 'gqlgw-batch' && run === 2 ? { serverCore: 64, loadCore: 50 } : usual,
      })),
    });
    const text = renderResults({ ...FIXTURE, rows: FIXTURE.rows.map(numbered) });
    const verdicts = text.slice(
      text.indexOf('## Targets'),
      text.indexOf('### The same targets without the sessions and cells measured on a slowed core'),
    );
    const again = text.slice(text.indexOf('### The same targets without'), text.indexOf('## Where the time goes'));
    // Every session: batch 900 (880, 900, 950) against 1000; p99/p50 25 / 10 (runs 25/10, 40/9, 22/11).
    assert.match(
      verdicts,
      /\| gqlgw, batch ≥ 0\.9 × hand-written \(ceiling\) \(req\/s, 16 connections\) \| 0\.90× \(900 vs 1000 req\/s\) \|/,
    );
    assert.match(verdicts, /\| gqlgw, batch: p99 ≤ 3 × p50 [^|]* \| p99\/p50 = 2\.50 /);
    // Without batch's slowed second session: 915 (880, 950); 23.5 / 10.5.
    assert.match(again, /\| gqlgw, batch ≥ 0\.9 × hand-written \(ceiling\) \(req\/s, 16 connections\) \| 0\.92× \(915 vs 1000 req\/s\) \|/);
    assert.match(again, /\| gqlgw, batch: p99 ≤ 3 × p50 [^|]* \| p99\/p50 = 2\.24 \(23\.5 \/ 10\.5 ms/);
    assert.ok(!again.includes('peak RSS'), 'memory is not read again');
    assert.ok(!renderResults(FIXTURE).includes('### The same targets without'), 'nothing to read again without slowed sessions');
  });
  it('says what the pace gate did, and leaves the cells it kept with a slowed core out of the second reading', () => {
    const usual = { serverCore: 40, loadCore: 50 };
    // Every cell's first run waited 4 s and its third was measured twice; gqlgw batch's
    // 16-connection cell of run 2 had a slowed core around all three attempts.
    const gated = (r: RowResult, slowCell = true): RowResult => ({
      ...r,
      cells: Object.fromEntries(
        Object.entries(r.cells).map(([k, cells]) => [
          k,
          (cells ?? []).map((c, i) => ({
            ...c,
            run: i + 1,
            pace:
              slowCell && r.id === 'gqlgw-batch' && k === 'c16' && i === 1
                ? { waitedSec: 60, slow: true, attempts: 3 }
                : { waitedSec: i === 0 ? 4 : 0, slow: false, attempts: i === 2 ? 2 : 1 },
          })),
        ]),
      ),
      speed: [1, 2, 3].map((run) => ({ run, before: usual, after: usual })),
    });
    const rows = FIXTURE.rows.map((r) => gated(r));
    const all = rows.flatMap((r) => Object.values(r.cells).flatMap((cells) => cells ?? []));
    const firsts = all.filter((c) => c.run === 1).length;
    const thirds = all.filter((c) => c.run === 3).length;
    const text = renderResults({ ...FIXTURE, settings: { ...FIXTURE.settings, paceWaitSec: 60 }, rows });
    assert.match(
      text,
      /^- Pace gate \(bench\/driver\/pace-gate\.ts\): right before each measured cell and right after it, each time once the server and the backend are idle[^\n]*over 1\.25× its reference, the 10th percentile[^\n]*up to 60 s of waits per cell[^\n]*measured again, up to 3 times/m,
    );
    assert.ok(
      text.includes(
        `The pace gate waited for the usual pace before ${firsts + 1} of ${all.length} measured cells (${4 * firsts + 60} s in all, the longest 60 s). It measured ${thirds + 1} cells again because a probe before or after it found a core slowed (at most 3 attempts for one cell). 1 cell had a core slowed around every attempt (the last attempt is kept and marked): gqlgw, batch, 16 connections, run 2.`,
      ),
    );
    const again = text.slice(text.indexOf('### The same targets without'), text.indexOf('## Where the time goes'));
    // Every session's probes are usual: only the gated cell goes, batch 915 (880, 950) against 1000.
    assert.match(again, /\| gqlgw, batch ≥ 0\.9 × hand-written \(ceiling\) \(req\/s, 16 connections\) \| 0\.92× \(915 vs 1000 req\/s\) \|/);
    assert.match(again, /\| gqlgw, batch: p99 ≤ 3 × p50 [^|]* \| p99\/p50 = 2\.50 /, 'its open-loop cells stay');

    const none = renderResults({
      ...FIXTURE,
      settings: { ...FIXTURE.settings, paceWaitSec: 60, paceBudgetSec: 600 },
      paceBudgetLeftSec: 452,
      rows: FIXTURE.rows.map((r) => gated(r, false)),
    });
    assert.ok(
      none.includes(
        `The pace gate waited for the usual pace before ${firsts} of ${all.length} measured cells (${4 * firsts} s in all, the longest 4 s). It measured ${thirds} cells again because a probe before or after it found a core slowed (at most 2 attempts for one cell). Every kept cell ran between two probes at the usual pace. The run spent 148 s of the gate's 600 s budget.`,
      ),
    );
    assert.match(none, /^- Pace gate [^\n]*share a budget of 600 s per run; once it is spent, cells are measured once and only marked\./m);
    const spent = renderResults({
      ...FIXTURE,
      settings: { ...FIXTURE.settings, paceWaitSec: 60, paceBudgetSec: 600 },
      paceBudgetLeftSec: 0,
      rows: FIXTURE.rows.map((r) => gated(r, false)),
    });
    assert.ok(spent.includes("The run spent all of the gate's 600 s budget; the cells after that were measured once and only marked."));
    assert.ok(!none.includes('### The same targets without'), 'nothing to read again');
    assert.ok(!renderResults(FIXTURE).includes('Pace gate'), 'results from before the gate have no line');
  });
});
