/** Waiting in tests: for a condition to hold, never for a fixed time where a condition can be checked. */

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `read` every `everyMs` until `done` holds on its value, for at most `limitMs` (generous: a
 * poll ends as soon as it holds); returns the last value read (the caller asserts on it, so a timeout fails with what was seen).
 */
export async function pollUntil<T>(read: () => T | Promise<T>, done: (value: T) => boolean, limitMs = 5000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + limitMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(everyMs);
    value = await read();
  }
  return value;
}

/** Waits until `check()` is true, polling every 10 ms, for at most `ms`; returns whether it became true. */
export async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  return pollUntil(check, (ok) => ok, ms, 10);
}

/**
 * Waits for a condition that another party makes true (an upstream receiving a request, an entry
 * expiring), polling every 5 ms; rejects with `what` after `limitMs`, so a test that waits for
 * something that never happens fails with its reason instead of hanging.
 *
 *   await until(() => users.count('GET /users/:id') === 1, 'the leader reached the source');
 */
export async function until(condition: () => boolean, what: string, limitMs = 3000): Promise<void> {
  if (!(await pollUntil(condition, (ok) => ok, limitMs, 5))) throw new Error(`gave up after ${limitMs} ms waiting for: ${what}`);
}

/**
 * Lets this process's event loop go round `turns` times: bytes already written to a loopback socket
 * or pipe by then have been read. For asserting that something did NOT happen in answer to what a
 * test just did in this process, where there is no event to wait for.
 */
export async function loopTurns(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}
