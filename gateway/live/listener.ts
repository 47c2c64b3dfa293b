/**
 * What live data reports while it runs (docs/live-data.md "Metrics"); observability/ turns it into
 * Prometheus series. Every method is optional and must not throw. `coordinate` is the polled
 * field's `Subscription.field`, `name` a `[webhooks.NAME]`: never a key, a token or a URL.
 */
export type PollResult = 'changed' | 'unchanged' | 'not_modified' | 'error';

export interface LiveListener {
  /** Subscriptions of a field began (`delta` 1) or ended (-1). */
  onActive?(coordinate: string, delta: number): void;
  /** One group's poll settled: a changed result, the same one, a 304, or an error at the field's path. */
  onPoll?(coordinate: string, result: PollResult): void;
  /** Events sent to subscribers of a field. */
  onEvents?(coordinate: string, count: number): void;
  /** A webhook delivery was verified and acted on (`accepted`) or refused (401, or too large). */
  onWebhook?(name: string, result: 'accepted' | 'refused'): void;
}
