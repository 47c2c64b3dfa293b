import { GraphQLError, Kind, type TypeNode, type VariableDefinitionNode } from 'graphql';
import { badUserInput } from '../../errors.js';
import { deeperThan } from './value-depth.js';

/**
 * Refuses variables the gateway cannot take before graphql-js coerces them (its coercion is
 * recursive, so a deep value would exhaust the stack): values nested deeper than `maxDepth`
 * (limits.max_json_depth), and strings that are not well-formed Unicode (a lone surrogate, which
 * valid JSON can carry as `"\ud800"` but no URL or UTF-8 text can). Returns the 400
 * BAD_USER_INPUT error naming the variable, or undefined.
 */
export function checkVariables(variables: Readonly<Record<string, unknown>>, maxDepth: number): GraphQLError | undefined {
  for (const name of Object.keys(variables)) {
    const value = variables[name];
    let problem: string | undefined;
    if (deeperThan(value, maxDepth)) problem = `is nested deeper than ${maxDepth} levels (limits.max_json_depth)`;
    else if (hasLoneSurrogate(value)) problem = 'holds a string that is not well-formed Unicode (a lone surrogate)';
    if (problem !== undefined) return badUserInput(`Variable "$${name}" ${problem}.`);
  }
  return undefined;
}

/** Whether a string of the value (an object key included) holds a lone surrogate; the value is known to be shallow. */
function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return !isWellFormed(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  for (const [key, v] of Object.entries(value)) if (!isWellFormed(key) || hasLoneSurrogate(v)) return true;
  return false;
}

/** String.prototype.isWellFormed (Node 20 has it; TypeScript's ES2023 library does not declare it). */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** The digits the request readers keep of a JSON integer beyond ±2^53 (server/request-json.ts). */
const LONG_INTEGER = /^-?\d{16,}$/;

/**
 * Refuses, with BAD_USER_INPUT as graphql-js refuses a too large Int, a variable of type `Int` or
 * `Float` (or a list of them) given an integer beyond ±2^53: the request readers keep its digits
 * (docs/reference.md "Exact integers"), and neither type can hold it exactly. Returns the error
 * naming the variable, or undefined.
 */
export function checkLongIntegers(
  definitions: readonly VariableDefinitionNode[],
  variables: Readonly<Record<string, unknown>>,
): GraphQLError | undefined {
  for (const def of definitions) {
    const type = namedType(def.type);
    if (type !== 'Int' && type !== 'Float') continue;
    const name = def.variable.name.value;
    const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
    const long = Array.isArray(value) ? value.find(isLongInteger) : isLongInteger(value) ? value : undefined;
    if (long === undefined) continue;
    const why = type === 'Int' ? 'Int cannot represent non 32-bit signed integer value' : 'Float cannot represent exactly the integer';
    return badUserInput(`Variable "$${name}" got invalid value ${String(long)}; ${why} ${String(long)}.`, def);
  }
  return undefined;
}

function isLongInteger(value: unknown): boolean {
  return typeof value === 'string' && LONG_INTEGER.test(value) && !Number.isSafeInteger(Number(value));
}

function namedType(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedType(type.type);
}
