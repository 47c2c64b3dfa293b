/**
 * Metrics summed over the workers of `gqlgw serve --workers N` (docs/scale-out.md).
 *
 * Whichever worker accepts a scrape of the metrics path asks the primary process over the cluster's
 * IPC channel; the primary collects every connected worker's registry with prom-client's
 * AggregatorRegistry (each worker answers with its registry as JSON) and replies with the
 * Prometheus text of the aggregate. Counters and histograms are summed per label set; Node's
 * process gauges follow prom-client's own aggregators (memory and CPU summed, event-loop lag
 * averaged, start time left out). A scrape therefore sees the whole process group, whichever
 * worker it reaches, and never one worker alone.
 *
 * Primary: `answerClusterMetrics()` once. Worker: `clusterMetricsRenderer(registry)` once, before
 * the first scrape can arrive (the primary may ask this worker for its registry at any time).
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const ASK = 'gqlgw:metrics-ask';
const ANSWER = 'gqlgw:metrics-answer';
/** A worker gives up on the primary after this long (prom-client's own collection gives up after 5 s). */
const ANSWER_TIMEOUT_MS = 10_000;

interface Ask {
  readonly type: typeof ASK;
  readonly id: number;
}
interface Answer {
  readonly type: typeof ANSWER;
  readonly id: number;
  readonly text?: string;
  readonly error?: string;
}

function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

/** In the primary: answers every worker's request for the summed metrics text. */
export function answerClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage<Ask>(message, ASK)) return;
    const reply = (answer: Answer): void => {
      if (worker.isConnected()) worker.send(answer);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ type: ANSWER, id: message.id, text }),
      (err: unknown) => reply({ type: ANSWER, id: message.id, error: err instanceof Error ? err.message : String(err) }),
    );
  });
}

/**
 * In a worker: offers `registry` to the primary's collection and returns the renderer of the
 * metrics path, which resolves with the sum over all workers (or rejects when the primary does not
 * answer).
 */
export function clusterMetricsRenderer(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's listener that answers the primary's collection.
  new AggregatorRegistry();
  const waiting = new Map<number, { resolve(text: string): void; reject(err: Error): void; timer: NodeJS.Timeout }>();
  let nextId = 0;
  process.on('message', (message: unknown) => {
    if (!isMessage<Answer>(message, ANSWER)) return;
    const pending = waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id);
    clearTimeout(pending.timer);
    if (message.text !== undefined) pending.resolve(message.text);
    else pending.reject(new Error(`metrics of the workers: ${message.error ?? 'no answer'}`));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('metrics of the workers: the primary process did not answer'));
      }, ANSWER_TIMEOUT_MS);
      waiting.set(id, { resolve, reject, timer });
      const ask: Ask = { type: ASK, id };
      const failed = (): void => {
        waiting.delete(id);
        clearTimeout(timer);
        reject(new Error('metrics of the workers: no channel to the primary process'));
      };
      if (!process.send || !process.connected) return failed();
      process.send(ask, undefined, undefined, (err: Error | null) => {
        if (err) failed();
      });
    });
}
