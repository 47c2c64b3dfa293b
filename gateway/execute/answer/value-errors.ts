import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Blueprint } from '../../blueprint/types.js';
import type { Plan, PlanEntry, PlanSelection } from '../../plan/types.js';
import { undecidableTypeMessage } from '../ask/concrete-type.js';
import { CODE, ValueError } from '../../errors.js';
import { INT64_REFUSED, INT64_SHOWN } from '../../blueprint/exact-scalars.js';

/**
 * Upstream values that do not fit their schema type (docs/reference.md): a hook of gqlgw refuses
 * them with a ValueError that carries its code (gateway/errors.ts; a custom scalar's value nested
 * too deep), or graphql-js and graphql-jit find them while shaping (a built-in scalar's or an
 * enum's serializer refuses the value, an object where a list is declared or the other way round,
 * a union item whose type cannot be told) and word the error with the value in it, which could
 * be anything the upstream holds (a password hash). Each such error becomes `UPSTREAM_BAD_RESPONSE`
 * at the same path, with the `source` of the nearest fetched field above it, a message that names
 * only the expected type, and the refusal's own message in `extensions.detail` in debug mode only.
 * Errors that already carry a code are left as they are.
 */
export function presentValueErrors(result: ExecutionResult, plan: Plan, blueprint: Blueprint, debugMode: boolean): ExecutionResult {
  if (!result.errors?.some((e) => e.extensions?.code === undefined)) return result;
  const errors = result.errors.map((error) => {
    if (error.extensions?.code !== undefined) return error;
    const message = safeMessage(error, blueprint);
    if (message === undefined) return namedOnce(error);
    const extensions: Record<string, unknown> = { code: error.originalError instanceof ValueError ? error.originalError.code : VALUE_CODE };
    const source = error.path ? sourceAt(plan.root, error.path) : undefined;
    if (source !== undefined) extensions.source = source;
    if (debugMode) extensions.detail = error.message;
    return reworded(error, message, extensions);
  });
  return { ...result, errors };
}

/** graphql-jit's non-null error on a field selected more than once: `User.(name,name)`. */
export const REPEATED_NAME = /^(Cannot return null for non-nullable field [A-Za-z_][A-Za-z0-9_]*\.)\(([A-Za-z_][A-Za-z0-9_]*)(?:,\2)+\)\.$/;

/** Both engines' non-null error. */
export const NON_NULL = /^Cannot return null for non-nullable field /;

/**
 * The non-null error naming its field once, as graphql-js does (`User.name`), and as the engine's
 * own error: graphql-js raises it as a plain Error located at the path, which the answer's masking
 * would hide as "Unexpected error." (server/answers.ts), while graphql-jit raises a GraphQLError.
 * Any other error as it is.
 */
function namedOnce(error: GraphQLError): GraphQLError {
  const m = REPEATED_NAME.exec(error.message);
  if (m) return reworded(error, `${m[1]}${m[2]}.`, error.extensions);
  if (error.originalError !== undefined && NON_NULL.test(error.message)) return reworded(error, error.message, error.extensions);
  return error;
}

/** `error` with another message and extensions, at the same path and locations. */
function reworded(error: GraphQLError, message: string, extensions: GraphQLError['extensions']): GraphQLError {
  const rebuilt = new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions,
  });
  if (rebuilt.locations === undefined && error.locations)
    Object.defineProperty(rebuilt, 'locations', { value: error.locations, enumerable: true });
  return rebuilt;
}

/** The code of a value error the engine found (a ValueError carries its own). */
const VALUE_CODE = CODE.UPSTREAM_BAD_RESPONSE;

/** How a custom scalar refuses a value too deep to write (execute/answer/shape.ts), followed by the bound. */
const NESTED_DEEPER = 'the source answered a value nested deeper than';
const DEEP = new RegExp(`^${NESTED_DEEPER} (\\d+) levels$`);

/** The refusal of a custom scalar's value nested deeper than `maxJsonDepth` (limits.max_json_depth). */
export function nestedTooDeep(maxJsonDepth: number): ValueError {
  return new ValueError(`${NESTED_DEEPER} ${maxJsonDepth} levels`, `${NESTED_DEEPER} ${maxJsonDepth} levels (limits.max_json_depth)`);
}

/**
 * What a client reads of a value error, in this order: what the refusing hook of gqlgw said (a
 * ValueError: graphql-js keeps it as the located error's `originalError`); gqlgw's own wording of
 * that refusal (graphql-jit keeps only a serializer's message); else the engine's wording
 * (engineValueError, the pinned fallback for the engines' own checks: built-in scalars, enums,
 * isTypeOf, lists, resolveType). Undefined: not a value error.
 */
function safeMessage(error: GraphQLError, blueprint: Blueprint): string | undefined {
  const own = error.originalError;
  if (own instanceof ValueError) return own.shown;
  if (error.message.startsWith(INT64_REFUSED)) return INT64_SHOWN;
  const deep = DEEP.exec(error.message);
  if (deep) return `${NESTED_DEEPER} ${deep[1]} levels (limits.max_json_depth)`;
  const engine = engineValueError(error.message);
  switch (engine?.kind) {
    case undefined:
      return undefined;
    case 'scalar':
      return `the source answered a value that does not fit the type ${engine.type}`;
    case 'object':
      return `the source answered a value that does not fit the type ${engine.type}: an object was expected`;
    case 'list':
      return 'the source answered a value that does not fit its type: a list was expected';
    case 'abstract': {
      const d = blueprint.discriminators.get(engine.type);
      return d && undecidableTypeMessage(d);
    }
  }
}

/**
 * A value error as an engine words it: a scalar's or enum's serializer refused the value
 * (`scalar`, the type expected), an object type's isTypeOf did (`object`), a list was expected
 * (`list`), or an item of an abstract type could not be told (`abstract`, that type).
 */
export type EngineValueError = { readonly kind: 'scalar' | 'object' | 'abstract'; readonly type: string } | { readonly kind: 'list' };

/**
 * graphql-js 16's and graphql-jit 0.8's wordings of a value error, read by regular expression: the
 * fallback for the checks the engines make themselves. test/unit/value-errors.test.ts pins the
 * exact messages of both engines, so an upgrade that rewords one fails there instead of silently
 * changing a code.
 */
export function engineValueError(message: string): EngineValueError | undefined {
  let m = SERIALIZE.exec(message) ?? INVALID.exec(message);
  if (m) return { kind: 'scalar', type: (m[1] ?? m[2])! };
  m = NOT_OBJECT.exec(message);
  if (m) return { kind: 'object', type: m[1]! };
  if (NOT_LIST.test(message)) return { kind: 'list' };
  for (const re of UNDECIDED) {
    m = re.exec(message);
    if (m) return { kind: 'abstract', type: m[1]! };
  }
  return undefined;
}

/** graphql-js's and graphql-jit's wordings, with what each one expected in group 1 or 2. */
const SERIALIZE = /^(?:Enum "([^"]+)"|(Int|Float|String|Boolean|ID)) cannot represent /;
const INVALID = /^Expected a value of type "([^"]+)" but received: /;
const NOT_OBJECT = /^Expected value of type "([^"]+)" but got: /;
const NOT_LIST = /^Expected Iterable, but did not find one for field /;
const UNDECIDED = [
  /^Runtime Object type is not a possible type for "([^"]+)"/,
  /^Abstract type "?([^" ]+)"? must resolve to an Object type at runtime/,
  /^Runtime Object type "[^"]*" is not a possible type for "([^"]+)"/,
];

/** The source of the deepest fetched field on a response path (list indices skipped). */
function sourceAt(root: PlanSelection, path: ReadonlyArray<string | number>): string | undefined {
  let selection: PlanSelection | undefined = root;
  let source: string | undefined;
  for (const key of path) {
    if (typeof key === 'number') continue;
    if (!selection) break;
    const entries: PlanEntry[] = selection.entries.filter((e) => e.responseKey === key);
    if (entries.length === 0) break;
    const fetched: PlanEntry | undefined = entries.find((e) => e.blueprint.fetch);
    if (fetched) source = fetched.blueprint.fetch!.source.name;
    selection = (fetched ?? entries[0]!).children;
  }
  return source;
}
