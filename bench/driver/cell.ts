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
  /** Open loop only: requests scheduled, and the p99 of how late the driver sent them. */
  readonly offeredRps?: number;
  readonly sendLagP99Ms?: number;
}
