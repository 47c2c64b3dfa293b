/**
 * README "Dedupe", as docs/caching.md "Batching across fields and requests" says: two fields of
 * different types in one round whose `@batch` sends the same thing (`Post.author` and
 * `Comment.author` on `/users?ids={keys}`) share one request over their distinct keys.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { debugCounts, startTestGateway } from '../support/gateway.js';
import { splitIds, startUpstream } from '../support/upstream.js';

const SCHEMA = `
type Query {
  posts: [Post] @fetch(source: "api", path: "/posts")
  comments: [Comment] @fetch(source: "api", path: "/comments")
}
type Post { id: ID! authorId: ID! @from(key: "author_id") author: User @fetch(source: "api", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id") }
type Comment { id: ID! authorId: ID! @from(key: "author_id") author: User @fetch(source: "api", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id") }
type User { id: ID! name: String }
`;

test('Post.author and Comment.author in one round share one batch request over their distinct keys', async () => {
  const api = await startUpstream({
    'GET /posts': () => ({
      json: [
        { id: 1, author_id: 1 },
        { id: 2, author_id: 2 },
      ],
    }),
    'GET /comments': () => ({
      json: [
        { id: 7, author_id: 2 },
        { id: 8, author_id: 3 },
      ],
    }),
    'GET /users': ({ query }) => ({ json: splitIds(query.get('ids')).map((id) => ({ id, name: `user ${id}` })) }),
  });
  const gw = await startTestGateway({ sources: { api: { url: api.url } }, schemas: { 's.graphqls': SCHEMA } }).catch(
    async (err: unknown) => {
      await api.close();
      throw err;
    },
  );
  try {
    const res = await gw.query('{ posts { author { name } } comments { author { name } } }');
    assert.deepEqual(res.body.data, {
      posts: [{ author: { name: 'user 1' } }, { author: { name: 'user 2' } }],
      comments: [{ author: { name: 'user 2' } }, { author: { name: 'user 3' } }],
    });
    assert.equal(api.count('GET /users'), 1);
    assert.deepEqual(splitIds(api.requestsFor('GET /users')[0]!.query.get('ids')).sort(), ['1', '2', '3']);
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 3, batches: 1 });
  } finally {
    await gw.close();
    await api.close();
  }
});
