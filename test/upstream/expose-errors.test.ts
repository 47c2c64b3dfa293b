/**
 * `expose_errors` (docs/rest-shapes.md "Errors a caller may read", SPEC "Real APIs' manners"): the
 * listed dotted paths of a 4xx JSON body reach `extensions.upstream` with debug off, on every
 * entrance alike; a value over 1 KB, a path with no value and any 5xx body never do.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENTRANCES, fastPathServed, sendThrough } from '../support/entrances.js';
import { startTestGateway, type GraphQLResult, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const SCHEMA = `
type Query {
  ticket(id: ID!): Ticket @fetch(source: "desk", path: "/tickets/{args.id}")
  quiet(id: ID!): Ticket @fetch(source: "quiet", path: "/tickets/{args.id}")
}
type Mutation {
  closeTicket(id: ID!): Ticket @fetch(source: "desk", method: "PUT", path: "/tickets/{args.id}", body: """{"status": "closed"}""")
}
type Ticket { id: ID! status: String }
`;

const INVALID = {
  error: 'RecordInvalid',
  details: { status: [{ description: 'Status: closed prevents ticket update' }] },
  secret: 'internal-trace-7f3a',
  big: 'x'.repeat(2000),
};
const EXPOSED = { error: 'RecordInvalid', 'details.status.0.description': 'Status: closed prevents ticket update' };

describe('expose_errors', () => {
  let desk: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    desk = await startUpstream({
      'GET /tickets/:id': ({ params }) => ({ status: params.id === '500' ? 500 : 422, json: INVALID }),
      'PUT /tickets/:id': () => ({ status: 422, json: INVALID }),
    });
    const paths = '["error", "details.status.0.description", "big", "details.status.5.description", "secret.length"]';
    gw = await startTestGateway({
      debugMode: false,
      sources: { desk: { url: desk.url, extra: `expose_errors = ${paths}` }, quiet: { url: desk.url } },
      schemas: { 's.graphqls': SCHEMA },
    });
  });
  after(async () => {
    await gw.close();
    await desk.close();
  });

  test("a 422's listed values reach extensions.upstream with debug off, alike on every entrance", async () => {
    const fastBefore = await fastPathServed(gw.origin);
    const answers: string[] = [];
    for (const entrance of ENTRANCES) {
      const res = await sendThrough(entrance, gw.url, { query: '{ ticket(id: 1) { id } }' });
      const body = (await res.json()) as GraphQLResult;
      const error = body.errors?.[0];
      assert.deepEqual(error?.extensions, { code: 'UPSTREAM_HTTP_ERROR', source: 'desk', status: 422, upstream: EXPOSED }, entrance);
      assert.equal(error?.message, 'source "desk" answered HTTP 422');
      answers.push(JSON.stringify(body));
    }
    assert.equal(new Set(answers).size, 1, 'every entrance answers the same bytes');
    assert.equal((await fastPathServed(gw.origin)) - fastBefore, 2, 'the fast path answered its two entrances');

    const write = await gw.query('mutation { closeTicket(id: 7) { status } }');
    assert.deepEqual(write.body.errors?.[0]?.extensions?.upstream, EXPOSED);
    assert.equal(desk.count('PUT /tickets/:id'), 1);
    assert.ok(!write.text.includes('internal-trace'), 'an unlisted value stays out');
  });

  test("a 500's body never reaches the caller, nor a source's body without expose_errors", async () => {
    const server = await gw.query('{ ticket(id: 500) { id } }');
    assert.deepEqual(server.body.errors?.[0]?.extensions, { code: 'UPSTREAM_HTTP_ERROR', source: 'desk', status: 500 });
    assert.ok(!server.text.includes('RecordInvalid'));
    const quiet = await gw.query('{ quiet(id: 1) { id } }');
    assert.deepEqual(quiet.body.errors?.[0]?.extensions, { code: 'UPSTREAM_HTTP_ERROR', source: 'quiet', status: 422 });
    assert.ok(!quiet.text.includes('RecordInvalid'));
  });
});
