import { Counter, Gauge, type Registry } from 'prom-client';
import type { LiveListener, PollResult } from '../live/listener.js';

const POLL_RESULTS: readonly PollResult[] = ['changed', 'unchanged', 'not_modified', 'error'];

/**
 * The live-data series (docs/live-data.md "Metrics"), registered once per process in the gateway's
 * registry. Labels are schema coordinates of Subscription fields and `[webhooks.NAME]` names: both
 * bounded by the config and schema. Recording never throws.
 */
export function createLiveMetrics(registry: Registry): Required<LiveListener> {
  const registers = [registry];
  const active = new Gauge({
    name: 'gqlgw_subscriptions_active',
    help: 'Subscriptions open now, per polled Subscription field.',
    labelNames: ['coordinate'],
    registers,
  });
  const polls = new Counter({
    name: 'gqlgw_poll_calls_total',
    help: 'Polls of subscriber groups (one per group per tick or webhook); result is "changed", "unchanged", "not_modified" (a 304) or "error".',
    labelNames: ['coordinate', 'result'],
    registers,
  });
  const deliveries = new Counter({
    name: 'gqlgw_webhook_deliveries_total',
    help: 'Webhook deliveries; result is "accepted" (signature verified, 204) or "refused" (401, or a body over 1 MB).',
    labelNames: ['name', 'result'],
    registers,
  });
  const events = new Counter({
    name: 'gqlgw_subscription_events_total',
    help: 'Events sent to subscribers, per polled Subscription field.',
    labelNames: ['coordinate'],
    registers,
  });
  const safe =
    <A extends unknown[]>(record: (...args: A) => void) =>
    (...args: A): void => {
      try {
        record(...args);
      } catch {
        // A metric must never fail a stream.
      }
    };
  return {
    onActive: safe((coordinate: string, delta: number) => active.inc({ coordinate }, delta)),
    onPoll: safe((coordinate: string, result: PollResult) =>
      polls.inc({ coordinate, result: POLL_RESULTS.includes(result) ? result : 'error' }),
    ),
    onEvents: safe((coordinate: string, count: number) => events.inc({ coordinate }, count)),
    onWebhook: safe((name: string, result: 'accepted' | 'refused') => deliveries.inc({ name, result })),
  };
}
