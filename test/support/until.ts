/**
 * Waits for a condition that another party makes true (an upstream receiving a request, an entry
 * expiring): polls `condition` every 5 ms and resolves once it holds; rejects with `what` after
 * `limitMs`, so a test that waits for something that never happens fails instead of hanging.
 *
 *   await until(() => users.count('GET /users/:id') === 1, 'the leader reached the source');
 */
export async function until(condition: () => boolean, what: string, limitMs = 3000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up after ${limitMs} ms waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
