/**
 * Small REST worlds: the knobs of one generated schema and the data its upstream serves.
 *
 * The schema's skeleton is fixed (schema-text.ts renders it): `Query.items` lists items, each with
 * an owner (a foreign key), members (a list of foreign keys with repeats and nulls), a city read
 * through `@from(path:)` and a pet (a union told by a discriminator); users have a friend (a third
 * level). What varies is everything the directives and the data can disagree about: envelopes,
 * nullability, batch sizes, id forms (numeric strings, numbers beyond 2^53), unicode and empty
 * strings, nulls, missing records (404), batch answers in any order with ids omitted or repeated,
 * and ids whose requests fail (a failing chunk).
 */
import fc from 'fast-check';
import { generates } from './known-gaps.js';

/** A JSON number token written verbatim by the upstream (beyond a double's exact range). */
export interface RawNumber {
  readonly raw: string;
}
export type WireValue = null | boolean | number | string | RawNumber | readonly WireValue[] | { readonly [key: string]: WireValue };

export interface Knobs {
  /** `GET /users/:id` answers `{"user": {...}}` and the fetches say `select: "user"`. */
  readonly envelope: boolean;
  /** `GET /users?ids=` answers `{"users": [...]}` and the batches say `select: "users"`. */
  readonly batchEnvelope: boolean;
  /** `User.name: String!` (else nullable). */
  readonly nameNonNull: boolean;
  /** `Item.owner: User!` (else nullable). */
  readonly ownerNonNull: boolean;
  /** `@batch(max:)`: small, to force chunks. */
  readonly max: number;
  /** `Query.userResp` with `response: true` on `Query.user`'s path (rows 1, 2 and 10). */
  readonly responseBeside: boolean;
  /** `User.ctor @from(key: "constructor")` (row 8). */
  readonly prototypeKey: boolean;
  /** `User.rank: Int64`, written by the upstream as small and large numbers and strings (row 5). */
  readonly int64: boolean;
}

export interface UserRecord {
  readonly id: string;
  /** Writes the id as a JSON number (when it is canonical digits). */
  readonly idAsNumber: boolean;
  readonly name: string | null;
  /** Absent when undefined. */
  readonly nick?: string | null;
  readonly score: number | RawNumber | null;
  readonly friendId: string | null;
  readonly rank: number | string | RawNumber | null;
}

export interface ItemRecord {
  readonly id: string;
  readonly label: string | null;
  readonly tag: string;
  readonly ownerId: string | null;
  readonly memberIds: readonly (string | null)[];
  readonly city?: string | null;
  readonly pet: { readonly kind: string; readonly name: string; readonly barks?: boolean; readonly lives?: number } | null;
}

export interface BatchManners {
  /** Answers a batch's items in reverse order. */
  readonly reverse: boolean;
  /** Repeats the first item of every answer. */
  readonly repeatFirst: boolean;
}

export interface World {
  readonly knobs: Knobs;
  readonly users: readonly UserRecord[];
  readonly items: readonly ItemRecord[];
  /** Ids whose single fetch answers 500, and so does every batch chunk holding one. */
  readonly failing: readonly string[];
  readonly manners: BatchManners;
}

/** Ids the worlds draw from: small numbers, numeric strings beyond 2^53, one with a leading zero. */
export const ID_POOL = ['1', '2', '3', '4', '5', '6', '007', '9007199254740993', '9007199254741001', '18446744073709551615'];
/** Ids no record has (404 when fetched, omitted from batch answers). */
export const MISSING_IDS = ['404', '9007199254740995'];

const text = fc.oneof(
  fc.constantFrom('', 'Ann', 'Zoë', '名前', '🙂 emoji', 'a"quote', 'back\\slash', 'line\nbreak'),
  fc.string({ maxLength: 6, unit: 'grapheme' }),
);
const nullableText = fc.option(text, { nil: null, freq: 4 });

const score = fc.oneof(
  fc.constant(null),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom<RawNumber>({ raw: '9007199254740993' }, { raw: '12345678901234567890' }),
  ...(generates('row12') ? [fc.constant<RawNumber>({ raw: '1e400' })] : []),
);

const knownId = fc.constantFrom(...ID_POOL, ...MISSING_IDS);

/** The knobs of a family of cases: one schema, served by gateways reloaded once for the family. */
export const knobsArbitrary: fc.Arbitrary<Knobs> = fc.record({
  envelope: fc.boolean(),
  batchEnvelope: fc.boolean(),
  nameNonNull: fc.boolean(),
  ownerNonNull: fc.boolean(),
  max: fc.integer({ min: 1, max: 4 }),
  responseBeside: generates('row1') || generates('row2') || generates('row10') ? fc.boolean() : fc.constant(false),
  prototypeKey: generates('row8') ? fc.boolean() : fc.constant(false),
  int64: generates('row5') ? fc.boolean() : fc.constant(false),
});

function userRecord(id: string, nameNonNull: boolean): fc.Arbitrary<UserRecord> {
  return fc.record(
    {
      id: fc.constant(id),
      idAsNumber: fc.boolean(),
      // A non-null name is still sometimes null on the wire: the error must be the same everywhere.
      name: nameNonNull ? fc.option(text, { nil: null, freq: 8 }) : nullableText,
      nick: nullableText,
      score,
      friendId: fc.option(knownId, { nil: null, freq: 3 }),
      rank: fc.constantFrom<UserRecord['rank']>(null, 7, '7', { raw: '9007199254740993' }, '9007199254740993'),
    },
    { requiredKeys: ['id', 'idAsNumber', 'name', 'score', 'friendId', 'rank'] },
  );
}

const pet = fc.option(
  fc.oneof(
    fc.record({ kind: fc.constantFrom('dog', 'DOG'), name: text, barks: fc.boolean() }),
    fc.record({ kind: fc.constantFrom('cat', 'Cat', 'ferret'), name: text, lives: fc.integer({ min: 0, max: 9 }) }),
  ),
  { nil: null },
);

/** An item; its id is its place in the list (set by worldArbitrary). */
const item: fc.Arbitrary<ItemRecord> = fc.record(
  {
    id: fc.constant(''),
    label: nullableText,
    tag: fc.constantFrom('a', 'b'),
    ownerId: fc.option(knownId, { nil: null, freq: 5 }),
    memberIds: fc.array(fc.option(knownId, { nil: null, freq: 5 }), { maxLength: 5 }),
    city: nullableText,
    pet,
  },
  { requiredKeys: ['id', 'label', 'tag', 'ownerId', 'memberIds', 'pet'] },
);

/** Worlds on the schema of `k`. */
export const worldArbitrary = (k: Knobs): fc.Arbitrary<World> =>
  fc.record({
    knobs: fc.constant(k),
    users: fc
      .tuple(...ID_POOL.map((id) => fc.option(userRecord(id, k.nameNonNull), { nil: undefined, freq: id === '1' ? 8 : 3 })))
      .map((users) => users.filter((u) => u !== undefined)),
    items: fc.array(item, { maxLength: 4 }).map((items) => items.map((it, i) => ({ ...it, id: String(i + 1) }))),
    failing: fc.subarray(ID_POOL, { maxLength: 1 }),
    manners: fc.record({ reverse: fc.boolean(), repeatFirst: fc.boolean() }),
  });
