/**
 * GraphQL over HTTP: every kind of bad request gets its status and a clear message, and
 * nothing internal (field suggestions, upstream bodies, URLs, stacks) reaches a client unless
 * debug is on. Over real HTTP against a real gateway; bad requests send no subrequest.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type GraphQLResult, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { errorAt, requestError } from '../support/assert.js';

const SCHEMA = `
type Query {
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}")
}
type Mutation { touch: Int }
type User { id: ID! name: String }
`;

/** What an upstream might leak in an error body. */
const SECRET = 'secret-db-password-in-a-stack-trace';

describe('GraphQL-over-HTTP answers', () => {
  let users: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    users = await startUpstream({
      'GET /users/boom': () => ({ status: 500, body: `Error: ${SECRET}\n    at handler (/srv/app.js:1:1)` }),
      'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: `User ${params.id}` } }),
    });
    gw = await startTestGateway({ debugMode: false, sources: { users: { url: users.url } }, schemas: { 's.graphqls': SCHEMA } });
  });
  after(async () => {
    await gw.close();
    await users.close();
  });

  const cases: Array<{
    name: string;
    send: () => Promise<{ status: number; body: unknown }>;
    status: number;
    code: string;
    message: RegExp;
  }> = [
    { name: 'malformed JSON', send: () => gw.post('{"query": '), status: 400, code: 'BAD_REQUEST', message: /invalid JSON/ },
    {
      name: 'a JSON body that is not an object',
      send: () => gw.post('"{ user(id: 1) { id } }"'),
      status: 400,
      code: 'BAD_REQUEST',
      message: /expected to be object/,
    },
    {
      name: 'missing query',
      send: () => gw.post('{"variables": {}}'),
      status: 400,
      code: 'BAD_REQUEST',
      message: /Must provide query string/,
    },
    {
      name: 'a query that is not a string',
      send: () => gw.post('{"query": 42}'),
      status: 400,
      code: 'BAD_REQUEST',
      message: /"query" param to be a string/,
    },
    {
      name: 'variables that are not an object',
      send: () => gw.post('{"query": "{ user(id: 1) { id } }", "variables": [1]}'),
      status: 400,
      code: 'BAD_REQUEST',
      message: /"variables" param/,
    },
    {
      name: 'a syntax error',
      send: () => gw.query('{ user(id: 1) { id }'),
      status: 400,
      code: 'GRAPHQL_PARSE_FAILED',
      message: /Syntax Error/,
    },
    {
      name: 'an unknown field',
      send: () => gw.query('{ user(id: 1) { nam } }'),
      status: 400,
      code: 'GRAPHQL_VALIDATION_FAILED',
      message: /^Cannot query field "nam" on type "User"\.$/,
    },
    {
      name: 'a variable of the wrong type',
      send: () => gw.query('query Q($id: ID!) { user(id: $id) { id } }', { id: { nested: true } }),
      status: 400,
      code: 'BAD_REQUEST',
      message: /Variable "\$id" got invalid value/,
    },
    {
      name: 'a missing required variable',
      send: () => gw.query('query Q($id: ID!) { user(id: $id) { id } }', {}),
      status: 400,
      code: 'BAD_REQUEST',
      message: /"\$id" of required type "ID!" was not provided/,
    },
    {
      name: 'an unknown operation name',
      send: () => gw.query('query A { user(id: 1) { id } }', {}, {}, 'B'),
      status: 400,
      code: 'OPERATION_RESOLUTION_FAILURE',
      message: /^Unknown operation named "B"\.$/,
    },
    {
      name: 'two operations and no name',
      send: () => gw.query('query A { user(id: 1) { id } } query B { user(id: 2) { id } }'),
      status: 400,
      code: 'OPERATION_RESOLUTION_FAILURE',
      message: /name one in "operationName"/,
    },
    {
      name: 'a mutation over GET',
      send: () => gw.get(`/graphql?query=${encodeURIComponent('mutation { touch }')}`, { accept: 'application/json' }),
      status: 405,
      code: 'BAD_REQUEST',
      message: /mutation operation from a POST request/,
    },
    {
      name: 'a text/plain body',
      send: () => gw.post('{"query": "{ user(id: 1) { id } }"}', { 'content-type': 'text/plain' }),
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: /application\/json, not "text\/plain"/,
    },
    {
      name: 'a form post',
      send: () => gw.post('query=%7B%20user(id%3A%201)%20%7B%20id%20%7D%20%7D', { 'content-type': 'application/x-www-form-urlencoded' }),
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: /application\/json/,
    },
    {
      name: 'a PUT',
      send: async () => {
        const r = await fetch(gw.url, { method: 'PUT', body: '{}', headers: { 'content-type': 'application/json' } });
        return { status: r.status, body: await r.json() };
      },
      status: 405,
      code: 'BAD_REQUEST',
      message: /GET and POST/,
    },
  ];

  for (const c of cases) {
    test(`${c.name}: ${c.status} ${c.code}`, async () => {
      users.reset();
      const res = await c.send();
      assert.equal(res.status, c.status, JSON.stringify(res.body));
      const error = requestError(res.body);
      assert.equal(error.extensions?.code, c.code);
      assert.match(error.message, c.message);
      assert.equal(users.count(), 0, 'a bad request sends no subrequest');
    });
  }

  test('request errors are 400 also for clients that accept application/graphql-response+json', async () => {
    const res = await gw.post(JSON.stringify({ query: '{ user(id: 1) { nam } }' }), { accept: 'application/graphql-response+json' });
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /application\/graphql-response\+json/);
  });

  test('a good GET and a good POST are 200', async () => {
    const get = await gw.get(`/graphql?query=${encodeURIComponent('{ user(id: 7) { name } }')}`, { accept: 'application/json' });
    assert.equal(get.status, 200);
    assert.deepEqual((get.body as GraphQLResult).data, { user: { name: 'User 7' } });
    const post = await gw.query('{ user(id: 8) { name } }');
    assert.equal(post.status, 200);
  });

  test('field suggestions are not shown', async () => {
    const res = await gw.query('{ user(id: 1) { nmae } }');
    assert.doesNotMatch(res.text, /Did you mean/);
  });

  test('an upstream failure shows code, status and source, never the upstream body, URL or a stack', async () => {
    const res = await gw.query('{ ok: user(id: 1) { name } bad: user(id: "boom") { name } }');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { ok: { name: 'User 1' }, bad: null });
    const error = errorAt(res.body, ['bad']);
    assert.deepEqual(error.extensions, { code: 'UPSTREAM_HTTP_ERROR', source: 'users', status: 500 });
    assert.equal(res.text.includes(SECRET), false);
    assert.equal(res.text.includes(String(new URL(users.url).port)), false, 'no upstream URL');
    assert.doesNotMatch(res.text, /\/users\/boom|app\.js|at handler/);
  });

  test('/healthz and /readyz answer 200', async () => {
    assert.equal((await gw.get('/healthz')).status, 200);
    const ready = await gw.get('/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready' });
  });
});

describe('with debug on', () => {
  let users: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    users = await startUpstream({ 'GET /users/:id': () => ({ status: 503, body: 'down for maintenance' }) });
    gw = await startTestGateway({ debugMode: true, sources: { users: { url: users.url } }, schemas: { 's.graphqls': SCHEMA } });
  });
  after(async () => {
    await gw.close();
    await users.close();
  });

  test('suggestions and the upstream detail are shown', async () => {
    const typo = await gw.query('{ user(id: 1) { nmae } }');
    assert.match((typo.body as GraphQLResult).errors?.[0]?.message ?? '', /Did you mean "name"\?/);
    const res = await gw.query('{ user(id: 1) { name } }');
    const error = errorAt(res.body, ['user']);
    assert.equal(error.extensions?.code, 'UPSTREAM_HTTP_ERROR');
    assert.match(String(error.extensions?.detail), /GET \/users\/1 → 503/);
  });
});
