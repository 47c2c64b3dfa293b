import { answersFetch } from '../blueprint/sideloads.js';
import type { FetchBlueprint } from '../blueprint/types.js';
import type { Plan, PlanSelection, SelectionCompletion } from './types.js';
import type { PlannedCost } from './cost.js';

/**
 * A stable, human-readable text of a Plan: one line per fetched field, grouped by round, saying how
 * it is fetched (single or batched, source, method, path template, `repeat`, JSON body, and which
 * `select` applies: the batch's to its answer, the single fetch's to its body), how it is cached
 * (ttl, stale, missing), and where it sits in the response; then, when any of its sources
 * coalesces, what X-GQL-Subrequests counts. Used by `gqlgw plan` and by tests.
 */
export function printPlan(plan: Plan, cost?: PlannedCost): string {
  const text = printFields(plan);
  return cost ? text + printCost(cost) : text;
}

/**
 * The planned bound (plan/cost.ts): in total, then per round (of a mutation, its steps and their
 * rounds in order), and what answers may add on top.
 */
export function printCost(cost: PlannedCost): string {
  const lines = [`planned bound: ${cost.total} subrequest${cost.total === 1 ? '' : 's'} (X-GQL-Cost), every list at its assumed size`];
  cost.rounds.forEach((calls, i) => lines.push(`  round ${i + 1}: ${calls}`));
  lines.push(
    "  on top, only what answers cause: a redirect's hops, the re-send of a reset GET, a failed chunk's halves (counted by max_subrequests)",
  );
  return lines.join('\n') + '\n';
}

function printFields(plan: Plan): string {
  const coalescing = new Set<string>();
  if (plan.operation.operation === 'mutation') return printMutationPlan(plan);
  const rounds = new Map<number, string[]>();
  const shared: SharedBatches = new Map();
  const across = new Set<string>();
  const sideloaders: Sideloader[] = [];
  collectSideloaders(plan.root, [], sideloaders);
  walk(plan.root, [], { rounds, coalescing, shared, across, sideloaders });
  printSharedBatches(shared, rounds);
  const lines = [
    `${plan.operation.operation} ${plan.operationName}: ${plan.maxRound} round${plan.maxRound === 1 ? '' : 's'} when every field is reached`,
  ];
  printRounds(rounds, '', lines);
  if (coalescing.size > 0) {
    lines.push(
      `X-GQL-Subrequests counts only what this operation sends: a lookup of ${[...coalescing].sort().join(', ')} (coalesce = true) ` +
        'that another request already has in flight waits for that call and is counted in gqlgw_coalesced_total instead',
    );
  }
  if (across.size > 0) {
    lines.push(
      `@batch chunks of ${[...across].sort().join(', ')} (batch_across_requests = true) also carry the keys of concurrent requests: ` +
        "X-GQL-Subrequests and X-GQL-Batches count every call that carried one of this operation's keys",
    );
  }
  return lines.join('\n') + '\n';
}

function printRounds(rounds: ReadonlyMap<number, readonly string[]>, indent: string, lines: string[]): void {
  for (const round of [...rounds.keys()].sort((a, b) => a - b)) {
    lines.push(`${indent}round ${round}:`);
    for (const l of rounds.get(round)!) lines.push(`${indent}  ${l}`);
  }
}

/**
 * A mutation's plan (docs/mutations.md): its root fields as serial steps in document order, each
 * with its one request (never cached, deduped, coalesced or retried), the entries it invalidates
 * after a 2xx, and the rounds of its selections, which run before the next step starts.
 */
function printMutationPlan(plan: Plan): string {
  const steps = plan.root.entries.filter((e) => e.blueprint.fetch);
  const lines = [
    `mutation ${plan.operationName}: ${steps.length} serial step${steps.length === 1 ? '' : 's'}, one after another in document order; each runs its rounds before the next starts`,
  ];
  steps.forEach((e, i) => {
    const fetch = e.blueprint.fetch!;
    const invalidates = fetch.invalidates.map((inv) => `, then invalidate ${inv.source.name}:${inv.path}`).join('');
    const conds = e.conditions.length ? `, when ${e.conditions.map(printCondition).join(' and ')}` : '';
    lines.push(
      `step ${i + 1}: ${e.responseKey}  ${e.blueprint.coordinate}  ${fetch.method} ${fetch.source.name} ${fetch.template.text}${fetch.body ? ' with a JSON body' : ''}${invalidates}${conds}`,
    );
    const rounds = new Map<number, string[]>();
    if (e.children) walk(e.children, [e.responseKey], { rounds, coalescing: new Set() });
    printRounds(rounds, '  ', lines);
  });
  return lines.join('\n') + '\n';
}

interface Printed {
  readonly rounds: Map<number, string[]>;
  /** Names of the coalescing sources the plan fetches from. */
  readonly coalescing: Set<string>;
  /** @batch fields per round and BatchBlueprint `shareKey`, to show which share chunks; absent in a mutation step. */
  readonly shared?: SharedBatches;
  /** Names of the sources with batch_across_requests whose @batch the plan uses. */
  readonly across?: Set<string>;
  /** The plan's @sideload fields, to show which lookups their answers can answer. */
  readonly sideloaders?: readonly Sideloader[];
}

/** A field of the plan with @sideload: where it is, in which round, and its sideloads. */
interface Sideloader {
  readonly path: string;
  readonly round: number;
  readonly fetch: FetchBlueprint;
}

function collectSideloaders(sel: PlanSelection, path: string[], out: Sideloader[]): void {
  for (const e of sel.entries) {
    const here = [...path, e.responseKey];
    if (e.blueprint.fetch?.sideloads) out.push({ path: here.join('.'), round: e.round, fetch: e.blueprint.fetch });
    if (e.children) collectSideloaders(e.children, here, out);
  }
}

/**
 * What a plan line adds for sideloads (docs/rest-shapes.md "Sideloads"): on a @sideload field, each
 * side array and the path it answers; on a field an earlier round's sideload can answer, which one.
 */
function printSideloads(fetch: FetchBlueprint, round: number, sideloaders: readonly Sideloader[] | undefined): string {
  let out = '';
  for (const s of fetch.sideloads ?? [])
    out += `, sideload ${s.select.join('.')} as ${s.path} (match ${s.match}${s.when ? `, when ${s.when.text}` : ''})`;
  for (const by of sideloaders ?? []) {
    if (by.round >= round) continue;
    for (const s of by.fetch.sideloads!) {
      if (answersFetch(by.fetch, s, fetch)) out += `, no call for a key the sideload ${s.select.join('.')} of ${by.path} holds`;
    }
  }
  return out;
}

/** Round → share key → the batch fields (response path, max) of that round with it. */
type SharedBatches = Map<number, Map<string, Array<{ readonly path: string; readonly max: number; readonly how: string }>>>;

/**
 * Adds a line to each round whose @batch fields share chunks (docs/caching.md):
 * two or more fields, or aliases, with the same batch go out as one set of chunks over their
 * distinct keys, under the smallest `max`.
 */
function printSharedBatches(shared: SharedBatches, rounds: Map<number, string[]>): void {
  for (const [round, byKey] of shared) {
    for (const fields of byKey.values()) {
      if (fields.length < 2) continue;
      const max = Math.min(...fields.map((f) => f.max));
      rounds
        .get(round)!
        .push(
          `shared batch ${fields[0]!.how}: ${fields.map((f) => f.path).join(', ')} (one set of chunks over their distinct keys, max ${max})`,
        );
    }
  }
}

function printCache(cache: { ttlSeconds: number; staleSeconds: number; missingSeconds: number } | undefined): string {
  if (!cache) return '';
  const stale = cache.staleSeconds > 0 ? `, stale ${cache.staleSeconds}s` : '';
  const missing = cache.missingSeconds > 0 ? `, missing ${cache.missingSeconds}s` : '';
  return `, cache ${cache.ttlSeconds}s${stale}${missing}`;
}

function walk(sel: PlanSelection, path: string[], printed: Printed): void {
  const { rounds } = printed;
  for (const c of sel.completions?.values() ?? []) {
    // A partial object's completion (docs/federation.md): a round of its own.
    const list = rounds.get(c.round) ?? [];
    const how = c.lookups.map((l) => `${l.coordinate}  ${printHow(l.fetch, printed, true)}${printCache(l.fetch.cache)}`).join(', else ');
    list.push(
      `${path.join('.') || '(root)'}  complete ${c.typeName} when ${names(c)} ${c.keys.length + c.conditional.length === 1 ? 'is' : 'are'} absent: ${how}`,
    );
    rounds.set(c.round, list);
  }
  for (const e of sel.entries) {
    const here = [...path, e.responseKey];
    const fetch = e.blueprint.fetch;
    if (fetch) {
      const how = printHow(fetch, printed);
      const cache = printCache(fetch.cache);
      if (fetch.batch && printed.shared) {
        if (fetch.source.batchAcrossRequests) printed.across?.add(fetch.source.name);
        const byKey = printed.shared.get(e.round) ?? new Map();
        printed.shared.set(e.round, byKey);
        const fields = byKey.get(fetch.batch.shareKey) ?? [];
        byKey.set(fetch.batch.shareKey, fields);
        fields.push({
          path: here.join('.'),
          max: fetch.batch.max,
          how: `${fetch.source.name} ${methodOf(fetch.batch.method)}${fetch.batch.template.text}`,
        });
      }
      const conds = e.conditions.length ? `, when ${e.conditions.map(printCondition).join(' and ')}` : '';
      const list = rounds.get(e.round) ?? [];
      const sideloads = printSideloads(fetch, e.round, printed.sideloaders);
      list.push(`${here.join('.')}  ${e.blueprint.coordinate}  ${how}${cache}${sideloads}${conds}`);
      rounds.set(e.round, list);
    }
    if (e.children) walk(e.children, here, printed);
  }
}

/** The JSON keys whose absence completes an object; those under @skip/@include with their conditions. */
function names(c: SelectionCompletion): string {
  return [...c.keys, ...c.conditional.map((k) => `${k.key} (${k.conditions.map(printCondition).join(' and ')})`)].join(', ');
}

/** How a fetch is sent: batched or single, source, method, path, options. A lookup's `{key.…}` shows as written. */
function printHow(fetch: FetchBlueprint, printed: Printed, lookup = false): string {
  if (fetch.source.coalesce) printed.coalescing.add(fetch.source.name);
  // A lookup's path is compiled with `{key.F}` as `{parent.F}` (directives/lookup.ts).
  const path = lookup ? fetch.template.text.replaceAll('{parent.', '{key.') : fetch.template.text;
  const single = `${path}${options(fetch.template.repeat, fetch.body?.template.text, fetch.select)}`;
  return fetch.batch
    ? `batch ${fetch.source.name} ${methodOf(fetch.batch.method)}${fetch.batch.template.text}${options(fetch.batch.template.repeat, fetch.batch.body?.text, undefined)} (match ${fetch.batch.match}, max ${fetch.batch.max}${fetch.batch.select ? `, select ${fetch.batch.select.join('.')}` : ''}${fetch.batch.listKeys ? ', a key per list element' : ''}; single ${methodOf(fetch.method)}${single})`
    : `fetch ${fetch.source.name} ${methodOf(fetch.method)}${fetch.link ? 'url ' : ''}${single}${fetch.response ? ' (whole response)' : ''}`;
}

/** A method as the plan shows it: GET, the default, is not written. */
function methodOf(method: string): string {
  return method === 'GET' ? '' : `${method} `;
}

/** What a fetch adds to its path: repeated list parameters, a JSON body, the select into the answer. */
function options(repeat: boolean, body: string | undefined, select: readonly string[] | undefined): string {
  return `${repeat ? ' repeat' : ''}${body !== undefined ? ` body ${body.replace(/\s+/g, ' ')}` : ''}${select ? ` select ${select.join('.')}` : ''}`;
}

function printCondition(c: { include: boolean; value: boolean | { variable: string } }): string {
  const v = typeof c.value === 'boolean' ? String(c.value) : `$${c.value.variable}`;
  return `${c.include ? '@include' : '@skip'}(if: ${v})`;
}
