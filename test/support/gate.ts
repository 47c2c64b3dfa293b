/**
 * Holds a route's answers while closed, so a test can let every request reach (or join) the call in
 * flight before the source answers: counts, never clocks.
 *
 *   gate.close(); ... 'GET /slow': async () => { await gate.passed(); return { json: ... } } ... gate.open();
 */
export class Gate {
  private promise: Promise<void> = Promise.resolve();
  private release: () => void = () => undefined;

  close(): void {
    this.promise = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  open(): void {
    this.release();
    this.promise = Promise.resolve();
  }

  passed(): Promise<void> {
    return this.promise;
  }
}
