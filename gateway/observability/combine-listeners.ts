/**
 * One ExecutionListener that forwards every event to each given listener in order, e.g. the
 * process-wide metrics listener and a per-request debug-header counter. A listener that throws
 * does not stop the others and never reaches the executor.
 */
import type { ExecutionListener } from '../execute/listener.js';

type EventName = keyof ExecutionListener;
const EVENTS: readonly EventName[] = ['onSubrequest', 'onCache', 'onDedupe', 'onOperation'];

export function combineListeners(...listeners: ReadonlyArray<ExecutionListener | undefined>): ExecutionListener {
  const present = listeners.filter((l): l is ExecutionListener => l !== undefined);
  const combined: ExecutionListener = {};
  for (const name of EVENTS) {
    const handlers = present.filter((l) => typeof l[name] === 'function');
    if (handlers.length === 0) continue;
    const forward = (event: unknown): void => {
      for (const listener of handlers) {
        try {
          (listener[name] as (e: unknown) => void).call(listener, event);
        } catch {
          // A listener must not throw (listener.ts); if one does, the query goes on.
        }
      }
    };
    (combined as Record<EventName, (event: unknown) => void>)[name] = forward;
  }
  return combined;
}
