import type { GraphQLError } from 'graphql';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PlanEntry, PlanSelection } from '../../plan/types.js';
import { ownValue, readDotted } from '../../../directives/dotted.js';
import type { ResultStore } from '../send/result-store.js';
import { concreteTypeOf } from '../ask/concrete-type.js';
import { conditionsHold } from '../ask/conditions.js';
import { responseLimit } from '../../errors.js';

/** `[limits]` on the answer itself (docs/hardening.md "Limits"). */
export interface AnswerLimits {
  /** limits.max_result_nodes: values written (every field value and list item). */
  readonly maxNodes: number;
  /** limits.max_response_bytes: the serialised answer. */
  readonly maxBytes: number;
}

/** Raised when an operation's answer would go over a limit of the answer: 400 RESPONSE_LIMIT, nothing sent. */
export class ResponseLimitError extends Error {
  constructor(
    readonly key: 'max_result_nodes' | 'max_response_bytes',
    readonly limit: number,
  ) {
    super(
      key === 'max_result_nodes'
        ? `the answer would have more than ${limit} values (limits.max_result_nodes); ask for less data per query`
        : `the answer would be larger than ${limit} bytes (limits.max_response_bytes); ask for less data per query`,
    );
  }
}

/** The request error an answer over a limit gets (the executor's, and answers.ts' exact byte check). */
export function responseLimitError(err: ResponseLimitError): GraphQLError {
  return responseLimit(err.message, err.key, err.limit);
}

/**
 * The one comparison of limits.max_response_bytes: whether an answer of `bytes` is over `limit`.
 * The walk's estimate (measureAnswer), the data writer's meter (WriteMeter) and the exact bytes of
 * what would be sent (server/answers.ts, through `textOverResponseLimit`) all ask it.
 */
export function overResponseLimit(bytes: number, limit: number): boolean {
  return bytes > limit;
}

/**
 * Whether the UTF-8 bytes of `text` are over `limit` (undefined: no bound). A text whose every
 * UTF-16 unit could take 3 bytes and still fits is not measured.
 */
export function textOverResponseLimit(text: string, limit: number | undefined): boolean {
  if (limit === undefined || !overResponseLimit(text.length * 3, limit)) return false;
  return overResponseLimit(Buffer.byteLength(text), limit);
}

/** The most values the data writer writes on its own; a larger answer is measured by the walk first, which yields. */
const WRITE_MAX_NODES = 20_000;

/**
 * What the data writer (execute/answer/write-data.ts) counts while it writes a plain success, so that such
 * an answer needs no measuring walk: at least what measureAnswer would count, never less: every
 * field node's value and list item a node, and bytes as the walk estimates them (key and
 * punctuation per field node, a string's length + 2, 8 for any other value, 9 per list item plus
 * its string's length). Each of the field nodes of one response key counts (a field asked twice
 * counts twice though its text is written once), as each is one of the walk's plan entries. The writer checks the meter at every object and list, and stops (`stopped`,
 * giving up) past `maxNodes` or `maxBytes`: a write allocates about an answer's worth before it
 * stops. A meter from `limits` stops at WRITE_MAX_NODES too, so that a large answer is left to the
 * walk, which yields to the event loop.
 */
export class WriteMeter {
  nodes = 0;
  /** The root object's braces. */
  bytes = 2;
  stopped = false;

  private constructor(
    readonly maxNodes: number,
    readonly maxBytes: number,
    private readonly limits: AnswerLimits | undefined,
  ) {}

  /** A meter for a write that replaces the measuring walk. */
  static within(limits: AnswerLimits): WriteMeter {
    return new WriteMeter(Math.min(limits.maxNodes, WRITE_MAX_NODES), limits.maxBytes, limits);
  }

  /** A meter that never stops: for a write after the walk has measured the answer. */
  static unbounded(): WriteMeter {
    return new WriteMeter(Infinity, Infinity, undefined);
  }

  /** Called by the writer when a count is over: it gives up. */
  stop(): undefined {
    this.stopped = true;
    return undefined;
  }

  /** Whether a count is over its bound: the generated writer asks at every object and list (write-data.ts), and gives up. */
  over(): boolean {
    return this.nodes > this.maxNodes || overResponseLimit(this.bytes, this.maxBytes);
  }

  /** Whether `written` is an answer the walk would let through, so the walk need not run. */
  passes(written: string | undefined): written is string {
    const { limits } = this;
    return (
      written !== undefined &&
      !this.stopped &&
      limits !== undefined &&
      this.nodes <= limits.maxNodes &&
      !overResponseLimit(this.bytes, limits.maxBytes)
    );
  }
}

/** How long the walk runs before it lets other work run (one turn of the event loop). */
const SLICE_MS = 5;
/** How many values the walk counts between looks at the clock. */
const CHECK_EVERY = 2048;

/**
 * Measures the answer the fetched data will make, before anything is shaped (docs/hardening.md): a walk along the plan over the root and the result store, counting what the shaper
 * would write, each field value and list item a node, its bytes estimated as JSON text (keys,
 * punctuation, strings and numbers; a custom scalar's object value as one node of a few bytes:
 * answers.ts checks the exact bytes of what it serialises). Dedupe lets one fetched object appear
 * under many paths, so a tiny fetch can make a huge answer; this bounds it. Iterative, and it
 * yields to the event loop every ~5 ms of walking, so a huge answer never blocks other requests.
 * Throws (or, once it has yielded, rejects with) ResponseLimitError at the first limit passed;
 * returns a promise only when it had to yield.
 */
export function measureAnswer(
  root: { readonly selection: PlanSelection; readonly value: object; readonly typeName: string },
  store: ResultStore,
  variables: Readonly<Record<string, unknown>>,
  limits: AnswerLimits,
): Promise<void> | undefined {
  const walk: Measuring = {
    stack: [{ selection: root.selection, parent: root.value, typeName: root.typeName }],
    nodes: 0,
    bytes: 0,
    store,
    variables,
    limits,
  };
  // Most answers are measured within one slice: then no promise, no extra turn.
  return measureSlice(walk) ? undefined : measureRest(walk);
}

async function measureRest(walk: Measuring): Promise<void> {
  do await nextTurn();
  while (!measureSlice(walk));
}

/** What the walk has counted so far, and what is left (a stack of objects to walk). */
interface Measuring {
  readonly stack: Frame[];
  nodes: number;
  bytes: number;
  readonly store: ResultStore;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly limits: AnswerLimits;
}

/** Walks for up to SLICE_MS; true when the whole answer is measured. Throws ResponseLimitError. */
function measureSlice(walk: Measuring): boolean {
  const { stack, store, variables, limits } = walk;
  const sliceStart = performance.now();
  let sinceCheck = 0;
  while (stack.length > 0) {
    const { selection, parent, typeName } = stack.pop()!;
    walk.bytes += 2; // {}
    for (const entry of selection.entries) {
      if (entry.possibleTypes && !entry.possibleTypes.has(typeName)) continue;
      if (entry.conditions.length && !conditionsHold(entry.conditions, variables)) continue;
      walk.bytes += entry.responseKey.length + 4; // "key":,
      const value = valueOf(entry, parent, store);
      const counted = count(entry, value, stack);
      walk.nodes += counted.nodes;
      walk.bytes += counted.bytes;
      sinceCheck += counted.nodes;
    }
    if (walk.nodes > limits.maxNodes) throw new ResponseLimitError('max_result_nodes', limits.maxNodes);
    if (overResponseLimit(walk.bytes, limits.maxBytes)) throw new ResponseLimitError('max_response_bytes', limits.maxBytes);
    if (sinceCheck >= CHECK_EVERY) {
      sinceCheck = 0;
      if (performance.now() - sliceStart >= SLICE_MS) return false;
    }
  }
  return true;
}

interface Frame {
  readonly selection: PlanSelection;
  readonly parent: object;
  readonly typeName: string;
}

const counted = { nodes: 0, bytes: 0 };

/** The nodes and bytes of one field's value; objects below are pushed onto `stack` to be walked. */
function count(entry: PlanEntry, value: unknown, stack: Frame[]): { nodes: number; bytes: number } {
  counted.nodes = 1;
  counted.bytes = 0;
  if (!Array.isArray(value)) {
    counted.bytes = item(entry, value, stack);
    return counted;
  }
  let bytes = 2;
  for (const v of value) {
    const b = Array.isArray(v) ? leafBytes(v) : item(entry, v, stack);
    bytes += b + 1;
  }
  counted.nodes += value.length;
  counted.bytes = bytes;
  return counted;
}

/** The bytes of one value (an object's own bytes are counted when its frame is walked). */
function item(entry: PlanEntry, value: unknown, stack: Frame[]): number {
  if (value !== null && typeof value === 'object' && entry.children && !(value instanceof Error)) {
    const typeName = entry.childIsAbstract ? concreteTypeOf(entry.blueprint.discriminator!, value) : entry.childType;
    if (typeName !== undefined) stack.push({ selection: entry.children, parent: value, typeName });
    return 0;
  }
  return leafBytes(value);
}

function leafBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'number') return 8;
  if (value === true) return 4;
  return 5; // false, null, a nested list or a custom scalar's object (checked exactly when serialised)
}

/** A field's value as the shaper reads it: a fetched field's outcome from the store, any other from its parent. */
function valueOf(entry: PlanEntry, parent: object, store: ResultStore): unknown {
  const bp = entry.blueprint;
  if (bp.fetch) {
    const outcome = store.get(parent, entry.fieldNode);
    if (outcome === undefined) return null;
    if (outcome.kind === 'ok') return outcome.body;
    if (outcome.kind === 'elements') return outcome.elements.map((o) => (o?.kind === 'ok' ? o.body : null));
    return null;
  }
  const { read, namespace } = bp;
  const value = read.length === 1 ? ownValue(parent, read[0]!) : readDotted(parent, read);
  return namespace ? (value ?? store.namespace(parent, read[0]!)) : value;
}
