/**
 * What cancels work: the parts of an AbortSignal the gateway uses. An AbortSignal is one (yoga's
 * requests carry theirs); the gateway's own are Cancellers.
 */
export interface Abortable {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Up to this many listeners are kept in an array, in order; past it, in a Set (see Canceller). */
const FEW = 8;

/**
 * A lighter AbortSignal. Every listener is called once, on the first abort, in the order added, and
 * a listener added after it is never called, as with an AbortSignal; adding one twice keeps it once.
 * Each upstream request listens on its deadline (upstream/exchange.ts). Past `maxListeners` it warns
 * once, as Node does past 10 on an AbortSignal (MaxListenersExceededWarning): what should hold a few
 * listeners at a time (a connection's signal) says so when they pile up.
 *
 * How the listeners are kept:
 * - A few (up to FEW) in an array, added at the end and removed by shifting the rest down. A
 *   connection's signal lives as long as its connection and takes a listener or two from every
 *   request on it; an array never reallocates at that size, where a Set's hash table is rebuilt
 *   every few additions. V8 rebuilds an old Set's table in the old generation, and the tables left
 *   behind keep the listeners they held (and what those reach: a request's deadline, its
 *   exchanges) alive until the next mark-compact (docs/performance.md "What the promotion was").
 * - More in a Set, so that adding and removing one costs the same however many there are (an
 *   EventTarget or EventEmitter scans them on removal: quadratic when a hundred requests share one
 *   deadline and leave it one by one). Such a signal is a round's deadline, which dies young.
 */
export class Canceller implements Abortable {
  aborted = false;
  reason: unknown = undefined;
  private few: Array<() => void> = [];
  private many: Set<() => void> | undefined;
  private warned = false;

  constructor(private readonly maxListeners = Infinity) {}

  /** Listeners waiting for the abort. */
  get listenerCount(): number {
    return this.many ? this.many.size : this.few.length;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    if (this.many) {
      this.many.add(listener);
    } else if (!this.few.includes(listener)) {
      if (this.few.length < FEW) {
        this.few.push(listener);
      } else {
        this.many = new Set(this.few);
        this.many.add(listener);
        this.few = [];
      }
    }
    if (this.listenerCount > this.maxListeners && !this.warned) {
      this.warned = true;
      process.emitWarning(
        `Possible abort listener leak: ${this.listenerCount} listeners on one signal (at most ${this.maxListeners} expected)`,
        'MaxListenersExceededWarning',
      );
    }
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.many) {
      this.many.delete(listener);
      return;
    }
    const few = this.few;
    const at = few.indexOf(listener);
    if (at < 0) return;
    for (let i = at + 1; i < few.length; i++) few[i - 1] = few[i]!;
    few.pop();
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.many ? [...this.many] : this.few;
    this.many = undefined;
    this.few = [];
    for (const listener of listeners) listener();
  }
}
