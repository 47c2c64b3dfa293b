/**
 * `list` with `item` at its end, as the array to keep: a new one-element array when `list` is
 * empty, else `list` itself, pushed. The first push onto an empty array makes room for 17 elements
 * (about 180 bytes, against about 40 for `[item]`), and most of a request's lists hold one or two:
 * its lookups of a round, a field's claims, a batch group's keys (docs/performance.md "Allocation
 * per request").
 */
export function appended<T>(list: T[], item: T): T[] {
  if (list.length === 0) return [item];
  list.push(item);
  return list;
}
