import type { Deadline } from './deadline.js';

/**
 * Which of one source's requests may go to its connection pool now: at most `limit` at once (the
 * pool's connection count); the rest wait here, first come first served, until one finishes.
 *
 * Why the gateway queues rather than undici: a request waiting in undici's own queue whose signal
 * aborts (its client went away, or its deadline passed) is still handed a keep-alive connection
 * later, and undici then aborts it by destroying that connection, which was never written to.
 * So every lookup still queued when its client left cost the source a new connection
 * (test/hardening/lifecycle.test.ts: 20 for 20), and a round of many single fetches paid one
 * reconnect for each (docs/performance.md). A request waiting here just leaves the queue when its deadline
 * aborts, and undici only ever sees requests it can send at once.
 */
export class Admission {
  private running = 0;
  /** Waiters in arrival order from `head`; a waiter whose deadline aborted stays as a hole. */
  private queue: Array<Waiter | undefined> = [];
  private head = 0;

  constructor(private readonly limit: number) {}

  /**
   * Admits a request under `deadline`: undefined when it may run at once, else a promise that
   * resolves when its turn comes or rejects with the deadline's reason when the deadline aborts
   * first (it then holds no place). Every admitted request calls `release()` once it is done.
   */
  enter(deadline: Deadline): Promise<void> | undefined {
    if (deadline.aborted) return Promise.reject(deadline.reason);
    if (this.running < this.limit) {
      this.running++;
      return undefined;
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        deadline,
        onAbort: () => {
          this.queue[waiter.index] = undefined;
          reject(deadline.reason);
        },
        index: this.queue.length,
      };
      this.queue.push(waiter);
      deadline.addEventListener('abort', waiter.onAbort);
    });
  }

  /** A request admitted earlier is done: the next waiter, if any, takes its place. */
  release(): void {
    while (this.head < this.queue.length) {
      const next = this.queue[this.head];
      this.queue[this.head++] = undefined;
      if (next === undefined) continue;
      next.deadline.removeEventListener('abort', next.onAbort);
      this.compact();
      next.resolve();
      return;
    }
    this.running--;
    if (this.queue.length === 0) return; // the usual case: nobody waited (no array per release)
    this.queue = [];
    this.head = 0;
  }

  /** Drops the consumed front of the queue once it is most of it, so the array stays bounded. */
  private compact(): void {
    if (this.head < 1024 || this.head * 2 < this.queue.length) return;
    this.queue = this.queue.slice(this.head);
    for (let i = 0; i < this.queue.length; i++) {
      const w = this.queue[i];
      if (w) w.index = i;
    }
    this.head = 0;
  }
}

interface Waiter {
  readonly resolve: () => void;
  readonly deadline: Deadline;
  readonly onAbort: () => void;
  /** Its position in `queue` (kept in step by compact()). */
  index: number;
}
