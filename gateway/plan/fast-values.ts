import {
  Kind,
  isNonNullType,
  isSpecifiedScalarType,
  type FieldNode,
  type GraphQLField,
  type GraphQLSchema,
  type VariableDefinitionNode,
} from 'graphql';

/**
 * Coerced values read without graphql-js for the cases most operations are made of, compiled once
 * per plan. Each reader gives exactly what graphql-js would (the same keys in the same order, on a
 * plain object, as graphql-js 16 gives them), or undefined for any case it does not
 * cover; the caller then asks graphql-js, which decides every other case and reports every error.
 */

/** Built-in scalars whose input coercion is the identity on the values `accepts` lets through. */
const SCALAR_INPUTS: Readonly<Record<string, (value: unknown) => boolean>> = {
  String: (v) => typeof v === 'string',
  // An ID given as an integer becomes its string form in graphql-js: left to it.
  ID: (v) => typeof v === 'string',
  Int: (v) => typeof v === 'number' && Number.isInteger(v) && v <= 2147483647 && v >= -2147483648,
  Float: (v) => typeof v === 'number' && Number.isFinite(v),
  Boolean: (v) => typeof v === 'boolean',
};

/** Reads an operation's coerced variables from the request's; undefined: graphql-js decides. */
export type VariablesReader = (inputs: Readonly<Record<string, unknown>>) => Record<string, unknown> | undefined;

/**
 * The reader of an operation whose every variable is a built-in scalar (`ID!`, `String`, ...)
 * without a default; undefined for any other operation. It covers a request that gives each
 * variable a value the scalar takes as it is (not null, not absent).
 */
export function compileVariables(schema: GraphQLSchema, definitions: readonly VariableDefinitionNode[]): VariablesReader | undefined {
  const names: string[] = [];
  const accepts: Array<(value: unknown) => boolean> = [];
  for (const def of definitions) {
    // `__proto__` would set the prototype of a plain object, not a key: graphql-js's case.
    if (def.defaultValue || def.variable.name.value === '__proto__') return undefined;
    const named = def.type.kind === Kind.NON_NULL_TYPE ? def.type.type : def.type;
    if (named.kind !== Kind.NAMED_TYPE) return undefined;
    const type = schema.getType(named.name.value);
    const accept = type && isSpecifiedScalarType(type) ? SCALAR_INPUTS[type.name] : undefined;
    if (!accept) return undefined;
    names.push(def.variable.name.value);
    accepts.push(accept);
  }
  return (inputs) => {
    const coerced: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (!Object.hasOwn(inputs, name)) return undefined;
      const value = inputs[name];
      if (!accepts[i]!(value)) return undefined;
      coerced[name] = value;
    }
    return coerced;
  };
}

/** One argument of a field definition, in its order: a variable's value, or a default for an absent argument. */
interface ArgumentSource {
  readonly name: string;
  readonly variable: string | undefined;
  readonly defaultValue: unknown;
}

/** Reads a field's argument values from the coerced variables; undefined: graphql-js decides. */
export type ArgumentsReader = (variables: Readonly<Record<string, unknown>>) => Record<string, unknown> | undefined;

/**
 * The reader of a field whose every argument is either exactly one variable (`user(id: $id)`) or
 * absent (its default then, or nothing when it has none and may be null); undefined for any other
 * field. It covers a request whose variables of those arguments are given and not null.
 */
export function compileArguments(fieldDef: GraphQLField<unknown, unknown>, node: FieldNode): ArgumentsReader | undefined {
  const sources: ArgumentSource[] = [];
  for (const argDef of fieldDef.args) {
    if (argDef.name === '__proto__') return undefined;
    const argument = node.arguments?.find((a) => a.name.value === argDef.name);
    if (!argument) {
      if (argDef.defaultValue !== undefined) sources.push({ name: argDef.name, variable: undefined, defaultValue: argDef.defaultValue });
      else if (isNonNullType(argDef.type)) return undefined;
      continue;
    }
    if (argument.value.kind !== Kind.VARIABLE) return undefined;
    sources.push({ name: argDef.name, variable: argument.value.name.value, defaultValue: undefined });
  }
  return (variables) => {
    const values: Record<string, unknown> = {};
    for (const s of sources) {
      if (s.variable === undefined) {
        values[s.name] = s.defaultValue;
        continue;
      }
      const value = Object.hasOwn(variables, s.variable) ? variables[s.variable] : undefined;
      if (value === undefined || value === null) return undefined;
      values[s.name] = value;
    }
    return values;
  };
}
