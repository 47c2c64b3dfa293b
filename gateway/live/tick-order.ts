/** What a tick orders: a group's header partition and its keys (both strings, fixed for its life). */
export interface Ordered {
  readonly partition: string;
  readonly keysKey: string;
}

/**
 * The groups of one polled field in the order a tick polls them (docs/live-data.md "Ticks"):
 * grouped by header partition, then by keys, so the groups of one partition and one key are next
 * to each other. A tick cuts this order into slices ({@link slices}) that share batch chunks and
 * calls as the whole tick would.
 */
export class TickOrder<G extends Ordered> {
  private readonly partitions = new Map<string, Map<string, Set<G>>>();

  add(group: G): void {
    let byKey = this.partitions.get(group.partition);
    if (!byKey) this.partitions.set(group.partition, (byKey = new Map()));
    let same = byKey.get(group.keysKey);
    if (!same) byKey.set(group.keysKey, (same = new Set()));
    same.add(group);
  }

  delete(group: G): void {
    const byKey = this.partitions.get(group.partition);
    const same = byKey?.get(group.keysKey);
    if (!byKey || !same?.delete(group) || same.size > 0) return;
    byKey.delete(group.keysKey);
    if (byKey.size === 0) this.partitions.delete(group.partition);
  }

  /** The groups whose keys are exactly `keysKey` (a webhook's key: the groups of one-key fields), every partition. */
  *withKeys(keysKey: string): Generator<G> {
    for (const byKey of this.partitions.values()) yield* byKey.get(keysKey) ?? [];
  }

  /**
   * The groups `take` accepts, in slices of about `size` groups. A slice ends only between keys
   * and where a partition's key count is a multiple of `perChunk` (a `@batch` field's `max`, else
   * 1): a slice's keys of one partition fill whole chunks, so the slices of a tick cost the calls
   * the tick would cost at once, and groups of one key (one subrequest) are never split.
   */
  slices(size: number, perChunk: number, take: (group: G) => boolean): G[][] {
    const out: G[][] = [];
    let slice: G[] = [];
    for (const byKey of this.partitions.values()) {
      let keys = 0;
      for (const same of byKey.values()) {
        if (slice.length >= size && keys % perChunk === 0) {
          out.push(slice);
          slice = [];
        }
        keys++;
        for (const group of same) if (take(group)) slice.push(group);
      }
    }
    if (slice.length > 0) out.push(slice);
    return out;
  }
}
