import type { GraphQLError } from 'graphql';
import { costLimit, rateLimited } from '../../errors.js';
import type { FederationBlueprint } from '../../blueprint/types.js';
import { plannedCost, type PlannedCost } from '../../plan/cost.js';
import type { Plan } from '../../plan/types.js';
import { clientOf, type ClientBudgets, type ClientFacts } from './client-budget.js';

/** What decides an operation's planned bound and whether it may run (docs/hardening.md "Cost before anything is sent"). */
export interface CostPolicy {
  /** `[limits] assumed_list_size`. */
  readonly assumedListSize: number;
  /** `[limits] max_planned_subrequests`; 0: off. */
  readonly maxPlannedSubrequests: number;
  /** `[rate_limit]`: the per-client buckets (shared by every executor of the process); undefined: off. */
  readonly budgets: ClientBudgets | undefined;
  /** `[rate_limit] client_header` (lower-cased): who the client is without a verified token. */
  readonly clientHeader?: string;
  /** debug_headers: the bound is computed for X-GQL-Cost even when nothing is enforced. */
  readonly show: boolean;
  readonly federation: FederationBlueprint | undefined;
  /** Told of each refusal of `[rate_limit]` (gqlgw_rate_limited_total{reason}); never of the client. */
  readonly onRefused?: (reason: 'budget' | 'cost') => void;
}

/** An operation let through with its bound, or refused (nothing sent, nothing charged). */
export type CostVerdict =
  { readonly cost: number; readonly refused?: undefined } | { readonly cost: number; readonly refused: GraphQLError };

export interface CostGate {
  /** The bound of `plan` with these variables, checked against the limit and then charged to the client. */
  admit(plan: Plan, variables: Readonly<Record<string, unknown>>, client: ClientFacts): CostVerdict;
}

/**
 * The one place an operation's planned bound is compared with `max_planned_subrequests` and
 * charged to its client's `[rate_limit]` bucket, before the executor sends anything. Undefined when
 * nothing needs the bound (no limit, no budget, no debug): then it is never computed. The bound of
 * an operation without variables is computed once per plan.
 */
export function createCostGate(policy: CostPolicy): CostGate | undefined {
  const { maxPlannedSubrequests: limit, budgets } = policy;
  if (limit === 0 && !budgets && !policy.show) return undefined;
  const constant = new WeakMap<Plan, PlannedCost>();
  const options = { assumedListSize: policy.assumedListSize, federation: policy.federation };

  function boundOf(plan: Plan, variables: Readonly<Record<string, unknown>>): number {
    if ((plan.operation.variableDefinitions?.length ?? 0) > 0) return plannedCost(plan, variables, options).total;
    let cost = constant.get(plan);
    if (!cost) {
      cost = plannedCost(plan, variables, options);
      constant.set(plan, cost);
    }
    return cost.total;
  }

  return {
    admit(plan, variables, client) {
      const cost = boundOf(plan, variables);
      if (limit > 0 && cost > limit) {
        return {
          cost,
          refused: costLimit(
            `this operation may send up to ${cost} subrequests, more than limits.max_planned_subrequests (${limit}); ask for less data, or smaller lists with their arguments`,
            cost,
            limit,
          ),
        };
      }
      if (!budgets) return { cost };
      const charge = budgets.charge(clientOf(client), cost);
      if (charge.refused === undefined) return { cost };
      policy.onRefused?.(charge.refused);
      if (charge.refused === 'cost') {
        return {
          cost,
          refused: costLimit(
            `this operation may send up to ${cost} subrequests, more than a client's whole budget ([rate_limit] cost = ${charge.limit})`,
            cost,
            charge.limit,
          ),
        };
      }
      const retryAfter = charge.retryAfterS;
      const message = `this client's budget ([rate_limit]) has too little left for this operation's ${cost} planned subrequests; retry after ${retryAfter} s`;
      return { cost, refused: rateLimited(message, cost, retryAfter) };
    },
  };
}
