/**
 * A map that holds its first key in two fields and makes a `Map` only at a second key: most of a
 * request's keyed state (a field's claims by field node, argument values by plan entry) has one
 * key or two, and an empty `Map` that takes one entry costs about 190 bytes (docs/performance.md
 * "Allocation per request"). Keys compare by identity, as in a `Map`; `undefined` is no key.
 */
export class FirstKeyMap<K, V> {
  private firstKey: K | undefined;
  private firstValue: V | undefined;
  private rest: Map<K, V> | undefined;

  get(key: K): V | undefined {
    return key === this.firstKey ? this.firstValue : this.rest?.get(key);
  }

  /** Adds `key` (never one it holds already: callers `get` first). */
  add(key: K, value: V): void {
    if (this.firstKey === undefined) {
      this.firstKey = key;
      this.firstValue = value;
    } else (this.rest ??= new Map()).set(key, value);
  }
}
