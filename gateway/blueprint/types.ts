import type { CompiledPoll } from '../../directives/poll.js';
import type { GraphQLSchema } from 'graphql';
import type { CompiledCache } from '../../directives/cache.js';
import type { PathTemplate } from '../../directives/template.js';
import type { HttpMethod } from '../../directives/request.js';
import type { BodyPlaceholder, BodyTemplate } from '../../directives/body-template.js';
import type { DottedReader } from '../../directives/dotted.js';
import type { SourceBase } from '../../directives/url-link.js';
import type { PrefixRule } from '../../directives/prefix-rule.js';
import type { SourceConfig } from '../config/types.js';
import type { TypeMap } from '../../directives/type-map.js';
import type { WiredBody } from './input-wire.js';
import type { ListSize } from '../../directives/list-size.js';

/** What one field (schema coordinate `Type.field`) compiles to. Frozen; read on every request. */
export interface FieldBlueprint {
  readonly coordinate: string;
  readonly typeName: string;
  readonly fieldName: string;
  /** The JSON steps a plain field reads from its parent: its @from key, its @from path's steps, or its own name. */
  readonly read: readonly string[];
  readonly fetch: FetchBlueprint | undefined;
  /**
   * A namespace (docs/reference.md): an object-typed field without @from or @fetch whose type has a
   * @fetch field; when the parent has no value for it, its value is an empty object.
   */
  readonly namespace: boolean;
  /** How the concrete type of this field's value is told, when its type is a union or interface. */
  readonly discriminator: Discriminator | undefined;
  /** The field needs a valid token (and these scopes): `@auth` on it or its type, or it reads `{auth.*}`. */
  readonly auth?: AuthGuard;
  /** `@listSize`: the size a list field is assumed to have in the planned bound (plan/cost.ts). */
  readonly listSize?: ListSize;
  /** `@poll` (and `@webhook`) of a Subscription field (docs/live-data.md). */
  readonly poll?: CompiledPoll;
}

/** What a caller needs for a guarded field (docs/observability.md). */
export interface AuthGuard {
  /** Every one of them must be granted (the token's `scope` or `scp`); may be empty. */
  readonly scopes: readonly string[];
}

/**
 * How an item of a union or interface tells its object type (docs/reference.md on UNION | INTERFACE):
 * the JSON key `key` (its @from key, else `__typename`) holds the object type's name, compared
 * without case.
 */
export interface Discriminator {
  readonly abstractType: string;
  readonly key: string;
  /** Each possible object type's name, and its lower-cased name, → its name. */
  readonly types: ReadonlyMap<string, string>;
  /** `@from(types: [...])`: when present, it alone decides (value=Type, *=Type, a default). */
  readonly map: TypeMap | undefined;
}

export interface FetchBlueprint {
  readonly source: SourceConfig;
  readonly template: PathTemplate;
  /** `select: "data.items"`: the steps into the body that are the value; undefined: the whole body. */
  readonly select: readonly string[] | undefined;
  /** How the field reads its answer, in its memo and cache keys (fetch-blueprint.ts readKeySuffix): `|@response`, `|data.items`, or ''. */
  readonly keySuffix: string;
  readonly batch: BatchBlueprint | undefined;
  readonly cache: CompiledCache | undefined;
  /** GET unless `@fetch(method:)` says otherwise; a non-GET read is never cached nor coalesced. */
  readonly method: HttpMethod;
  /** `@fetch(body:)`, with the JSON steps each `{parent.…}` placeholder reads and the wire form of `{args.…}` values (blueprint/input-wire.ts). */
  readonly body: WiredBody | undefined;
  /** The field's named type is Boolean: a 204 or empty answer is `true` (docs/mutations.md). */
  readonly emptyIsTrue: boolean;
  /**
   * `@fetch(url:)`: the source's origin and base path, which the URL read by the template's one
   * placeholder must have (directives/url-link.ts); undefined for `path:`.
   */
  readonly link: SourceBase | undefined;
  /** `@fetch(response: true)`: the value is `{status, headers, body}` (upstream/response-value.ts). */
  readonly response: boolean;
  /**
   * The `@invalidate(prefix: true)` rules of this field's source, for a @cache field (else empty):
   * its entries carry the generations of the prefixes their path has.
   */
  readonly prefixRules: readonly PrefixRule[];
  /** `@invalidate` uses, in order (Mutation fields only). */
  readonly invalidates: readonly InvalidateBlueprint[];
  /** The field's type is a list (one-to-many for @batch). */
  readonly isList: boolean;
  readonly isNonNull: boolean;
  /** The items of a list field are non-null (`[Tag!]`): a missing list-key item is NOT_FOUND. */
  readonly itemNonNull: boolean;
  /** `@sideload` uses, in order; undefined without any (docs/rest-shapes.md "Sideloads"). */
  readonly sideloads?: readonly SideloadBlueprint[];
}

/**
 * One `@sideload`: the objects of the array at `select` of the field's answer answer, for the
 * request, the lookups of its `consumers` whose path is `template` with the object's `match` value.
 */
export interface SideloadBlueprint {
  readonly select: readonly string[];
  /** The path as written, with `{key}`. */
  readonly path: string;
  /** `{key}` compiled as `{parent.key}`: resolved with the template input's `key` set to the match value. */
  readonly template: PathTemplate;
  readonly match: string;
  readonly readMatch: DottedReader;
  /** `when: "type=people"`: keeps only objects whose key has that string form. */
  readonly when: { readonly text: string; readonly read: DottedReader; readonly value: string } | undefined;
  /**
   * The fields whose single fetch it answers (same source, GET, a path whose one placeholder put as
   * `{key}` gives `path`; blueprint/sideloads.ts), one per distinct memo key suffix (`select`).
   * Filled by linkSideloads before the blueprint is returned, never after.
   */
  readonly consumers: readonly SideloadConsumer[];
}

/** A field a sideload answers: the coordinate and fetch its memo entries are made for. */
export interface SideloadConsumer {
  readonly coordinate: string;
  readonly fetch: FetchBlueprint;
}

/** One `@invalidate(source, path)`: the entry `{source}:{resolved path}` deleted after a 2xx. */
export interface InvalidateBlueprint {
  readonly source: SourceConfig;
  /** The path as written, for `gqlgw plan`. */
  readonly path: string;
  /** `{result.a.b}` is compiled as `{parent.a.b}` bound through the result type's @from. */
  readonly template: PathTemplate;
  /**
   * The suffixes of the entries to delete beside the plain path: '' and `|{select}` for every
   * `select` a @fetch of this source uses, so entries of fields that select part of the same
   * answer go too.
   */
  readonly selectSuffixes: readonly string[];
  /** `prefix: true`: the generation of the resolved prefix is renewed instead (directives/prefix-rule.ts). */
  readonly prefix: boolean;
}

export interface BatchBlueprint {
  readonly template: PathTemplate;
  /** The dotted item field compared with the keys, as written and as steps. */
  readonly match: string;
  /** Reads `match` from an item: readDotted of its steps, compiled once (directives/dotted.ts dottedReader). */
  readonly readMatch: DottedReader;
  readonly max: number;
  /** Reads a lookup's batch key from its parent (or its arguments, with `keyFromArgs`), compiled once. */
  readonly readKey: DottedReader;
  /** The key is the @fetch path's one `{args.A}` (root fields, aliases), not a `{parent.*}`. */
  readonly keyFromArgs: boolean;
  /**
   * What lookups of one round share chunks by (docs/caching.md): source,
   * method, batch path, body, select, match and repeat, as one string.
   */
  readonly shareKey: string;
  /** The key is a list: each element is a key, and the field's value lists the matched items in order. */
  readonly listKeys: boolean;
  /**
   * The single fetch is decided by the batch key alone: the @fetch path has no `{args.*}`, the read
   * has no body and the key is not a list. Then lookups with one batch key (and one source's
   * forwarded headers) share one memo entry, so a round has at most one entry per key and group.
   */
  readonly keyAlone: boolean;
  /** `select: "data.users"`: where the item array is inside the answer. */
  readonly select: readonly string[] | undefined;
  readonly method: 'GET' | 'POST';
  /** The JSON body template of a POST batch. */
  readonly body: BodyTemplate | undefined;
  /** The wire form of the body's `{args.…}` values that hold input objects with wire names (blueprint/input-wire.ts). */
  readonly bodyWire?: ReadonlyMap<BodyPlaceholder, (value: unknown) => unknown>;
  /** The batch path has `{args.*}`: fields with other argument values are batched apart. */
  readonly hasArgs: boolean;
  /**
   * The string form of a key `readKey` read, when it is not a scalar's: a @lookupBatch key of
   * several fields (blueprint/lookups.ts). Absent: template.ts keyString.
   */
  readonly keyString?: (value: unknown) => string | undefined;
}

/**
 * One `@lookup` of an object type (docs/federation.md), with the
 * `@lookupBatch` of the same key as its batch and the type's `@cache`: a @fetch whose parent is
 * the object it looks up, so `{key.F}` reads the object's own JSON through @from.
 */
export interface LookupBlueprint {
  readonly typeName: string;
  /** `Type.@lookup(key)`: the coordinate its metrics and errors name. */
  readonly coordinate: string;
  /** The key as written and its canonical text (directives/field-set.ts fieldSetText). */
  readonly keyText: string;
  readonly canonicalKey: string;
  /** Each key leaf's schema names, in key order. */
  readonly keyLeaves: ReadonlyArray<readonly string[]>;
  /** Whether every key leaf has a value (not null, not absent) in an object's JSON. */
  readonly hasKey: (object: unknown) => boolean;
  readonly fetch: FetchBlueprint;
  /** What reading an object of the type needs (`@auth` on it): checked before it is looked up. */
  readonly auth?: AuthGuard;
}

/** A schema that links Federation v2 (blueprint/federation.ts): what `_service` and `_entities` answer from. */
export interface FederationBlueprint {
  /** `_service { sdl }`: the schema files without gqlgw's own directives. */
  readonly sdl: string;
  /** Every type with a @key, by name. */
  readonly entities: ReadonlyMap<string, EntityBlueprint>;
}

export interface EntityBlueprint {
  readonly typeName: string;
  /** Its @key directives in order. */
  readonly keys: readonly EntityKey[];
  /** Fields marked @external, and those some field @requires: read from a representation first. */
  readonly fromRepresentation: ReadonlySet<string>;
}

export interface EntityKey {
  readonly canonical: string;
  readonly leaves: ReadonlyArray<readonly string[]>;
  readonly resolvable: boolean;
  /** The @lookup with this key; undefined: a stub (the representation is the object). */
  readonly lookup: LookupBlueprint | undefined;
}

/** The compiled schema: what the request path reads, never the SDL or the TOML again. */
export interface Blueprint {
  readonly schema: GraphQLSchema;
  /** Every field of every object type, by coordinate. */
  readonly fields: ReadonlyMap<string, FieldBlueprint>;
  /** Every union and interface, by name. */
  readonly discriminators: ReadonlyMap<string, Discriminator>;
  /**
   * `[check] accept` and `accept_n_plus_one`: the warnings `gqlgw check` leaves out, as
   * `"<kind>:<coordinate>"` (an accept_n_plus_one entry X is `n-plus-one:X`).
   */
  readonly acceptedWarnings: ReadonlySet<string>;
  /** Every object type's @lookup uses in order, by type name (types without any are absent). */
  readonly lookups: ReadonlyMap<string, readonly LookupBlueprint[]>;
  /** Set when the schema links Federation v2: the gateway is a subgraph. */
  readonly federation: FederationBlueprint | undefined;
}
