/**
 * What the importer writes, before it is printed (print-sdl.ts): plain data, so that links can
 * add fields to types that were built earlier, and printing happens once, in a stable order.
 */
export interface SdlArgument {
  readonly name: string;
  readonly type: string;
}

export interface SdlField {
  readonly name: string;
  /** A type reference as written: `Pet`, `[Pet]`, `ID!`. */
  readonly type: string;
  readonly args: readonly SdlArgument[];
  /** Directives as written, e.g. `@from(key: "pet-type")`. */
  readonly directives: readonly string[];
  readonly description?: string;
}

/** One JSON key of an object type, for finding foreign keys (links.ts). */
export interface SdlProperty {
  readonly key: string;
  readonly field: string;
  /** The field's type is a scalar or enum (not a list, not an object): it can be a `{parent.*}` key. */
  readonly scalar: boolean;
}

export interface SdlObject {
  readonly kind: 'object';
  readonly name: string;
  readonly fields: SdlField[];
  readonly properties: SdlProperty[];
  /** Field names handed out in this type (links add fields later). */
  readonly fieldNames: Set<string>;
}

export interface SdlInput {
  readonly kind: 'input';
  readonly name: string;
  readonly fields: SdlField[];
}

export interface SdlEnum {
  readonly kind: 'enum';
  readonly name: string;
  readonly values: ReadonlyArray<{ readonly name: string; readonly wire: string }>;
}

export interface SdlUnion {
  readonly kind: 'union';
  readonly name: string;
  readonly members: readonly string[];
  readonly key: string;
  readonly types: readonly string[];
}

export interface SdlScalar {
  readonly kind: 'scalar';
  readonly name: string;
  readonly description: string;
}

export type SdlType = SdlObject | SdlInput | SdlEnum | SdlUnion | SdlScalar;

/** The pass-through scalars, declared once each when used. */
export const JSON_SCALAR: SdlScalar = {
  kind: 'scalar',
  name: 'JSON',
  description: 'Any JSON value, passed through as the API sent it (objects with free-form keys, oneOf without a discriminator).',
};
export const INT64_SCALAR: SdlScalar = {
  kind: 'scalar',
  name: 'Int64',
  description: 'A 64-bit integer, written as a JSON string of its decimal digits (GraphQL Int holds 32 bits only).',
};
