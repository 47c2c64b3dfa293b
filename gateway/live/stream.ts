import type { ExecutionResult } from 'graphql';

/**
 * What a transport may take a stream's results with instead of iterating it: `next` gets each
 * result as it is pushed (with its JSON when the pusher has it), `end` once after the last. Neither may throw.
 */
export interface LiveSink {
  next(result: ExecutionResult, json: string | undefined): void;
  end(): void;
}

/**
 * One subscriber's stream of results (docs/live-data.md): what a transport (graphql-sse,
 * graphql-ws) iterates. Results are pushed in order and never dropped; `end` completes it after
 * what was pushed; the transport's `return()` (the client left) ends it at once and tells its owner.
 */
export class LiveStream implements AsyncIterableIterator<ExecutionResult> {
  private readonly queue: ExecutionResult[] = [];
  private waiting: ((result: IteratorResult<ExecutionResult>) => void) | undefined;
  private done = false;
  /** Whether it was sent anything yet (its first event). */
  received = false;
  /** What its owner files it under (the poll group, gateway/live/polled-field.ts). */
  owner: unknown;
  private sink: LiveSink | undefined;

  constructor(private readonly onEnd: (stream: LiveStream) => void) {}

  get ended(): boolean {
    return this.done;
  }

  /** `json`: `JSON.stringify(result)`, when the pusher made it (one string for every subscriber it pushes to). */
  push(result: ExecutionResult, json?: string): void {
    if (this.done) return;
    this.received = true;
    if (this.sink) return this.sink.next(result, json);
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value: result, done: false });
    } else this.queue.push(result);
  }

  /** Completes the stream after what it holds (and `last`, when given); its owner forgets it. */
  end(last?: ExecutionResult): void {
    if (this.done) return;
    if (last) this.push(last);
    this.done = true;
    this.onEnd(this);
    this.sink?.end();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  /** Hands `sink` what the stream holds, then every later result, and its end: the stream is not iterated then. */
  pipe(sink: LiveSink): void {
    this.sink = sink;
    for (const result of this.queue.splice(0)) sink.next(result, undefined);
    if (this.done) sink.end();
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    if (this.queue.length > 0) return Promise.resolve({ value: this.queue.shift()!, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    this.queue.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(): Promise<IteratorResult<ExecutionResult>> {
    return this.return();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ExecutionResult> {
    return this;
  }
}
