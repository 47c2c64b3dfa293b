/**
 * Whether a JSON value nests objects and arrays more than `max` levels deep, found without
 * recursion (the value may be deep enough to exhaust the stack of anything that recurses).
 * Used for what the schema does not bound: request variables and custom-scalar values.
 */
export function deeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  let level: unknown[] = [value];
  for (let depth = 1; level.length > 0; depth++) {
    if (depth > max) return true;
    const next: unknown[] = [];
    for (const v of level) {
      for (const child of Array.isArray(v) ? v : Object.values(v as object)) {
        if (child !== null && typeof child === 'object') next.push(child);
      }
    }
    level = next;
  }
  return false;
}
