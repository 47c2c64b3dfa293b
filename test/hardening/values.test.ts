/**
 * Values from outside that the gateway cannot take as they are (docs/hardening.md "Fault matrix"):
 * - a lone surrogate (`"\ud800"`, valid JSON, no Unicode text) in `{parent.F}` makes only that
 *   field null with UPSTREAM_BAD_RESPONSE, nothing sent for it; in a variable, 400 BAD_USER_INPUT;
 * - a custom-scalar value nested deeper than `limits.max_json_depth` (a `scalar JSON` value 5,000
 *   levels deep) is UPSTREAM_BAD_RESPONSE at its own path, the rest of its object served;
 * - variables nested deeper than it (10,000 levels) are 400 BAD_USER_INPUT before coercion.
 * The rest of each answer is served, over both entrances, and the gateway answers the next query.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { errorAt, requestError } from '../support/assert.js';
import { ENTRANCES, sendThrough } from '../support/entrances.js';

const SCHEMA = `
scalar JSON
type Query {
  me: User @fetch(source: "s", path: "/me")
  user(id: ID!): User @fetch(source: "s", path: "/users/{args.id}")
  find(filter: Filter): [User] @fetch(source: "s", path: "/users?name={args.filter.name}")
  posts: [Post] @fetch(source: "s", path: "/posts")
  blob: Blob @fetch(source: "s", path: "/blob")
  deepBlob: Blob @fetch(source: "s", path: "/deep-blob")
}
input Filter { name: String inner: Filter }
type User { id: ID! name: String }
type Blob { id: ID! payload: JSON }
type Post {
  id: ID!
  authorId: ID @from(key: "author_id")
  author: User @fetch(source: "s", path: "/users/{parent.authorId}")
  batchedAuthor: User @fetch(source: "s", path: "/people/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id")
}
`;

const LONE = '\ud800';

describe('values the gateway cannot take as they are', () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    upstream = await startUpstream({
      'GET /me': () => ({ json: { id: 'me', name: 'Me' } }),
      'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: `user ${params.id}` } }),
      'GET /users': ({ query }) => ({
        json: (query.get('ids') ?? query.get('name') ?? '').split(',').map((id) => ({ id, name: `user ${id}` })),
      }),
      'GET /posts': () => ({
        json: [
          { id: 'p1', author_id: '1' },
          { id: 'p2', author_id: LONE },
          { id: 'p3', author_id: '3' },
        ],
      }),
      'GET /blob': () => ({ json: { id: 'b', payload: { shallow: [1, 2, 3] } } }),
      // 5,000 levels of arrays: valid JSON, 10 KB.
      'GET /deep-blob': () => ({
        body: `{"id":"d","payload":${'['.repeat(5000)}${']'.repeat(5000)}}`,
        headers: { 'content-type': 'application/json' },
      }),
    });
    gw = await startTestGateway({ schemas: { 's.graphqls': SCHEMA }, sources: { s: { url: upstream.url } } });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });

  test('a lone surrogate in {parent.F}: only that field is null, with UPSTREAM_BAD_RESPONSE, and nothing is sent for it', async () => {
    for (const entrance of ENTRANCES) {
      upstream.reset();
      const res = await sendThrough(entrance, gw.url, { query: '{ me { name } posts { id author { name } batchedAuthor { name } } }' });
      assert.equal(res.status, 200, entrance);
      const body = (await res.json()) as { data: { me: unknown; posts: Array<{ author: unknown; batchedAuthor: unknown }> } };
      assert.deepEqual(body.data.me, { name: 'Me' }, entrance);
      assert.deepEqual(
        body.data.posts.map((p) => [p.author, p.batchedAuthor]),
        [
          [{ name: 'user 1' }, { name: 'user 1' }],
          [null, null],
          [{ name: 'user 3' }, { name: 'user 3' }],
        ],
        entrance,
      );
      for (const field of ['author', 'batchedAuthor']) {
        const error = errorAt(body as never, ['posts', 1, field]);
        assert.equal(error.extensions?.code, 'UPSTREAM_BAD_RESPONSE', `${entrance} ${field}`);
        assert.equal(error.extensions?.source, 's');
      }
      assert.deepEqual(upstream.requests.map((r) => r.url).sort(), ['/me', '/posts', '/users/1', '/users/3', '/users?ids=1,3'], entrance);
    }
  });

  test('a lone surrogate in a variable: 400 BAD_USER_INPUT, nothing sent', async () => {
    for (const entrance of ENTRANCES) {
      upstream.reset();
      const res = await sendThrough(entrance, gw.url, {
        query: 'query ($id: ID!) { user(id: $id) { name } }',
        variables: { id: `x${LONE}y` },
      });
      assert.equal(res.status, 400, entrance);
      const error = requestError(await res.json());
      assert.equal(error.extensions?.code, 'BAD_USER_INPUT', entrance);
      assert.match(error.message, /\$id/);
      assert.equal(upstream.count(), 0);
    }
  });

  test('a custom-scalar value 5,000 levels deep: UPSTREAM_BAD_RESPONSE at its field, the rest served', async () => {
    for (const entrance of ENTRANCES) {
      const res = await sendThrough(entrance, gw.url, { query: '{ me { name } blob { payload } deepBlob { id payload } }' });
      assert.equal(res.status, 200, entrance);
      const body = (await res.json()) as { data: Record<string, unknown> };
      assert.deepEqual(
        body.data,
        { me: { name: 'Me' }, blob: { payload: { shallow: [1, 2, 3] } }, deepBlob: { id: 'd', payload: null } },
        entrance,
      );
      const error = errorAt(body as never, ['deepBlob', 'payload']);
      assert.equal(error.extensions?.code, 'UPSTREAM_BAD_RESPONSE');
      assert.equal(error.extensions?.source, 's');
      assert.match(error.message, /nested deeper than 256 levels/);
    }
  });

  test('variables 10,000 levels deep: 400 BAD_USER_INPUT before coercion; the gateway answers on', async () => {
    for (const entrance of ['fast', 'yoga'] as const) {
      upstream.reset();
      // Written as text: JSON.stringify itself recurses, and 10,000 levels exhaust its stack.
      const variables = `{"f":${'{"inner":'.repeat(10_000)}{}${'}'.repeat(10_000)}}`;
      const res = await sendThrough(
        entrance,
        gw.url,
        `{"query":"query ($f: Filter) { find(filter: $f) { name } }","variables":${variables}}`,
      );
      assert.equal(res.status, 400, entrance);
      const error = requestError(await res.json());
      assert.equal(error.extensions?.code, 'BAD_USER_INPUT', entrance);
      assert.match(error.message, /nested deeper than 256/);
      assert.equal(upstream.count(), 0);
    }
    // (Not a query with $f: graphql-jit takes seconds to compile one over a recursive input type.)
    const ok = await gw.query('{ me { name } }');
    assert.deepEqual(ok.body.data, { me: { name: 'Me' } });
  });
});

describe('at the largest limits.max_json_depth a value that deep is written', () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;
  const DEPTH = 1000;

  before(async () => {
    upstream = await startUpstream({
      'GET /deep-blob': () => ({
        body: `{"id":"d","payload":${'{"a":'.repeat(DEPTH - 1)}[]${'}'.repeat(DEPTH - 1)}}`,
        headers: { 'content-type': 'application/json' },
      }),
    });
    gw = await startTestGateway({
      schemas: { 's.graphqls': SCHEMA },
      sources: { s: { url: upstream.url } },
      extraToml: `[limits]\nmax_json_depth = ${DEPTH}\n`,
    });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });

  test(`a custom-scalar value ${DEPTH} levels deep: 200 on every entrance, the value whole`, async () => {
    for (const entrance of ENTRANCES) {
      const res = await sendThrough(entrance, gw.url, { query: '{ deepBlob { id payload } }' });
      const text = await res.text();
      assert.equal(res.status, 200, `${entrance}: ${text.slice(0, 200)}`);
      assert.equal(text.match(/\{"a":/g)?.length, DEPTH - 1, entrance);
      assert.equal(JSON.parse(text).errors, undefined, entrance);
    }
  });
});
