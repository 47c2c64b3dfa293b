import type { FieldNode } from 'graphql';
import type { FieldOutcome } from '../../upstream/outcome.js';
import type { OutcomeSlot } from './memo-entry.js';
import { appended } from '../../util/appended.js';
import { FirstKeyMap } from '../../util/first-key-map.js';

/**
 * Results of lookups, by field node and parent object: what the response writer and shaper read.
 * Each field keeps its claims in the order they were made (FieldSlots); each claim holds the slot
 * its lookup fills, so answering a lookup touches nothing here. The store lives as long as its
 * request.
 */
export class ResultStore {
  /**
   * Made on first use: most requests have no namespace field. A plain Map, not a WeakMap: the
   * store dies with its request, and a WeakMap per request costs every major GC (ephemerons).
   */
  private namespaces: Map<object, Map<string, object>> | undefined;
  private readonly byField = new FirstKeyMap<FieldNode, FieldSlots>();
  /** The field used last and its slots: the walk and the writer go through a list's items field by field. */
  private lastNode: FieldNode | undefined;
  private lastSlots: FieldSlots | undefined;

  /**
   * Takes this field of this parent for `slot`, whose outcome `get` then reads; false (and the slot
   * not kept) when this parent already had this field looked up.
   */
  claim(parent: object, node: FieldNode, slot: OutcomeSlot): boolean {
    const slots = this.slotsFor(node);
    if (slots.has(parent)) return false;
    slots.append(parent, slot);
    return true;
  }

  /**
   * claim() for a (parent, field) the caller knows was not claimed before: no check. A round knows
   * it for a lookup that made a new memo entry (a claim before would have made that entry).
   */
  claimNew(parent: object, node: FieldNode, slot: OutcomeSlot): void {
    this.slotsFor(node).append(parent, slot);
  }

  /** The outcome of the field's lookup for this parent; undefined when not claimed or not answered yet. */
  get(parent: object, node: FieldNode): FieldOutcome | undefined {
    if (node !== this.lastNode) {
      this.lastNode = node;
      this.lastSlots = this.byField.get(node);
    }
    return this.lastSlots?.slotOf(parent)?.outcome;
  }

  private slotsFor(node: FieldNode): FieldSlots {
    let slots = node === this.lastNode ? this.lastSlots : this.byField.get(node);
    if (!slots) {
      slots = new FieldSlots();
      this.byField.add(node, slots);
    }
    this.lastNode = node;
    this.lastSlots = slots;
    return slots;
  }

  /**
   * Completed objects (docs/federation.md): each partial object's merged
   * replacement, and every object that is complete already (a merge, an `_entities` entry), so
   * nothing completes twice. Made on first use, like `namespaces`.
   */
  private completions: Map<object, object> | undefined;
  private complete: Set<object> | undefined;

  /** Whether any object of this request was completed or is an `_entities` entry (the JSON writer then steps aside). */
  get hasCompletions(): boolean {
    return this.complete !== undefined;
  }

  /** Records `merged` as what `partial` stands for, and both as complete. */
  setCompleted(partial: object, merged: object): void {
    (this.completions ??= new Map()).set(partial, merged);
    this.markComplete(merged);
    this.complete!.add(partial);
  }

  markComplete(object: object): void {
    (this.complete ??= new Set()).add(object);
  }

  isComplete(object: object): boolean {
    return this.complete?.has(object) === true;
  }

  /** The object a field's value stands for: a completed object's merge, item by item for a list. */
  completedValue(value: unknown): unknown {
    const completions = this.completions;
    if (completions === undefined || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const merged = item !== null && typeof item === 'object' ? completions.get(item) : undefined;
        if (merged !== undefined) (out ??= value.slice())[i] = merged;
      }
      return out ?? value;
    }
    return completions.get(value) ?? value;
  }

  /** The merge `partial` was completed into; undefined when it was not. */
  completedOf(partial: object): object | undefined {
    return this.completions?.get(partial);
  }

  /**
   * The empty object a namespace field (docs/reference.md) stands for under `parent` when the parent
   * has no value for it: one per (parent, key) and request, so the walk and the shaper see the same.
   */
  namespace(parent: object, key: string): object {
    this.namespaces ??= new Map();
    let m = this.namespaces.get(parent);
    if (!m) {
      m = new Map();
      this.namespaces.set(parent, m);
    }
    let ns = m.get(key);
    if (!ns) {
      ns = {};
      m.set(key, ns);
    }
    return ns;
  }
}

/**
 * One field's claims: parents and their slots in two arrays, in claim order. The writer reads a
 * field's values in the order the walk found its parents (both go through the selection depth
 * first and through lists in order), so a read is usually the next claim: one comparison, no
 * hashing; a read of the first claim starts a new pass (the measure, then the writer). A map from
 * parent to index is built only when something asks out of that order (a parent repeated in a
 * list, graphql-js's shaper, a claim that must be checked), and kept up to date from then on. N in-order lookups of a field then cost 2N array appends and N comparisons,
 * where a map per field costs a hashed insert with growth and a hashed read each (docs/performance.md).
 */
class FieldSlots {
  // Made with the field's first claim, as one-element arrays (appended.ts): most fields of most requests have one claim.
  private parents: object[] = [];
  private slots: OutcomeSlot[] = [];
  /** Where the next in-order read is expected. */
  private next = 0;
  /** Parent → index of its claim; made on the first read or check out of order. */
  private index: Map<object, number> | undefined;

  has(parent: object): boolean {
    return this.indexed().has(parent);
  }

  append(parent: object, slot: OutcomeSlot): void {
    this.index?.set(parent, this.parents.length);
    this.parents = appended(this.parents, parent);
    this.slots = appended(this.slots, slot);
  }

  slotOf(parent: object): OutcomeSlot | undefined {
    let i = this.next;
    // A new pass over the field's claims (the answer's measure, then the writer) starts at the first.
    if (this.parents[i] !== parent && this.parents[0] === parent) i = 0;
    if (this.parents[i] === parent) {
      this.next = i + 1;
      return this.slots[i];
    }
    const at = this.indexed().get(parent);
    if (at === undefined) return undefined;
    this.next = at + 1;
    return this.slots[at];
  }

  private indexed(): Map<object, number> {
    if (!this.index) {
      this.index = new Map();
      for (let i = 0; i < this.parents.length; i++) this.index.set(this.parents[i]!, i);
    }
    return this.index;
  }
}
