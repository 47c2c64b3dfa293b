/**
 * A non-null field that comes back null is the same error whichever engine shapes the operation
 * (execute/answer/value-errors.ts): graphql-jit for most operations, graphql-js for one with a conditional
 * copy of a merged field (plan/conditional-copies.ts). graphql-js raises it as a located plain Error,
 * which the answer's masking turned into "Unexpected error." with debug off (found by the property
 * suite once issue 45's rows were merged).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const SCHEMA = `
type Query { userResp(id: ID!): UserResponse @fetch(source: "s", path: "/users/{args.id}", response: true) }
type UserResponse { status: Int user: User @from(path: "body.user") }
type User { id: ID! name: String! rank: Int }
`;

describe('the non-null error through both engines, debug off', () => {
  let up: CountingUpstream;
  let gw: TestGateway;
  before(async () => {
    up = await startUpstream({ 'GET /users/:id': ({ params }) => ({ json: { user: { id: params.id, name: null, rank: 3 } } }) });
    gw = await startTestGateway({ schemas: { 's.graphqls': SCHEMA }, sources: { s: { url: up.url } }, debugMode: false });
  });
  after(async () => {
    await gw?.close();
    await up?.close();
  });

  test('graphql-jit and graphql-js give the engine-neutral message at the same path, never "Unexpected error."', async () => {
    const plain = '{ userResp(id: "1") { user { name } } }';
    const conditional = '{ userResp(id: "1") { ... on UserResponse { user { name } } user @skip(if: false) { rank } } }';
    for (const query of [plain, conditional]) {
      for (const headers of [undefined, { accept: 'application/graphql-response+json' }]) {
        const res = await gw.query(query, undefined, headers);
        assert.deepEqual(res.body.data, { userResp: { user: null } }, query);
        assert.equal(res.body.errors?.length, 1, res.text);
        assert.equal(res.body.errors![0]!.message, 'Cannot return null for non-nullable field User.name.', res.text);
        assert.deepEqual(res.body.errors![0]!.path, ['userResp', 'user', 'name']);
        assert.equal(res.body.errors![0]!.extensions?.code, undefined, res.text);
      }
    }
  });
});
