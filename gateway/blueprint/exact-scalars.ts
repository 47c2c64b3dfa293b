import {
  GraphQLError,
  GraphQLScalarType,
  Kind,
  isSpecifiedScalarType,
  valueFromASTUntyped,
  type GraphQLSchema,
  type ValueNode,
} from 'graphql';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { ValueError } from '../errors.js';

/**
 * Exact integers in the schema's own scalars (docs/reference.md "Exact integers"):
 * - `Int64` (the importer's scalar; any schema may declare `scalar Int64`) writes every value as a
 *   JSON string of its decimal digits, small or large (protobuf's JSON mapping), so one field has
 *   one JSON type; it takes an integer literal, a JSON number or a string of digits, exactly. As an
 *   argument its value is a number within ±2^53 and the string of its digits beyond (as sources'
 *   long integers are read, upstream/json-body.ts): paths and queries get its digits either way, a
 *   body a JSON number, or beyond 2^53 a string of the exact digits, never a rounded number.
 *   Anything else, or a value beyond 64 bits, is refused (BAD_USER_INPUT for an argument;
 *   UPSTREAM_BAD_RESPONSE for data, value-errors.ts).
 * - every other custom scalar reads an integer literal beyond ±2^53 as the string of its digits
 *   (graphql-js would round it), as lossless JSON reading makes of such a number in variables.
 * Returns a new schema when it declares a custom scalar; the given one is not changed.
 */
export function withExactScalars(schema: GraphQLSchema): GraphQLSchema {
  let changed = false;
  const mapped = mapSchema(schema, {
    [MapperKind.SCALAR_TYPE]: (type) => {
      if (isSpecifiedScalarType(type)) return type;
      changed = true;
      if (type.name === 'Int64') return new GraphQLScalarType({ ...type.toConfig(), ...INT64 });
      const parseValue = type.parseValue.bind(type);
      return new GraphQLScalarType({ ...type.toConfig(), parseLiteral: (node, variables) => parseValue(exactLiteral(node, variables)) });
    },
  });
  return changed ? mapped : schema;
}

/** A literal's value as graphql-js reads it untyped, but an integer beyond ±2^53 as the string of its digits. */
function exactLiteral(node: ValueNode, variables: Readonly<Record<string, unknown>> | null | undefined): unknown {
  switch (node.kind) {
    case Kind.INT: {
      const n = Number(node.value);
      return Number.isSafeInteger(n) ? n : node.value;
    }
    case Kind.LIST:
      return node.values.map((v) => exactLiteral(v, variables));
    case Kind.OBJECT: {
      const out: Record<string, unknown> = Object.create(null);
      for (const field of node.fields) out[field.name.value] = exactLiteral(field.value, variables);
      return out;
    }
    default:
      return valueFromASTUntyped(node, variables);
  }
}

const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);
/** Digits that are certainly a canonical 64-bit integer: no leading zero, at most 18 digits. */
const SHORT = /^(?:0|-?[1-9]\d{0,17})$/;
const DIGITS = /^-?\d+$/;

/** The canonical decimal text of a 64-bit integer given as digits, a safe integer or a bigint; undefined for anything else. */
export function int64Text(value: unknown, numbers: 'safe' | 'integral'): string | undefined {
  if (typeof value === 'string') {
    if (SHORT.test(value)) return value;
    return DIGITS.test(value) ? inRange(BigInt(value)) : undefined;
  }
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return String(value === 0 ? 0 : value);
    return numbers === 'integral' && Number.isInteger(value) ? inRange(BigInt(value)) : undefined;
  }
  return typeof value === 'bigint' ? inRange(value) : undefined;
}

function inRange(n: bigint): string | undefined {
  return n >= MIN && n <= MAX ? n.toString() : undefined;
}

/** How Int64 begins a refusal; value-errors.ts knows a data refusal by it where the engine kept only the message. */
export const INT64_REFUSED = 'Int64 cannot represent ';

function refused(value: string): GraphQLError {
  return new GraphQLError(`${INT64_REFUSED}${value}: it takes an integer within 64 bits, or a string of its decimal digits`);
}

/** A source's value that is no Int64: UPSTREAM_BAD_RESPONSE, its value shown only in debug mode (value-errors.ts). */
function refusedData(value: string): ValueError {
  return new ValueError(`${INT64_REFUSED}${value}: it takes an integer within 64 bits, or a string of its decimal digits`, INT64_SHOWN);
}

/** What a client reads of a refused Int64 value outside debug mode. */
export const INT64_SHOWN = 'the source answered a value that does not fit the type Int64';

const INT64 = {
  serialize(value: unknown): string {
    // Data: a number the source sent is what it is (a long one came as its digits, upstream/json-body.ts).
    const text = int64Text(value, 'integral');
    if (text === undefined) throw refusedData(typeof value === 'string' ? JSON.stringify(value) : typeof value);
    return text;
  },
  parseValue(value: unknown): number | string {
    // A variable: a number beyond 2^53 here was rounded on the way (the request readers keep such digits).
    const text = int64Text(value, 'safe');
    if (text === undefined) throw refused(JSON.stringify(value) ?? typeof value);
    return argumentValue(text);
  },
  parseLiteral(node: ValueNode): number | string {
    const text = node.kind === Kind.INT || node.kind === Kind.STRING ? int64Text(node.value, 'safe') : undefined;
    if (text === undefined) throw refused(node.kind === Kind.STRING ? JSON.stringify(node.value) : node.kind);
    return argumentValue(text);
  },
};

/** An Int64 argument's value: the number when a double holds it exactly, else the string of its digits. */
function argumentValue(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}
