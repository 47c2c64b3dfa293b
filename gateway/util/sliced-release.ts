/** How many waiters one turn of the event loop answers. */
export const RELEASE_SLICE = 4;
/** A call with at most this many waiters answers them all at once. */
export const RELEASE_ALL_UP_TO = 16;

const RESOLVED: Promise<void> = Promise.resolve();

/**
 * The waiters of a call shared by many requests (a chunk shared across requests,
 * batch-collector.ts), answered a slice at a time, one event-loop turn apart.
 *
 * Contract:
 * - `waiter()` is a promise that resolves once the call is released and this waiter's slice has
 *   come; it never rejects. After `release()`, `waiter()` resolves at once. `whenReleased(f)` is the
 *   same wait with a callback: `f` is called then (after `release()`, in a microtask).
 * - `release()` answers every waiter at once when there are at most RELEASE_ALL_UP_TO. Else it
 *   answers RELEASE_SLICE of them at once, in the order they began to wait, and each next slice in
 *   a later turn (`setImmediate`), so that the requests answered first are written, and their
 *   clients' next queries read and sent, while the rest are answered: the answers of one call shared
 *   by many requests do not leave in one burst during which no new query can be read (docs/caching.md).
 * - A waiter that has gone meanwhile (its caller aborted) still takes its place in a slice; its
 *   resolution is ignored.
 */
export class SlicedRelease {
  private waiting: Array<() => void> = [];
  private released = false;

  waiter(): Promise<void> {
    if (this.released) return RESOLVED;
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** `then` is called when this waiter's slice comes (at once when released): `waiter()` without a promise. */
  whenReleased(then: () => void): void {
    if (this.released) queueMicrotask(then);
    else this.waiting.push(then);
  }

  release(): void {
    this.released = true;
    if (this.waiting.length <= RELEASE_ALL_UP_TO) {
      for (const resolve of this.waiting) resolve();
      this.waiting = [];
    } else this.next();
  }

  private readonly next = (): void => {
    const waiting = this.waiting;
    const end = Math.min(RELEASE_SLICE, waiting.length);
    for (let i = 0; i < end; i++) waiting[i]!();
    if (end === waiting.length) {
      this.waiting = [];
      return;
    }
    this.waiting = waiting.slice(end);
    setImmediate(this.next);
  };
}
