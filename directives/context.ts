import type { DirectiveNode, GraphQLField, GraphQLObjectType } from 'graphql';

/** What a directive on one field may refer to; filled by the blueprint from the schema and config. */
export interface FieldContext {
  /** `Type.field` */
  readonly coordinate: string;
  readonly typeName: string;
  /** Fields of the parent type: name → the JSON key it reads, and whether it is itself fetched. */
  readonly parentFields: ReadonlyMap<string, { readonly jsonKey: string; readonly fetched: boolean }>;
  /** Argument names of this field. */
  readonly argNames: ReadonlySet<string>;
  /** Source names of gateway.toml. */
  readonly sourceNames: readonly string[];
  /** The parent type and the field itself, for placeholders that step through fields and input fields. */
  readonly parentType: GraphQLObjectType;
  readonly field: GraphQLField<unknown, unknown>;
  /** How a field of any type reads its parent JSON: the steps of its @from key or path, else its name. */
  readonly readOf: (typeName: string, fieldName: string) => readonly string[];
  /** Whether a field of any type carries @fetch (placeholders read the parent's own data, never fetched fields). */
  readonly isFetched: (typeName: string, fieldName: string) => boolean;
  /** The field belongs to the schema's Mutation type. */
  readonly isMutation: boolean;
  /** The field's named type when that is an object type: what `{result.F}` reads. */
  readonly resultType: GraphQLObjectType | undefined;
  /** The claims `{auth.*}` may read (standard ones and `[auth] claims`); undefined without [auth]. */
  readonly authClaims?: ReadonlySet<string>;
}

/** A directive as written on the field, with its argument values already coerced by graphql-js. */
export interface DirectiveUse {
  readonly node: DirectiveNode;
  readonly args: Readonly<Record<string, unknown>>;
}
