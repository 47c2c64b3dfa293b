/** What one measured cell (one server, one load setting, one run) produced. */
export interface LoadResult {
  /** Responses received (right or wrong) in the measured window. */
  readonly responses: number;
  /** Requests sent including any unmeasured warm-up (open loop); defaults to `responses`. */
  readonly requestsSent?: number;
  readonly durationSec: number;
  /** responses / durationSec */
  readonly rps: number;
  readonly avgMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Responses that differ from the verified answer, non-200s, timeouts and socket errors. */
  readonly wrong: number;
  /** The first wrong response (status and start of body, or the error), for diagnosis. */
  readonly wrongSample: string | undefined;
  /**
   * Open loop only: requests (warm-up included) still unanswered when the driver stopped waiting,
   * 2 s after its last send: overload, not wrong answers. Their latency is not in the percentiles.
   */
  readonly unanswered?: number;
  /** Open loop only: the offered rate, and the p99 of how late the driver sent requests. */
  readonly offeredRps?: number;
  readonly sendLagP99Ms?: number;
}
