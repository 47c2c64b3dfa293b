/**
 * Full GraphQL semantics through the gateway: fragments, inline fragments, variables,
 * @skip/@include, __typename, non-null propagation, and validation before any subrequest.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const SCHEMA = `
type Query {
  posts: [Post] @fetch(source: "blog", path: "/posts")
  strictPosts: [Post!] @fetch(source: "blog", path: "/posts")
  post(id: ID!): Post @fetch(source: "blog", path: "/posts/{args.id}")
}
type Post {
  id: ID!
  title: String!
  authorId: ID! @from(key: "author_id")
  author: User @fetch(source: "blog", path: "/users/{parent.authorId}")
  writer: User! @fetch(source: "blog", path: "/users/{parent.authorId}")
}
type User { id: ID! name: String! }
`;

// User 3 exists but has no name (User.name is non-null); user 9 does not exist.
const USERS: Record<string, object> = { '1': { id: 1, name: 'Ann' }, '2': { id: 2, name: 'Bob' }, '3': { id: 3 } };
const POSTS = [
  { id: 1, title: 'One', author_id: 1 },
  { id: 2, title: 'Two', author_id: 2 },
  { id: 3, title: 'Three', author_id: 3 },
  { id: 4, title: 'Four', author_id: 9 },
];

describe('GraphQL semantics through the gateway', () => {
  let blog: CountingUpstream;
  let gateway: TestGateway;

  before(async () => {
    blog = await startUpstream({
      'GET /posts': () => ({ json: POSTS }),
      'GET /posts/:id': ({ params }) => {
        const post = POSTS.find((p) => String(p.id) === params.id);
        return post ? { json: post } : { status: 404, json: { error: 'not found' } };
      },
      'GET /users/:id': ({ params }) => (USERS[params.id] ? { json: USERS[params.id] } : { status: 404, json: { error: 'not found' } }),
    });
    gateway = await startTestGateway({ sources: { blog: { url: blog.url } }, schemas: { 's.graphqls': SCHEMA } });
  });
  after(async () => {
    await gateway.close();
    await blog.close();
  });

  test('named fragments, inline fragments, aliases and __typename', async () => {
    const res = await gateway.query(`
      query Q { __typename first: post(id: 1) { ...PostFields } second: post(id: 2) { ... on Post { heading: title } ... { __typename } } }
      fragment PostFields on Post { __typename id title author { ...UserFields } }
      fragment UserFields on User { __typename name }
    `);
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data, {
      __typename: 'Query',
      first: { __typename: 'Post', id: '1', title: 'One', author: { __typename: 'User', name: 'Ann' } },
      second: { heading: 'Two', __typename: 'Post' },
    });
  });

  test('variables and operationName', async () => {
    const doc = 'query A($id: ID!) { post(id: $id) { title } } query B($id: ID!) { post(id: $id) { id author { name } } }';
    const a = await gateway.query(doc, { id: '2' }, {}, 'A');
    assert.equal(a.body.errors, undefined);
    assert.deepEqual(a.body.data, { post: { title: 'Two' } });
    const b = await gateway.query(doc, { id: 1 }, {}, 'B');
    assert.equal(b.body.errors, undefined);
    assert.deepEqual(b.body.data, { post: { id: '1', author: { name: 'Ann' } } });
  });

  test('@skip and @include decide which fields are fetched', async () => {
    const doc = `query Q($withAuthor: Boolean!) {
      posts { id author @include(if: $withAuthor) { name } writer @skip(if: true) { name } }
    }`;
    blog.reset();
    const without = await gateway.query(doc, { withAuthor: false });
    assert.equal(without.body.errors, undefined);
    assert.deepEqual(without.body.data, { posts: [{ id: '1' }, { id: '2' }, { id: '3' }, { id: '4' }] });
    assert.equal(blog.count('GET /users/:id'), 0, 'skipped fields are not fetched');
    assert.deepEqual(debugCounts(without), { rounds: 1, subrequests: 1, batches: 0 });

    blog.reset();
    const withAuthor = await gateway.query('query Q($x: Boolean!) { post(id: 1) { author @include(if: $x) { name } } }', { x: true });
    assert.equal(withAuthor.body.errors, undefined);
    assert.deepEqual(withAuthor.body.data, { post: { author: { name: 'Ann' } } });
    assert.equal(blog.count('GET /users/:id'), 1);
  });

  test('a null in a non-null field propagates to the nearest nullable parent', async () => {
    const res = await gateway.query('{ posts { id writer { name } author { id name } } }');
    const list = res.body.data?.posts as unknown[];
    assert.deepEqual(list, [
      { id: '1', writer: { name: 'Ann' }, author: { id: '1', name: 'Ann' } },
      { id: '2', writer: { name: 'Bob' }, author: { id: '2', name: 'Bob' } },
      // User 3 has no name: writer (non-null) → post 3 null, through writer.name (non-null).
      null,
      // User 9 does not exist: writer (non-null) → post 4 null.
      null,
    ]);
    assert.deepEqual(
      res.body.errors?.map((e) => [e.path, e.message, e.extensions?.code]),
      [
        [['posts', 2, 'writer', 'name'], 'Cannot return null for non-nullable field User.name.', undefined],
        [['posts', 2, 'author', 'name'], 'Cannot return null for non-nullable field User.name.', undefined],
        [['posts', 3, 'writer'], 'Post.writer was not found', 'NOT_FOUND'],
      ],
    );
  });

  test('a null in a nullable parent stops there', async () => {
    const res = await gateway.query('{ post(id: 3) { id author { id name } } }');
    assert.deepEqual(res.body.data, { post: { id: '3', author: null } });
    assert.deepEqual(
      res.body.errors?.map((e) => e.path),
      [['post', 'author', 'name']],
    );
  });

  test('propagation through several non-null levels reaches the nullable root field, siblings stay', async () => {
    const res = await gateway.query('{ strictPosts { id writer { name } } post(id: 1) { title } }');
    assert.deepEqual(res.body.data, { strictPosts: null, post: { title: 'One' } });
    assert.deepEqual(
      res.body.errors?.map((e) => [e.path, e.message]),
      [
        [['strictPosts', 2, 'writer', 'name'], 'Cannot return null for non-nullable field User.name.'],
        [['strictPosts', 3, 'writer'], 'Post.writer was not found'],
      ],
    );
  });

  test('an operation that fails validation sends no subrequest', async () => {
    blog.reset();
    const invalid = [
      { query: '{ posts { id nope } }', message: 'Cannot query field "nope" on type "Post".', at: [1, 14] },
      { query: '{ post { id } }', message: 'Field "post" argument "id" of type "ID!" is required, but it was not provided.', at: [1, 3] },
      {
        query: 'query Q($id: ID!) { post(id: $id) { id } }',
        message: 'Variable "$id" of required type "ID!" was not provided.',
        at: [1, 9],
      },
      {
        query: '{ posts { id author } }',
        message: 'Field "author" of type "User" must have a selection of subfields. Did you mean "author { ... }"?',
        at: [1, 14],
      },
      { query: '{ posts { id ...Missing } }', message: 'Unknown fragment "Missing".', at: [1, 17] },
      { query: '{ posts { id ', message: 'Syntax Error: Expected Name, found <EOF>.', at: [1, 14] },
    ];
    for (const { query, message, at } of invalid) {
      const res = await gateway.query(query);
      assert.equal(res.status, 400, `status for ${query}`);
      assert.equal(res.body.data, undefined, `no data for ${query}`);
      assert.deepEqual(
        res.body.errors?.map((e) => [e.message, e.locations?.map((l) => [l.line, l.column])]),
        [[message, [at]]],
        query,
      );
    }
    assert.equal(blog.count(), 0, 'nothing reached the upstream');
  });
});
