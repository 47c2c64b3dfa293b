/**
 * Only own keys are fields, also where gqlgw writes JSON (SPEC "Exact data in both directions"): an
 * `_entities` representation is written into the JSON its type reads along each field's `@from`
 * steps, and a step named `__proto__` is an own key there, never the prototype of the object (nor
 * Object.prototype of the whole process).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import type { CountingUpstream } from '../support/upstream.js';
import { PRODUCTS_SCHEMA, startProductsRest } from './products-fixture.js';

const GADGET = `
type Gadget @key(fields: "id") @lookup(key: "id", source: "rest", path: "/gadgets/{key.id}") {
  id: ID!
  tag: String @from(path: "__proto__.polluted")
  kind: String @from(path: "constructor.name")
}
`;

describe('a representation written along __proto__ steps', () => {
  let rest: CountingUpstream;
  let gw: TestGateway;
  before(async () => {
    rest = await startProductsRest();
    rest.setRoute('GET /gadgets/:id', ({ params }) => ({ json: { id: params.id } }));
    gw = await startTestGateway({ sources: { rest: { url: rest.url } }, schemas: { 'products.graphqls': PRODUCTS_SCHEMA + GADGET } });
  });
  after(async () => {
    await gw.close();
    await rest.close();
  });

  test('stays an own key: the field reads what the representation gave, and no prototype changes', async () => {
    const res = await gw.query('query ($r: [_Any!]!) { _entities(representations: $r) { ... on Gadget { id tag kind } } }', {
      r: [{ __typename: 'Gadget', id: '1', tag: 'evil', kind: 'Function' }],
    });
    assert.deepEqual(res.body.data, { _entities: [{ id: '1', tag: 'evil', kind: 'Function' }] });
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype is untouched');
    assert.equal(rest.count('GET /gadgets/:id'), 1);
  });
});
