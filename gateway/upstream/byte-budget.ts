import { failure, type UpstreamOutcome } from './outcome.js';
import { CODE } from '../errors.js';

/**
 * The body bytes one GraphQL operation may still take from its sources
 * (limits.max_operation_upstream_bytes), shared by every subrequest it sends and taken as each
 * chunk arrives (upstream/exchange.ts), so an operation's memory is bounded whatever its aliases.
 * Once spent, the answer being read is cut and no further subrequest is sent for the operation.
 */
export class ByteBudget {
  private left: number;

  constructor(readonly limit: number) {
    this.left = limit;
  }

  /** Takes `bytes`; false when that goes past the limit (the budget is then spent). */
  take(bytes: number): boolean {
    this.left -= bytes;
    return this.left >= 0;
  }

  get spent(): boolean {
    return this.left < 0;
  }

  /** What the operation may still take (0 once spent). */
  get remaining(): number {
    return this.left > 0 ? this.left : 0;
  }
}

/**
 * What a @batch chunk shared by several operations may take while it is read: what they may still
 * take together, so that no one sharer's spent budget cuts the others' answer. Each sharer is then
 * charged its own share of `taken` (execute/send/share-bytes.ts); none is charged while it is read.
 */
export class SharedByteBudget extends ByteBudget {
  /** The body bytes read so far, over every attempt of the chunk. */
  taken = 0;

  constructor(budgets: readonly ByteBudget[]) {
    let together = 0;
    for (const b of budgets) together += b.remaining;
    super(together);
  }

  override take(bytes: number): boolean {
    this.taken += bytes;
    return super.take(bytes);
  }
}

/** UPSTREAM_BYTES_LIMIT of an operation whose budget cannot hold what a lookup took or would take. */
export function overBudget(source: string, budget: ByteBudget, what: string): UpstreamOutcome {
  return failure({
    code: CODE.UPSTREAM_BYTES_LIMIT,
    source,
    message: `this operation holds more than ${budget.limit} bytes from its sources (limits.max_operation_upstream_bytes); ask for less data per query`,
    detail: `${what}: the operation's budget ran out`,
  });
}
