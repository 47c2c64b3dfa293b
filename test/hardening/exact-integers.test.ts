/**
 * Integers beyond 2^53 from a source keep their exact digits (docs/hardening.md "Fault matrix"):
 * JSON.parse would read 9007199254740993 as 9007199254740992, so a string parent id "…993" would
 * match the batch item of "…992" (another user's record, then cached), and a numeric parent id
 * "…993" would build `/users/9007199254740992`. Keys, placeholders, @batch matching and `ID`
 * fields see the exact digits; `Int` stays 32-bit (an error), `Float` a number; a body nested
 * past `limits.max_json_depth` on this path is UPSTREAM_BAD_RESPONSE.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { errorAt } from '../support/assert.js';

const SCHEMA = `
scalar Long
type Query {
  posts: [Post] @fetch(source: "s", path: "/posts")
  numericPosts: [Post] @fetch(source: "s", path: "/numeric-posts")
  big: Big @fetch(source: "s", path: "/big")
  deepBig: Big @fetch(source: "s", path: "/deep-big")
}
type Post {
  id: ID!
  authorId: ID @from(key: "author_id")
  author: User @fetch(source: "s", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id") @cache(ttl: 300)
  single: User @fetch(source: "s", path: "/people/{parent.authorId}")
}
type User { id: ID! name: String }
type Big { id: ID! count: Int ratio: Float raw: Long label: String }
`;

const A = '9007199254740992';
const B = '9007199254740993';
const JSON_TYPE = { 'content-type': 'application/json' };

describe('integers beyond 2^53 keep their digits', () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    upstream = await startUpstream({
      'GET /posts': () => ({
        json: [
          { id: 'p1', author_id: A },
          { id: 'p2', author_id: B },
        ],
      }),
      'GET /numeric-posts': () => ({ body: `[{"id":"p1","author_id":${A}},{"id":"p2","author_id":${B}}]`, headers: JSON_TYPE }),
      // Numeric ids for string keys, in the other order.
      'GET /users': () => ({ body: `[{"id":${B},"name":"B"},{"id":${A},"name":"A"}]`, headers: JSON_TYPE }),
      'GET /people/:id': ({ params }) => ({ json: { id: params.id, name: `person ${params.id}` } }),
      'GET /big': () => ({ body: `{"id":${B},"count":${B},"ratio":${B},"raw":${B},"label":${B}}`, headers: JSON_TYPE }),
      'GET /deep-big': () => ({ body: `{"id":${B},"raw":${'['.repeat(300)}${']'.repeat(300)}}`, headers: JSON_TYPE }),
    });
    gw = await startTestGateway({ schemas: { 's.graphqls': SCHEMA }, sources: { s: { url: upstream.url } } });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });

  test('string parent ids match numeric batch ids exactly, and the cache keeps each under its own key', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await gw.query('{ posts { id author { id name } } }');
      assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
      assert.deepEqual(res.body.data?.posts, [
        { id: 'p1', author: { id: A, name: 'A' } },
        { id: 'p2', author: { id: B, name: 'B' } },
      ]);
    }
    assert.equal(upstream.count('GET /users'), 1, 'the second query was answered by the cache');
  });

  test('numeric parent ids build their exact path', async () => {
    upstream.reset();
    const res = await gw.query('{ numericPosts { single { id name } } }');
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    assert.deepEqual(
      upstream
        .requestsFor('GET /people/:id')
        .map((r) => r.path)
        .sort(),
      [`/people/${A}`, `/people/${B}`],
    );
    assert.deepEqual(res.body.data?.numericPosts, [{ single: { id: A, name: `person ${A}` } }, { single: { id: B, name: `person ${B}` } }]);
  });

  test('ID and String write the digits, a custom scalar passes them on, Float is a number, Int refuses them', async () => {
    const res = await gw.query('{ big { id ratio raw label count } }');
    assert.deepEqual(res.body.data?.big, { id: B, ratio: 9007199254740992, raw: B, label: B, count: null });
    assert.equal(errorAt(res.body, ['big', 'count']).extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    assert.match(res.text, /"ratio":9007199254740992,/);
  });

  test('a body on the exact path nested deeper than max_json_depth is UPSTREAM_BAD_RESPONSE', async () => {
    const res = await gw.query('{ deepBig { id } big { id } }');
    assert.deepEqual(res.body.data, { deepBig: null, big: { id: B } });
    const error = errorAt(res.body, ['deepBig']);
    assert.equal(error.extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    assert.match(error.message, /nested deeper than 256 levels/);
  });
});
