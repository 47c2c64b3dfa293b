import type { ServerResponse } from 'node:http';

const SLOT = Symbol('gqlgw.inFlightSlot');
type Slotted = ServerResponse & { [SLOT]?: number };

/**
 * The responses in flight (server/lifecycle.ts): each takes a slot of an array, and a closed
 * response gives its slot back for the next one.
 *
 * Why not a Set: a Set's table is rebuilt every few additions as responses come and go, and
 * once the Set has lived through a mark-compact, V8 allocates each new table in the old
 * generation, like the one it replaces. A table left behind still points at the responses it
 * held. Until the next mark-compact, those dead old tables keep every finished response alive,
 * and with it its request, through two scavenges, so all of it is promoted (docs/performance.md
 * "What the promotion was").
 * Here a closed response's slot is overwritten with `undefined`, and the array is only
 * reallocated when more responses are in flight at once than ever before.
 */
export class InFlightResponses {
  private readonly slots: Array<ServerResponse | undefined> = [];
  private readonly free: number[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(res: ServerResponse): void {
    const slot = this.free.pop() ?? this.slots.length;
    this.slots[slot] = res;
    (res as Slotted)[SLOT] = slot;
    this.count++;
  }

  /** Forgets `res`; false when it was not in flight (never added, or already deleted). */
  delete(res: ServerResponse): boolean {
    const slot = (res as Slotted)[SLOT];
    if (slot === undefined || this.slots[slot] !== res) return false;
    this.slots[slot] = undefined;
    this.free.push(slot);
    this.count--;
    return true;
  }

  *[Symbol.iterator](): IterableIterator<ServerResponse> {
    for (const res of this.slots) if (res !== undefined) yield res;
  }
}
