import type { TableReader } from './table-reader.js';
import type { ClientBudgetConfig } from './types.js';

export const CLIENT_BUDGET_DEFAULTS = { cost: 1000, perS: 60, maxClients: 100_000 } as const;

/**
 * `[rate_limit]` (docs/hardening.md "Cost before anything is sent"): per-client budgets in planned
 * subrequests. Not the `rate_limit` key of a `[sources.X]` table, which keeps one source under its
 * quota. Absent: no client budget.
 */
export function readClientBudget(t: TableReader | undefined): ClientBudgetConfig | undefined {
  if (!t) return undefined;
  const cost = t.int('cost', CLIENT_BUDGET_DEFAULTS.cost, 1);
  const perS = t.number('per_s', CLIENT_BUDGET_DEFAULTS.perS, 0.001, 86_400 * 365);
  const header = t.has('client_header')
    ? t.string('client_header', '', (v) => (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(v) ? undefined : `must be a header name, found "${v}"`))
    : undefined;
  const maxClients = t.int('max_clients', CLIENT_BUDGET_DEFAULTS.maxClients, 1, 10_000_000);
  t.finish();
  return Object.freeze({ cost, perS, clientHeader: header === undefined || header === '' ? undefined : header.toLowerCase(), maxClients });
}
