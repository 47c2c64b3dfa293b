/**
 * A consecutive-failure circuit breaker.
 *
 * Contract:
 * - closed: every call passes; `threshold` failures in a row (no success between) open it;
 * - open: `tryPass()` is false (callers skip the dependency) until `cooldownMs` have passed;
 * - then one probe call passes (half-open) while the others are still refused; the probe's
 *   success closes the breaker, its failure opens it for another `cooldownMs`. A probe that never
 *   reports back is replaced by a new one after `cooldownMs`, so the breaker cannot stick.
 * It recovers by itself: nothing but calls and their outcomes drive it.
 */
export class CircuitBreaker {
  private readonly threshold: number;
  private consecutiveFailures = 0;
  private openUntil = 0;
  private state: 'closed' | 'open' | 'half-open' = 'closed';
  private probeStartedAt = 0;

  constructor(
    threshold: number,
    private readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.threshold = Math.max(1, Math.floor(threshold));
  }

  /** Whether a call may go out now; when true the caller must report `success()` or `failure()`. */
  tryPass(): boolean {
    const now = this.now();
    switch (this.state) {
      case 'closed':
        return true;
      case 'open':
        if (now < this.openUntil) return false;
        this.state = 'half-open';
        this.probeStartedAt = now;
        return true;
      case 'half-open':
        if (now - this.probeStartedAt < this.cooldownMs) return false;
        this.probeStartedAt = now;
        return true;
    }
  }

  success(): void {
    this.consecutiveFailures = 0;
    this.state = 'closed';
  }

  failure(): void {
    this.consecutiveFailures += 1;
    if (this.state === 'half-open' || this.consecutiveFailures >= this.threshold) {
      this.state = 'open';
      this.openUntil = this.now() + this.cooldownMs;
    }
  }
}
