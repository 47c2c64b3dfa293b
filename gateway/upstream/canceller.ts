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

/**
 * A lighter AbortSignal: the listeners are a Set, so adding and removing one costs the same however
 * many there are (an EventTarget or EventEmitter scans them on removal: quadratic when a hundred
 * requests share one signal and leave it one by one). Every listener is called once, on the first
 * abort, and a listener added after it is never called, as with an AbortSignal. Each upstream
 * request listens on its deadline (upstream/exchange.ts). Past `maxListeners` it warns once, as Node
 * does past 10 on an AbortSignal (MaxListenersExceededWarning): what should hold a few listeners at
 * a time (a connection's signal) says so when they pile up.
 */
export class Canceller implements Abortable {
  aborted = false;
  reason: unknown = undefined;
  private readonly listeners = new Set<() => void>();
  private warned = false;

  constructor(private readonly maxListeners = Infinity) {}

  /** Listeners waiting for the abort. */
  get listenerCount(): number {
    return this.listeners.size;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    this.listeners.add(listener);
    if (this.listeners.size > this.maxListeners && !this.warned) {
      this.warned = true;
      process.emitWarning(
        `Possible abort listener leak: ${this.listeners.size} listeners on one signal (at most ${this.maxListeners} expected)`,
        'MaxListenersExceededWarning',
      );
    }
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners.delete(listener);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const listener of listeners) listener();
  }
}
