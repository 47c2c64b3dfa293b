import type { Condition } from './types.js';

/** Whether a selection's @skip/@include conditions let it run with these variables. */
export function conditionsHold(conditions: readonly Condition[], variables: Readonly<Record<string, unknown>>): boolean {
  for (const c of conditions) {
    const v = typeof c.value === 'boolean' ? c.value : variables[c.value.variable] === true;
    if (v !== c.include) return false;
  }
  return true;
}
