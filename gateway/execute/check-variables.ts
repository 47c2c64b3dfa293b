import { GraphQLError } from 'graphql';
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
    if (problem !== undefined) return new GraphQLError(`Variable "$${name}" ${problem}.`, { extensions: { code: 'BAD_USER_INPUT' } });
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
