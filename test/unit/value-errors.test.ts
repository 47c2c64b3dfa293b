/**
 * Value errors (execute/answer/value-errors.ts): a refusal by a hook of gqlgw carries its code in a
 * ValueError; the engines' own checks are read from their messages, a fallback pinned here. Each
 * check runs through graphql-js and graphql-jit as installed, and each exact message is asserted,
 * with what the fallback reads of it: an engine upgrade that rewords one fails here instead of
 * silently dropping UPSTREAM_BAD_RESPONSE (and letting the value through in the message).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSchema, execute, GraphQLError, GraphQLScalarType, parse, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { ValueError } from '../../gateway/errors.js';
import {
  engineValueError,
  nestedTooDeep,
  type EngineValueError,
  NON_NULL,
  REPEATED_NAME,
} from '../../gateway/execute/answer/value-errors.js';

const SDL = `
scalar JSON
enum Color { RED }
type User { name: String! }
type Other { id: Int }
union Item = User
union Pick = User
type Query { user: User users: [User] item: Item pick: Pick s: String i: Int c: Color l: [String] o: User j: JSON deep: JSON }
`;

/** The schema with hooks as gqlgw's shaping schema installs them (execute/answer/shape.ts). */
function hooked(): GraphQLSchema {
  const schema = buildSchema(SDL);
  const user = schema.getType('User') as unknown as { isTypeOf: (v: unknown) => boolean };
  user.isTypeOf = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  (schema.getType('Item') as unknown as { resolveType: () => undefined }).resolveType = () => undefined;
  (schema.getType('Pick') as unknown as { resolveType: () => string }).resolveType = () => 'Other';
  const json = schema.getType('JSON') as GraphQLScalarType;
  json.serialize = (v: unknown) => {
    if (v === 'too deep') throw nestedTooDeep(3);
    return v === 'nothing' ? undefined : v;
  };
  return schema;
}

const ROOT = {
  user: { name: null },
  users: [5],
  item: { kind: 'x' },
  pick: { kind: 'x' },
  s: { secret: 1 },
  i: 'x',
  c: 'BLUE',
  l: 3,
  o: 'str',
  j: 'nothing',
  deep: 'too deep',
};
const QUERY = '{ user { name name } users { name } item { __typename } pick { __typename } s i c l o { name } j deep }';

/** `path: message` of each error, in path order. */
function messages(result: ExecutionResult): string[] {
  return (result.errors ?? []).map((e) => `${e.path?.join('.')}: ${e.message}`).sort();
}

/** What the fallback reads of each engine's message, by path, where both engines agree. */
const READS: Record<string, EngineValueError | undefined> = {
  c: { kind: 'scalar', type: 'Color' },
  i: { kind: 'scalar', type: 'Int' },
  s: { kind: 'scalar', type: 'String' },
  item: { kind: 'abstract', type: 'Item' },
  pick: { kind: 'abstract', type: 'Pick' },
  l: { kind: 'list' },
  o: { kind: 'object', type: 'User' },
  'users.0': { kind: 'object', type: 'User' },
};

function errorAt(result: ExecutionResult, path: string): GraphQLError {
  const error = result.errors?.find((e) => e.path?.join('.') === path);
  assert.ok(error, path);
  return error;
}

/** engineValueError of the message at each path is what `reads` says (undefined: not read as a value error). */
function assertReads(result: ExecutionResult, reads: Record<string, EngineValueError | undefined>): void {
  for (const [path, expected] of Object.entries(reads)) assert.deepEqual(engineValueError(errorAt(result, path).message), expected, path);
}

async function bothEngines(): Promise<{ js: ExecutionResult; jit: ExecutionResult }> {
  const schema = hooked();
  const document = parse(QUERY);
  const js = await execute({ schema, document, rootValue: ROOT });
  const compiled = compileQuery(schema, document);
  assert.ok(isCompiledQuery(compiled));
  const jit = await compiled.query(ROOT, {}, {});
  return { js, jit };
}

test('graphql-js: the exact messages of its value checks, and what the fallback reads of each', async () => {
  const { js } = await bothEngines();
  assert.deepEqual(messages(js), [
    'c: Enum "Color" cannot represent value: "BLUE"',
    'deep: the source answered a value nested deeper than 3 levels',
    'i: Int cannot represent non-integer value: "x"',
    'item: Abstract type "Item" must resolve to an Object type at runtime for field "Query.item". Either the "Item" type should provide a "resolveType" function or each possible type should provide an "isTypeOf" function.',
    'j: Expected `JSON.serialize("nothing")` to return non-nullable value, returned: undefined',
    'l: Expected Iterable, but did not find one for field "Query.l".',
    'o: Expected value of type "User" but got: "str".',
    'pick: Runtime Object type "Other" is not a possible type for "Pick".',
    's: String cannot represent value: { secret: 1 }',
    'user.name: Cannot return null for non-nullable field User.name.',
    'users.0: Expected value of type "User" but got: 5.',
  ]);
  assertReads(js, { ...READS, j: undefined });
  // gqlgw's own hook: graphql-js keeps its ValueError, code and all, as the located error's original.
  const deep = errorAt(js, 'deep');
  assert.ok(deep.originalError instanceof ValueError);
  assert.equal(deep.originalError.code, 'UPSTREAM_BAD_RESPONSE');
  assert.equal(deep.originalError.shown, 'the source answered a value nested deeper than 3 levels (limits.max_json_depth)');
  assert.equal(deep.extensions.code, undefined, 'the located copy inherits no extensions');
  // The non-null error: a plain Error located at the path, named once.
  const nonNull = errorAt(js, 'user.name');
  assert.match(nonNull.message, NON_NULL);
  assert.ok(nonNull.originalError !== undefined && !(nonNull.originalError instanceof GraphQLError));
});

test('graphql-jit: the exact messages of its value checks, and what the fallback reads of each', async () => {
  const { jit } = await bothEngines();
  assert.deepEqual(messages(jit), [
    'c: Enum "Color" cannot represent value: "BLUE"',
    'deep: the source answered a value nested deeper than 3 levels',
    'i: Int cannot represent non-integer value: "x"',
    'item: Runtime Object type is not a possible type for "Item".',
    'j: Expected a value of type "JSON" but received: nothing',
    'l: Expected Iterable, but did not find one for field Query.l.',
    'o: Expected value of type "User" but got: "str".',
    'pick: Runtime Object type "Other" is not a possible type for "Pick".',
    's: String cannot represent value: { secret: 1 }',
    'user.name: Cannot return null for non-nullable field User.(name,name).',
    'users.0: Expected value of type "User" but got: 5.',
  ]);
  assertReads(jit, { ...READS, j: { kind: 'scalar', type: 'JSON' } });
  // graphql-jit keeps only a serializer's message, not its error: gqlgw's own wording is read then.
  const deep = errorAt(jit, 'deep');
  assert.ok(!(deep.originalError instanceof ValueError));
  assert.equal(engineValueError(deep.message), undefined, "gqlgw's own wording, not an engine's");
  assert.match(errorAt(jit, 'user.name').message, REPEATED_NAME);
});
