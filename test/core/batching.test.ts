/**
 * @batch end to end: the reference workload's numbers (SPEC "Rounds, dedupe and the debug
 * headers"), chunking by `max`, one-to-many lists, key matching and missing keys.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { splitIds, startUpstream, type CountingUpstream } from '../support/upstream.js';
import { keysSent, makePosts, makeUsers, QUERY_TYPE, startPosts, startUsers, USER_TYPE } from './fixtures.js';
import { item } from '../support/assert.js';

const HEADLINE_QUERY = '{ posts(limit: 100) { id title author { name } } }';
/** Post i is written by author ((i * 37) mod 100) + 1: 100 posts, 100 distinct authors, not in post order. */
const authorOf = (postId: number): number => ((postId * 37) % 100) + 1;

function schemaWithAuthor(directives: string): string {
  return `${QUERY_TYPE}
type Post {
  id: ID!
  title: String
  authorId: ID! @from(key: "author_id")
  author: User @fetch(source: "users", path: "/users/{parent.authorId}") ${directives}
}
${USER_TYPE}`;
}

type PostResult = { id: string; title: string; author: { name: string } | null };

function assertHeadlineData(posts: unknown, count: number): void {
  assert.ok(Array.isArray(posts));
  assert.equal(posts.length, count);
  (posts as PostResult[]).forEach((post, i) => {
    assert.equal(post.id, String(i + 1));
    assert.equal(post.title, `Title ${i + 1}`);
    assert.deepEqual(post.author, { name: `User ${authorOf(i + 1)}` }, `author of post ${i + 1}`);
  });
}

describe('the reference workload: 100 posts by 100 distinct authors', () => {
  let users: CountingUpstream;
  let posts: CountingUpstream;
  let gateway: TestGateway | undefined;

  before(async () => {
    users = await startUsers(makeUsers(100));
    posts = await startPosts(makePosts(100, authorOf));
  });
  after(async () => {
    await gateway?.close();
    await users.close();
    await posts.close();
  });

  async function useSchema(directives: string): Promise<TestGateway> {
    await gateway?.close();
    users.reset();
    posts.reset();
    gateway = await startTestGateway({
      sources: { users: { url: users.url }, posts: { url: posts.url } },
      schemas: { 'schema/blog.graphqls': schemaWithAuthor(directives) },
    });
    return gateway;
  }

  test('no @batch: 2 rounds, 101 subrequests, 0 batches', async () => {
    const gw = await useSchema('');
    const res = await gw.query(HEADLINE_QUERY);
    assert.equal(res.status, 200);
    assert.equal(res.body.errors, undefined);
    assertHeadlineData(res.body.data?.posts, 100);
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 101, batches: 0 });
    assert.equal(posts.count(), 1);
    assert.equal(item(posts.requests, 0).query.get('limit'), '100');
    assert.equal(users.count('GET /users/:id'), 100);
    assert.equal(users.count(), 100);
    const asked = users.requests.map((r) => Number(r.path.split('/')[2])).sort((a, b) => a - b);
    assert.deepEqual(
      asked,
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
  });

  test('@batch: 2 rounds, 2 subrequests, 1 batch with all 100 keys', async () => {
    const gw = await useSchema('@batch(path: "/users?ids={keys}", match: "id", max: 100)');
    const res = await gw.query(HEADLINE_QUERY);
    assert.equal(res.status, 200);
    assert.equal(res.body.errors, undefined);
    assertHeadlineData(res.body.data?.posts, 100);
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 2, batches: 1 });
    assert.equal(posts.count(), 1);
    assert.equal(users.count(), 1);
    assert.equal(users.count('GET /users'), 1);
    assert.deepEqual(
      keysSent(users.requests),
      Array.from({ length: 100 }, (_, i) => String(i + 1)),
    );
  });

  test('@batch + @cache: 2/2/1 cold, then 2/1/0 warm, same data', async () => {
    const gw = await useSchema('@batch(path: "/users?ids={keys}", match: "id", max: 100) @cache(ttl: 300)');
    const cold = await gw.query(HEADLINE_QUERY);
    assert.equal(cold.body.errors, undefined);
    assertHeadlineData(cold.body.data?.posts, 100);
    assert.deepEqual(debugCounts(cold), { rounds: 2, subrequests: 2, batches: 1 });

    const warm = await gw.query(HEADLINE_QUERY);
    assert.equal(warm.body.errors, undefined);
    assertHeadlineData(warm.body.data?.posts, 100);
    assert.deepEqual(debugCounts(warm), { rounds: 2, subrequests: 1, batches: 0 });

    assert.equal(posts.count(), 2, 'Query.posts has no @cache: fetched both times');
    assert.equal(users.count(), 1, 'the warm query sends nothing to users');
  });
});

describe('@batch max chunks the keys', () => {
  let users: CountingUpstream;
  let posts: CountingUpstream;
  let gateway: TestGateway;
  const chunkAuthor = (postId: number): number => 1000 + ((postId * 7) % 95);

  before(async () => {
    users = await startUsers(Array.from({ length: 95 }, (_, i) => ({ id: 1000 + i, name: `User ${1000 + i}` })));
    posts = await startPosts(makePosts(95, chunkAuthor));
    gateway = await startTestGateway({
      sources: { users: { url: users.url }, posts: { url: posts.url } },
      schemas: { 'blog.graphqls': schemaWithAuthor('@batch(path: "/users?ids={keys}", match: "id", max: 10)') },
    });
  });
  after(async () => {
    await gateway.close();
    await users.close();
    await posts.close();
  });

  test('95 distinct keys with max 10: 10 requests of at most 10 keys, every key once, all correct', async () => {
    const res = await gateway.query('{ posts(limit: 95) { id author { name } } }');
    assert.equal(res.body.errors, undefined);
    const list = res.body.data?.posts as Array<{ id: string; author: { name: string } | null }>;
    assert.equal(list.length, 95);
    list.forEach((post, i) => assert.deepEqual(post.author, { name: `User ${chunkAuthor(i + 1)}` }));

    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 11, batches: 10 });
    const batches = users.requestsFor('GET /users');
    assert.equal(batches.length, 10);
    assert.equal(users.count(), 10);
    for (const request of batches) {
      const keys = splitIds(request.query.get('ids'));
      assert.ok(keys.length >= 1 && keys.length <= 10, `chunk of ${keys.length} keys`);
      assert.equal(new Set(keys).size, keys.length, 'no key twice in a chunk');
    }
    assert.deepEqual(
      keysSent(batches),
      Array.from({ length: 95 }, (_, i) => String(1000 + i)),
      'every key exactly once over all chunks',
    );
  });
});

describe('@batch on a list field is one-to-many', () => {
  let comments: CountingUpstream;
  let posts: CountingUpstream;
  let gateway: TestGateway;
  // post 1: comments 11, 12, 13; post 2: none; post 3: 31; post 4: 41, 42. post_id as JSON numbers.
  const COMMENTS = [
    { id: 11, post_id: 1, body: 'c11' },
    { id: 12, post_id: 1, body: 'c12' },
    { id: 13, post_id: 1, body: 'c13' },
    { id: 31, post_id: 3, body: 'c31' },
    { id: 41, post_id: 4, body: 'c41' },
    { id: 42, post_id: 4, body: 'c42' },
    { id: 91, post_id: 9, body: 'not asked for' },
  ];

  before(async () => {
    comments = await startUpstream({
      // Interleaved and reversed, so that items of one key are not adjacent; includes a key not asked.
      'GET /comments': ({ query }) => {
        const asked = new Set(splitIds(query.get('post_ids')));
        const hit = COMMENTS.filter((c) => asked.has(String(c.post_id)) || c.post_id === 9);
        return { json: [...hit.filter((_, i) => i % 2 === 1), ...hit.filter((_, i) => i % 2 === 0)].reverse() };
      },
      'GET /posts/:id/comments': ({ params }) => ({ json: COMMENTS.filter((c) => String(c.post_id) === params.id) }),
    });
    posts = await startPosts(makePosts(4, () => 1));
    gateway = await startTestGateway({
      sources: { comments: { url: comments.url }, posts: { url: posts.url } },
      schemas: {
        'blog.graphqls': `
type Query { posts: [Post] @fetch(source: "posts", path: "/posts") }
type Post {
  id: ID!
  comments: [Comment!]!
    @fetch(source: "comments", path: "/posts/{parent.id}/comments")
    @batch(path: "/comments?post_ids={keys}", match: "post_id")
}
type Comment { id: ID! body: String postId: ID! @from(key: "post_id") }
`,
      },
    });
  });
  after(async () => {
    await gateway.close();
    await comments.close();
    await posts.close();
  });

  test('every comment lands on its own post; a post without comments gets []', async () => {
    const res = await gateway.query('{ posts { id comments { id body postId } } }');
    assert.equal(res.body.errors, undefined);
    const list = res.body.data?.posts as Array<{ id: string; comments: Array<{ id: string; postId: string }> }>;
    const byPost = Object.fromEntries(list.map((p) => [p.id, p.comments.map((c) => c.id).sort((a, b) => Number(a) - Number(b))]));
    assert.deepEqual(byPost, { '1': ['11', '12', '13'], '2': [], '3': ['31'], '4': ['41', '42'] });
    for (const post of list) for (const c of post.comments) assert.equal(c.postId, post.id);

    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 2, batches: 1 });
    assert.equal(comments.count('GET /comments'), 1);
    assert.equal(comments.count(), 1);
    assert.deepEqual(keysSent(comments.requests, 'post_ids'), ['1', '2', '3', '4']);
  });
});

describe('@batch matches keys by string form; missing keys', () => {
  let users: CountingUpstream;
  let posts: CountingUpstream;
  let gateway: TestGateway;

  before(async () => {
    users = await startUpstream({
      // ids come back as JSON numbers, in reverse order, with an extra user nobody asked for.
      'GET /users': ({ query }) => {
        const known = new Set(['3', '7', '9']);
        const items = splitIds(query.get('ids'))
          .filter((id) => known.has(id))
          .map((id) => ({ id: Number(id), name: `User ${id}` }));
        return { json: [{ id: 8, name: 'User 8' }, ...items.reverse()] };
      },
    });
    // author_id as strings and numbers ("7" and 7 are one key, sent once); "404" does not exist.
    const authors = ['7', '3', '404', 9, 7];
    posts = await startPosts(authors.map((a, i) => ({ id: i + 1, title: `Title ${i + 1}`, author_id: a })));
    const batch = '@batch(path: "/users?ids={keys}", match: "id")';
    gateway = await startTestGateway({
      sources: { users: { url: users.url }, posts: { url: posts.url } },
      schemas: {
        'blog.graphqls': `${QUERY_TYPE}
type Post {
  id: ID!
  authorId: ID! @from(key: "author_id")
  author: User @fetch(source: "users", path: "/users/{parent.authorId}") ${batch}
  requiredAuthor: User! @fetch(source: "users", path: "/users/{parent.authorId}") ${batch}
}
${USER_TYPE}`,
      },
    });
  });
  after(async () => {
    await gateway.close();
    await users.close();
    await posts.close();
  });

  test('numeric ids in any order match string keys; a missing key is null without an error', async () => {
    users.reset();
    const res = await gateway.query('{ posts { id authorId author { id name } } }');
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data?.posts, [
      { id: '1', authorId: '7', author: { id: '7', name: 'User 7' } },
      { id: '2', authorId: '3', author: { id: '3', name: 'User 3' } },
      { id: '3', authorId: '404', author: null },
      { id: '4', authorId: '9', author: { id: '9', name: 'User 9' } },
      { id: '5', authorId: '7', author: { id: '7', name: 'User 7' } },
    ]);
    assert.equal(users.count(), 1);
    assert.deepEqual(keysSent(users.requests), ['3', '7', '9', '404']);
  });

  test('a missing key on a non-null field is a NOT_FOUND error that nulls the nearest nullable parent', async () => {
    const res = await gateway.query('{ posts { id requiredAuthor { name } } }');
    const list = res.body.data?.posts as Array<unknown>;
    assert.equal(list.length, 5);
    assert.equal(list[2], null, 'post 3 (author 404) is null: requiredAuthor is non-null');
    assert.deepEqual(list[0], { id: '1', requiredAuthor: { name: 'User 7' } });
    assert.deepEqual(list[3], { id: '4', requiredAuthor: { name: 'User 9' } });
    assert.equal(res.body.errors?.length, 1);
    const error = item(res.body.errors, 0);
    assert.deepEqual(error.path, ['posts', 2, 'requiredAuthor']);
    assert.equal(error.extensions?.code, 'NOT_FOUND');
    assert.equal(error.extensions?.source, 'users');
  });
});
