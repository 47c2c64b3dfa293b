import { isGraphQLName, OTHER_LABEL } from './bounded-label.js';

/**
 * The `operation` label of the per-operation series: bounded, and never used up by a client.
 *
 * Contract of `value(name)`:
 * - A pinned name (`pin`: the operation names of the trusted documents, `persisted_documents`) is
 *   always its own label, and takes no slot.
 * - Any other GraphQL Name of at most 100 characters is its own label while it holds one of `cap`
 *   slots. Each slot has a score that grows by one per operation and halves every `halfLifeMs`. A
 *   name without a slot takes the slot of the lowest score when that score is at most 1 (a name
 *   seen about once in the last half-life): the name it replaces is handed to `onEvict`, which
 *   removes its series. When every slot is in real use (scores above 1), the name is `other`.
 * - Anything else is `other`.
 * So a flood of one-off names only ever displaces other one-off names: a name in regular use keeps
 * its label, and a new real name still gets one. There are never more than `cap` + pinned values
 * (+ `other`) at once.
 */
export class OperationLabels {
  private pinned: ReadonlySet<string> = new Set();
  private readonly slots = new Map<string, { score: number; at: number }>();

  constructor(
    private readonly cap: number,
    private readonly halfLifeMs: number,
    private readonly onEvict: (name: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Replaces the pinned names; a name no longer pinned loses its series. */
  pin(names: Iterable<string>): void {
    const next = new Set([...names].filter(isGraphQLName));
    for (const old of this.pinned) if (!next.has(old) && !this.slots.has(old)) this.onEvict(old);
    for (const name of next) this.slots.delete(name);
    this.pinned = next;
  }

  value(name: string): string {
    if (this.pinned.has(name)) return name;
    const now = this.now();
    const slot = this.slots.get(name);
    if (slot) {
      slot.score = this.decayed(slot, now) + 1;
      slot.at = now;
      return name;
    }
    if (!isGraphQLName(name) || name === OTHER_LABEL) return OTHER_LABEL;
    if (this.slots.size >= this.cap && !this.evictColdest(now)) return OTHER_LABEL;
    this.slots.set(name, { score: 1, at: now });
    return name;
  }

  private decayed(slot: { readonly score: number; readonly at: number }, now: number): number {
    return slot.score * 2 ** (-(now - slot.at) / this.halfLifeMs);
  }

  /** Gives up the slot of the lowest score when it is at most 1; false when every slot is in use. */
  private evictColdest(now: number): boolean {
    let coldest: string | undefined;
    let lowest = Infinity;
    for (const [name, slot] of this.slots) {
      const score = this.decayed(slot, now);
      if (score < lowest) {
        lowest = score;
        coldest = name;
      }
    }
    if (coldest === undefined || lowest > 1) return false;
    this.slots.delete(coldest);
    this.onEvict(coldest);
    return true;
  }
}
