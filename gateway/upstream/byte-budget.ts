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
}
