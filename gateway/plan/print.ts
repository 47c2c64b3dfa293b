import type { Plan, PlanSelection } from './types.js';

/**
 * A stable, human-readable text of a Plan: one line per fetched field, grouped by round, saying how
 * it is fetched (single or batched, source, path template), whether it is cached, and where it sits
 * in the response. Used by `gqlgw plan` and by tests.
 */
export function printPlan(plan: Plan): string {
  const rounds = new Map<number, string[]>();
  walk(plan.root, [], rounds);
  const lines = [`${plan.operation.operation} ${plan.operationName}: ${plan.maxRound} round${plan.maxRound === 1 ? '' : 's'} when every field is reached`];
  for (const round of [...rounds.keys()].sort((a, b) => a - b)) {
    lines.push(`round ${round}:`);
    for (const l of rounds.get(round)!) lines.push(`  ${l}`);
  }
  return lines.join('\n') + '\n';
}

function walk(sel: PlanSelection, path: string[], rounds: Map<number, string[]>): void {
  for (const e of sel.entries) {
    const here = [...path, e.responseKey];
    const fetch = e.blueprint.fetch;
    if (fetch) {
      const how = fetch.batch
        ? `batch ${fetch.source.name} ${fetch.batch.template.text} (match ${fetch.batch.match}, max ${fetch.batch.max}; single ${fetch.template.text})`
        : `fetch ${fetch.source.name} ${fetch.template.text}`;
      const cache = fetch.cache ? `, cache ${fetch.cache.ttlSeconds}s` : '';
      const conds = e.conditions.length ? `, when ${e.conditions.map(printCondition).join(' and ')}` : '';
      const list = rounds.get(e.round) ?? [];
      list.push(`${here.join('.')}  ${e.blueprint.coordinate}  ${how}${cache}${conds}`);
      rounds.set(e.round, list);
    }
    if (e.children) walk(e.children, here, rounds);
  }
}

function printCondition(c: { include: boolean; value: boolean | { variable: string } }): string {
  const v = typeof c.value === 'boolean' ? String(c.value) : `$${c.value.variable}`;
  return `${c.include ? '@include' : '@skip'}(if: ${v})`;
}
