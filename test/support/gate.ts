/** Holds a route's answers while closed: the route awaits `passed()`, `open()` lets every one through. */
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
