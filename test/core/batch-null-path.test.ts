/**
 * A null {args.*} in the path part of a @batch path: like a null in a single fetch's path part
 * (docs/reference.md), the field is null and no request is sent; other lookups of the same field
 * with a non-null argument are still batched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { splitIds, startUpstream, type CountingUpstream } from '../support/upstream.js';

const SCHEMA = `
type Query {
  posts: [Post] @fetch(source: "posts", path: "/posts")
}
type Post {
  id: ID!
  authorId: ID! @from(key: "author_id")
  author(org: String): User
    @fetch(source: "users", path: "/users/{parent.authorId}?org={args.org}")
    @batch(path: "/orgs/{args.org}/users?ids={keys}", match: "id")
}
type User { id: ID! name: String }
`;

describe('@batch path with a null argument in its path part', () => {
  let users: CountingUpstream;
  let posts: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    users = await startUpstream({
      'GET /orgs/:org/users': ({ params, query }) => ({
        json: splitIds(query.get('ids')).map((id) => ({ id, name: `${params.org} ${id}` })),
      }),
    });
    posts = await startUpstream({ 'GET /posts': () => ({ json: [1, 2].map((i) => ({ id: i, author_id: String(i) })) }) });
    gw = await startTestGateway({ sources: { users: { url: users.url }, posts: { url: posts.url } }, schemas: { 's.graphqls': SCHEMA } });
  });
  after(async () => {
    await gw.close();
    await users.close();
    await posts.close();
  });

  test('is null without a request or an error; the same field with a value is batched', async () => {
    users.reset();
    const res = await gw.query('{ posts { id none: author(org: null) { name } acme: author(org: "acme") { name } } }');
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    assert.deepEqual(res.body.data, {
      posts: [
        { id: '1', none: null, acme: { name: 'acme 1' } },
        { id: '2', none: null, acme: { name: 'acme 2' } },
      ],
    });
    assert.deepEqual(
      users.requests.map((r) => r.url),
      ['/orgs/acme/users?ids=1,2'],
      'one batch for org "acme", nothing for the null org',
    );
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 2, batches: 1 });
  });

  test('an omitted argument is null too', async () => {
    users.reset();
    const res = await gw.query('{ posts { id author { name } } }');
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    assert.deepEqual(res.body.data, {
      posts: [
        { id: '1', author: null },
        { id: '2', author: null },
      ],
    });
    assert.equal(users.count(), 0);
  });
});
