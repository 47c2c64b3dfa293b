/**
 * Generated operations over the world's schema (schema-text.ts): aliases, inline and named
 * fragments, `@skip`/`@include` with literals and variables, ids as literals and as variables, and
 * nesting three fetches deep (items → owner → friend → friend).
 *
 * An operation is generated without looking at the world (so it shrinks on its own) and pruned to
 * the world's schema by `pruneOperation` (fields the world lacks are dropped).
 */
import fc from 'fast-check';
import { generates } from './known-gaps.js';
import { ID_POOL, MISSING_IDS, type Knobs } from './world.js';

export interface Condition {
  readonly directive: 'skip' | 'include';
  readonly value: boolean;
  readonly viaVariable: boolean;
}

export interface Argument {
  readonly value: string | null;
  readonly viaVariable: boolean;
  /** Sent as a JSON number rather than a string (ids of digits only), in the variants. */
  readonly asNumber: boolean;
}

export interface FieldSelection {
  readonly kind: 'field';
  readonly name: string;
  readonly alias?: string;
  readonly argument?: Argument;
  readonly condition?: Condition;
  readonly selections?: readonly Selection[];
}

export interface FragmentSelection {
  readonly kind: 'fragment';
  readonly named: boolean;
  readonly on: string;
  readonly condition?: Condition;
  readonly selections: readonly Selection[];
}

export type Selection = FieldSelection | FragmentSelection;

export interface Operation {
  readonly selections: readonly Selection[];
}

interface FieldInfo {
  readonly type?: string;
  readonly argument?: 'id' | 'tag';
}

/** The object types of schema-text.ts: field → its object type (none for a scalar) and argument. */
export const TYPES: Readonly<Record<string, Readonly<Record<string, FieldInfo>>>> = {
  Query: {
    user: { type: 'User', argument: 'id' },
    items: { type: 'Item', argument: 'tag' },
    userResp: { type: 'UserResponse', argument: 'id' },
  },
  Item: {
    id: {},
    label: {},
    ownerId: {},
    owner: { type: 'User' },
    memberIds: {},
    members: { type: 'User' },
    city: {},
    pet: { type: 'Pet' },
  },
  User: { id: {}, name: {}, nick: {}, score: {}, friendId: {}, friend: { type: 'User' }, ctor: {}, rank: {} },
  UserResponse: { status: {}, user: { type: 'User' } },
  Dog: { name: {}, barks: {} },
  Cat: { name: {}, lives: {} },
};
/** Union → its members. */
export const UNIONS: Readonly<Record<string, readonly string[]>> = { Pet: ['Dog', 'Cat'] };

const condition: fc.Arbitrary<Condition | undefined> = fc.option(
  fc.record({ directive: fc.constantFrom<'skip' | 'include'>('skip', 'include'), value: fc.boolean(), viaVariable: fc.boolean() }),
  { nil: undefined, freq: 3 },
);
const alias = fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined, freq: 2 });

const argumentOf = (kind: 'id' | 'tag'): fc.Arbitrary<Argument> =>
  fc.record({
    // Ids lean to a few, so root fields often ask for the same record (shared calls and entries).
    value:
      kind === 'id'
        ? fc.oneof(
            { arbitrary: fc.constantFrom('1', '9007199254740993'), weight: 2 },
            { arbitrary: fc.constantFrom(...ID_POOL, ...MISSING_IDS), weight: 1 },
          )
        : fc.constantFrom<string | null>('a', 'b', null, '', 'ü b'),
    viaVariable: fc.boolean(),
    asNumber: fc.boolean(),
  });

function fieldOf(type: string, name: string, depth: number): fc.Arbitrary<Selection> {
  const info = TYPES[type]![name]!;
  const target = info.type;
  return fc.record(
    {
      kind: fc.constant<'field'>('field'),
      name: fc.constant(name),
      alias,
      argument: info.argument === undefined ? fc.constant(undefined) : argumentOf(info.argument),
      condition,
      selections: target === undefined ? fc.constant(undefined) : selectionsOf(target, depth - 1),
    },
    { requiredKeys: ['kind', 'name', 'argument', 'selections'] },
  ) as fc.Arbitrary<Selection>;
}

/** A selection set on `type` (an object type or a union), nesting at most `depth` more levels. */
export function selectionsOf(type: string, depth: number): fc.Arbitrary<readonly Selection[]> {
  const members = UNIONS[type];
  if (members !== undefined) {
    const typename: Selection = { kind: 'field', name: '__typename' };
    const fragments = members.map((m) => fragmentOf(m, depth));
    return fc
      .tuple(...fragments.map((f) => fc.option(f, { nil: undefined })))
      .map((fs) => [typename, ...fs.filter((f) => f !== undefined)]);
  }
  const names = Object.keys(TYPES[type]!).filter((n) => depth > 0 || TYPES[type]![n]!.type === undefined);
  const one = fc.oneof(...names.map((n) => fieldOf(type, n, depth)));
  const entry =
    depth > 0 && type !== 'Query' ? fc.oneof({ arbitrary: one, weight: 4 }, { arbitrary: fragmentOf(type, depth - 1), weight: 1 }) : one;
  return fc.array(entry, { minLength: 1, maxLength: type === 'Query' ? 3 : 4 });
}

function fragmentOf(type: string, depth: number): fc.Arbitrary<Selection> {
  return fc.record({
    kind: fc.constant<'fragment'>('fragment'),
    named: fc.boolean(),
    on: fc.constant(type),
    condition,
    selections: fc.constant(null).chain(() => selectionsOf(type, Math.max(depth, 0))),
  }) as fc.Arbitrary<Selection>;
}

/** Operations: one to three root fields, nesting up to three fetches below the root. */
export const operationArbitrary: fc.Arbitrary<Operation> = selectionsOf('Query', 4).map((selections) => ({ selections }));

/**
 * The operation on the world's schema: fields the world lacks dropped, and copies of a response key
 * that GraphQL could not merge (another field or argument at the same response path) dropped. While
 * row 11 is off, every response key appears once per object and fragments carry no condition.
 */
export function pruneOperation(op: Operation, knobs: Knobs): Operation {
  const selections = pruneSet(op.selections, knobs, '', new Map());
  // Row 1: `response: true` beside the plain field on one path in one request.
  const both = ['user', 'userResp'].every((name) => selections.some((s) => s.kind === 'field' && s.name === name));
  if (both && !generates('row1')) return { selections: selections.filter((s) => s.kind !== 'field' || s.name !== 'userResp') };
  return { selections };
}

function pruneSet(selections: readonly Selection[], knobs: Knobs, at: string, seen: Map<string, string>): Selection[] {
  const row11 = generates('row11');
  const out: Selection[] = [];
  for (const s of selections) {
    if (s.kind === 'fragment') {
      const inner = pruneSet(s.selections, knobs, at, seen);
      if (inner.length > 0) out.push({ ...s, condition: row11 ? s.condition : undefined, selections: inner });
      continue;
    }
    const absent = { userResp: !knobs.responseBeside, ctor: !knobs.prototypeKey, rank: !knobs.int64 }[s.name as 'ctor'];
    if (absent === true) continue;
    const path = `${at}.${s.alias ?? s.name}`;
    // Two variables are two arguments to GraphQL even when their values are equal.
    const argument = s.argument === undefined ? '' : s.argument.viaVariable ? `$${seen.size}` : JSON.stringify(s.argument.value);
    const signature = `${s.name}(${argument})`;
    const before = seen.get(path);
    if (before !== undefined && (!row11 || before !== signature)) continue;
    seen.set(path, signature);
    const inner = s.selections === undefined ? undefined : pruneSet(s.selections, knobs, path, seen);
    if (inner !== undefined && inner.length === 0) continue;
    out.push(inner === undefined ? s : { ...s, selections: inner });
  }
  return out;
}
