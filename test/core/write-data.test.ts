/**
 * The data writer (gateway/execute/answer/write-data.ts) writes a plain success straight to JSON text; it
 * must write byte for byte what graphql-jit's result turned to JSON would be, and give up (leaving
 * the answer to the shaper) whenever that result would carry an error.
 *
 * 1. Through a real gateway: each query goes once through the fast path (which asks for the writer;
 *    its counter must move) and once through yoga (a chunked POST, shaped with graphql-jit); the two
 *    answers must be the same text, with `extensions` (debug) after `data`.
 * 2. Against the shaper itself, on the same schema and data: the writer writes exactly the text of
 *    JSON.stringify of graphql-jit's result when that result has no error, and nothing when it has.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { fastPathServed, sendThrough, type Entrance } from '../support/entrances.js';
import { buildBlueprint } from '../../gateway/blueprint/build.js';
import { loadConfig } from '../../gateway/config/load.js';
import { ResponseShaper } from '../../gateway/execute/answer/shape.js';
import { ResultStore } from '../../gateway/execute/send/result-store.js';
import { measureAnswer, ResponseLimitError, WriteMeter } from '../../gateway/execute/answer/answer-size.js';
import { buildPlan } from '../../gateway/plan/build.js';

const SCHEMA = `
type Query {
  items: [Item] @fetch(source: "s", path: "/items")
  strictItems: [Item!]! @fetch(source: "s", path: "/items")
  badInts: [BadInt] @fetch(source: "s", path: "/bad-ints")
  things: [Thing] @fetch(source: "s", path: "/things")
  nodes: [Node] @fetch(source: "s", path: "/things")
  scalars: Scalars @fetch(source: "s", path: "/scalars")
  failing: [Item] @fetch(source: "s", path: "/items-failing-owner")
}
enum Kind { A B }
type Item {
  id: ID!
  name: String
  count: Int
  ratio: Float
  flag: Boolean
  kind: Kind
  tags: [String]
  city: String @from(path: "address.city")
  label: String @from(key: "display_name")
  ownerId: ID @from(key: "owner_id")
  owner: User @fetch(source: "s", path: "/users/{parent.ownerId}")
}
type BadInt { id: ID! count: Int }
interface Node { id: ID! }
type User implements Node { id: ID! name: String }
type Robot implements Node { id: ID! model: String }
union Thing = User | Robot
type Scalars {
  idNumber: ID
  idBig: ID
  stringNumber: String
  stringBool: String
  intNegZero: Int
  floatInt: Float
  floatString: Float
  boolNumber: Boolean
  quoted: String
  unicode: String
  emoji: String
  lone: String
  controls: String
  missing: String
}
`;

const ITEMS = [
  {
    id: 1,
    name: 'plain',
    count: 3,
    ratio: 0.5,
    flag: true,
    kind: 'A',
    tags: ['x', null, 'z'],
    address: { city: 'Lyon' },
    display_name: 'One',
    owner_id: 7,
  },
  { id: 'two', name: 'say "hi"\n', count: -2, ratio: 1e21, flag: false, kind: 'B', tags: [], address: null, owner_id: 8 },
  { id: 3, name: null, count: null, ratio: -0, tags: null, address: { city: null }, display_name: 'Three', owner_id: 404 },
];
/** The items plus one whose owner's source fails (HTTP 500). */
const ITEMS_WITH_FAILING_OWNER = [...ITEMS, { id: 4, name: 'four', owner_id: 500 }];
const THINGS = [
  { __typename: 'User', id: 7, name: 'Ann' },
  { __typename: 'robot', id: 'r2', model: 'R2' },
];
const SCALARS = {
  idNumber: 42,
  idBig: 1e21,
  stringNumber: 12.5,
  stringBool: true,
  intNegZero: -0,
  floatInt: 3,
  floatString: '1.5',
  boolNumber: 0,
  quoted: 'a "b" \\ c',
  unicode: 'café ü 日本',
  emoji: 'smile 😀',
  lone: 'x\ud800y',
  controls: 'tab\tbell\u0007',
};

const ALL_SCALARS =
  'idNumber idBig stringNumber stringBool intNegZero floatInt floatString boolNumber quoted unicode emoji lone controls missing';

/** Queries whose answer is a plain success: the writer writes them. */
const WRITTEN: ReadonlyArray<[string, string]> = [
  ['every scalar kind and enum, lists with nulls, @from key and path', '{ items { id name count ratio flag kind tags city label } }'],
  ['aliases, __typename, a field asked twice, merged sub-selections', '{ a: items { id n: name __typename } items { id } items { name } }'],
  [
    'named and inline fragments',
    'query Q { items { ...F ... on Item { ratio } ... @include(if: true) { flag } ... @skip(if: true) { kind } } } fragment F on Item { id name }',
  ],
  [
    'a union and an interface told by __typename',
    '{ things { __typename ... on User { id name } ... on Robot { model } } nodes { id ... on Robot { model } } }',
  ],
  ['scalars the types coerce', `{ scalars { ${ALL_SCALARS} } }`],
  ['an empty list and a non-null list', '{ strictItems { id } }'],
];

/** Queries whose answer carries an error: the writer gives up and the shaper answers. */
const GIVEN_UP: ReadonlyArray<[string, string]> = [['an Int that is not one', '{ badInts { id count } }']];

/** Only through the gateway (a nested lookup, a missing owner): compared with yoga's answer. */
const NESTED: ReadonlyArray<[string, string]> = [
  ['a nested lookup, one owner missing (null)', '{ items { id owner { id name } } }'],
  ['a nested lookup with a named operation', 'query Owners { items { ownerId owner { __typename name } } }'],
];

/** Answers with a field error through the gateway: the writer gives up, the text is still the shaper's. */
const WITH_ERRORS: ReadonlyArray<[string, string]> = [
  ['an Int that is not one', '{ badInts { id count } }'],
  ['a nested lookup whose source fails', '{ failing { id owner { name } } }'],
];

describe('the data writer answers what the shaper answers', () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    upstream = await startUpstream({
      'GET /items': () => ({ json: ITEMS }),
      'GET /bad-ints': () => ({
        json: [
          { id: 1, count: 2 },
          { id: 2, count: 2.5 },
        ],
      }),
      'GET /things': () => ({ json: THINGS }),
      'GET /items-failing-owner': () => ({ json: ITEMS_WITH_FAILING_OWNER }),
      'GET /scalars': () => ({ json: SCALARS }),
      'GET /users/:id': ({ params }) =>
        params.id === '404' || params.id === '500'
          ? { status: Number(params.id), json: {} }
          : { json: { id: params.id, name: `u${params.id}` } },
    });
    gw = await startTestGateway({ schemas: { 's.graphqls': SCHEMA }, sources: { s: { url: upstream.url } }, debugMode: true });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });

  async function both(query: string): Promise<{ fast: string; yoga: string; status: number }> {
    const send = async (entrance: Entrance) => {
      upstream.reset();
      const served0 = await fastPathServed(gw.origin);
      const res = await sendThrough(entrance, gw.url, { query });
      const text = await res.text();
      assert.equal(await fastPathServed(gw.origin), served0 + (entrance === 'fast' ? 1 : 0), `${entrance} answered`);
      return { status: res.status, text, sent: upstream.requests.map((r) => r.url).sort() };
    };
    const fast = await send('fast');
    const yoga = await send('yoga');
    assert.equal(fast.status, yoga.status, 'status');
    assert.ok(fast.sent.length > 0, 'the query fetched from the upstream');
    assert.deepEqual(fast.sent, yoga.sent, 'both entrances sent the same requests to the upstream');
    return { fast: fast.text, yoga: yoga.text, status: fast.status };
  }

  for (const [name, query] of [...WRITTEN, ...NESTED]) {
    test(`through the gateway: ${name}`, async () => {
      const { fast, yoga, status } = await both(query);
      assert.equal(status, 200);
      assert.equal(fast, yoga, 'the same text on both entrances');
      assert.match(fast, /^\{"data":.*,"extensions":\{"gqlgw":\{"rounds":\d+,"subrequests":\d+,"batches":\d+,"cost":\d+\}\}\}$/s);
    });
  }

  for (const [name, query] of WITH_ERRORS) {
    test(`through the gateway, with a field error: ${name}`, async () => {
      const { fast, yoga, status } = await both(query);
      assert.equal(status, 200);
      assert.equal(fast, yoga, 'the same text on both entrances');
      assert.ok((JSON.parse(fast) as { errors?: unknown[] }).errors?.length, 'the answer carries the error');
    });
  }

  test('the writer writes every plain success and gives up on every answer with an error', async () => {
    const blueprint = buildBlueprint(loadConfig(gw.files.configPath));
    const shaper = new ResponseShaper(blueprint, 256);
    const bodies: Record<string, unknown> = {
      items: ITEMS,
      strictItems: ITEMS,
      badInts: [
        { id: 1, count: 2 },
        { id: 2, count: 2.5 },
      ],
      things: THINGS,
      nodes: THINGS,
      scalars: SCALARS,
    };
    for (const [name, query, written] of [
      ...WRITTEN.map(([n, q]) => [n, q, true] as const),
      ...GIVEN_UP.map(([n, q]) => [n, q, false] as const),
    ]) {
      const document = parse(query);
      const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!;
      const root = {};
      const store = new ResultStore();
      for (const node of operation.selectionSet.selections as FieldNode[]) {
        store.claim(root, node, { outcome: { kind: 'ok', body: JSON.parse(JSON.stringify(bodies[node.name.value])) as unknown } });
      }
      const shaped = await shaper.shape({ document }, root, { store, debugMode: false });
      const meter = WriteMeter.unbounded();
      const text = shaper.writeData({ document }, root, store, meter);
      assert.equal(shaped.errors === undefined, written, `${name}: the shaper's result has errors exactly when the writer should give up`);
      if (written) assert.equal(`{"data":${text}}`, JSON.stringify(shaped), name);
      else assert.equal(text, undefined, `${name}: given up`);
      if (!written) continue;
      // The meter replaces the measuring walk: it counts at least what the walk counts (the walk
      // passes within the meter's counts), and the same values (the walk refuses one fewer).
      const plan = buildPlan(blueprint, document, undefined)!;
      const measure = (maxNodes: number, maxBytes: number) =>
        measureAnswer({ selection: plan.root, value: root, typeName: plan.rootType }, store, {}, { maxNodes, maxBytes });
      assert.doesNotThrow(() => measure(meter.nodes, meter.bytes), `${name}: the walk counts no more than the meter`);
      assert.throws(() => measure(meter.nodes - 1, Infinity), ResponseLimitError, `${name}: the walk counts the meter's values`);
    }
  });
});
