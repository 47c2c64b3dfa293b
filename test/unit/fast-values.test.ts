/**
 * plan/fast-values.ts: the variable and argument readers give exactly graphql-js's coerced values
 * (keys, order, prototype) for the cases they cover, and step aside (undefined) for every other.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildSchema, getArgumentValues, getVariableValues, parse, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { compileArguments, compileVariables } from '../../gateway/plan/fast-values.js';

const schema = buildSchema(`
  type Query {
    user(id: ID!, tag: String, limit: Int = 10): String
    find(ids: [ID!]!, on: Boolean, min: Float): String
  }
`);

function operation(text: string): { op: OperationDefinitionNode; field: FieldNode } {
  const op = parse(text).definitions[0] as OperationDefinitionNode;
  return { op, field: op.selectionSet.selections[0] as FieldNode };
}

/** graphql-js's coerced variables, or undefined when it reports errors. */
function graphqlVariables(op: OperationDefinitionNode, inputs: Record<string, unknown>): Record<string, unknown> | undefined {
  const coerced = getVariableValues(schema, op.variableDefinitions ?? [], inputs);
  return coerced.errors ? undefined : coerced.coerced;
}

/** Same keys in the same order, same values, same prototype. */
function assertSame(actual: Record<string, unknown>, expected: Record<string, unknown>): void {
  assert.deepStrictEqual(Object.keys(actual), Object.keys(expected));
  assert.deepStrictEqual(actual, expected);
  assert.equal(Object.getPrototypeOf(actual), Object.getPrototypeOf(expected));
}

describe('compileVariables', () => {
  const { op } = operation('query ($id: ID!, $tag: String, $n: Int, $f: Float, $on: Boolean) { user(id: $id) }');
  const read = compileVariables(schema, op.variableDefinitions!)!;

  test('values every scalar takes as they are: what graphql-js coerces', () => {
    const inputs = { on: true, id: '7', tag: 'x', n: -3, f: 1.5, extra: 'ignored' };
    assertSame(read(inputs)!, graphqlVariables(op, inputs)!);
  });

  test('anything else is left to graphql-js', () => {
    const base = { id: '7', tag: 'x', n: 1, f: 1, on: false };
    for (const change of [{ id: 7 }, { tag: null }, { n: 1.5 }, { n: 2 ** 31 }, { f: Number.NaN }, { on: 'yes' }, { id: undefined }]) {
      assert.equal(read({ ...base, ...change }), undefined, JSON.stringify(change));
    }
    const { tag: _tag, ...absent } = base;
    assert.equal(read(absent), undefined);
  });

  test('lists, defaults and a variable named __proto__ are not compiled', () => {
    const texts = [
      'query ($ids: [ID!]!) { find(ids: $ids) }',
      'query ($id: ID! = "1") { user(id: $id) }',
      'query ($__proto__: ID!) { user(id: $__proto__) }',
    ];
    for (const text of texts) {
      assert.equal(compileVariables(schema, operation(text).op.variableDefinitions!), undefined, text);
    }
  });
});

describe('compileArguments', () => {
  const def = (name: string) => schema.getQueryType()!.getFields()[name]!;

  test('variables and absent arguments: what getArgumentValues gives', () => {
    const { field } = operation('query ($id: ID!, $t: String) { user(tag: $t, id: $id) }');
    const read = compileArguments(def('user'), field)!;
    const variables = Object.assign(Object.create(null) as Record<string, unknown>, { id: '3', t: 'a' });
    assertSame(read(variables)!, getArgumentValues(def('user'), field, variables));
    const { field: lists } = operation('query ($ids: [ID!]!) { find(ids: $ids) }');
    const listVariables = Object.assign(Object.create(null) as Record<string, unknown>, { ids: ['1', '2'] });
    assertSame(compileArguments(def('find'), lists)!(listVariables)!, getArgumentValues(def('find'), lists, listVariables));
  });

  test('a null or missing variable is left to graphql-js; literals are not compiled', () => {
    const { field } = operation('query ($id: ID, $t: String) { user(id: $id, tag: $t) }');
    const read = compileArguments(def('user'), field)!;
    assert.equal(read(Object.assign(Object.create(null) as Record<string, unknown>, { id: '1', t: null })), undefined);
    assert.equal(read(Object.assign(Object.create(null) as Record<string, unknown>, { id: '1' })), undefined);
    assert.equal(compileArguments(def('user'), operation('query ($t: String) { user(id: "1", tag: $t) }').field), undefined);
    assert.equal(compileArguments(def('user'), operation('query ($t: String) { user(tag: $t) }').field), undefined);
  });
});
