/**
 * Dedupe (SPEC "Rounds, dedupe and the debug headers"): identical subrequests (same source and
 * resolved path) are sent once per GraphQL request, however many fields, aliases or parents ask.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import type { CountingUpstream } from '../support/upstream.js';
import { keysSent, makePosts, makeUsers, QUERY_TYPE, startPosts, startUsers, USER_TYPE } from './fixtures.js';
import { item } from '../support/assert.js';

/** Ten posts by three authors: 1, 2, 3, 1, 2, 3, … */
const authorOf = (postId: number): number => ((postId - 1) % 3) + 1;

function schema(authorDirectives: string, userType = USER_TYPE): string {
  const fetch = '@fetch(source: "users", path: "/users/{parent.authorId}")';
  return `${QUERY_TYPE}
type Post {
  id: ID!
  title: String
  authorId: ID! @from(key: "author_id")
  author: User ${fetch} ${authorDirectives}
  writer: User ${fetch} ${authorDirectives}
}
${userType}`;
}

/** Counting upstreams for three users and ten posts (authors 1, 2, 3, 1, …) and a gateway over `schemaText`. */
interface Blog {
  readonly users: CountingUpstream;
  readonly posts: CountingUpstream;
  readonly gateway: TestGateway;
}

async function startBlog(schemaText: string): Promise<Blog> {
  const users = await startUsers(makeUsers(3));
  const posts = await startPosts(makePosts(10, authorOf));
  const gateway = await startTestGateway({
    sources: { users: { url: users.url }, posts: { url: posts.url } },
    schemas: { 'blog.graphqls': schemaText },
  });
  return { users, posts, gateway };
}

async function closeBlog({ users, posts, gateway }: Blog): Promise<void> {
  await gateway.close();
  await users.close();
  await posts.close();
}

describe('dedupe without @batch', () => {
  let blog: Blog;

  before(async () => {
    blog = await startBlog(schema(''));
  });
  after(() => closeBlog(blog));

  test('aliases asking for the same user send one request', async () => {
    blog.users.reset();
    const res = await blog.gateway.query('{ a: user(id: "1") { name } b: user(id: "1") { id } c: user(id: 1) { name id } }');
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data, {
      a: { name: 'User 1' },
      b: { id: '1' },
      c: { name: 'User 1', id: '1' },
    });
    assert.equal(blog.users.count(), 1);
    assert.equal(item(blog.users.requests, 0).path, '/users/1');
    assert.deepEqual(debugCounts(res), { rounds: 1, subrequests: 1, batches: 0 });
  });

  test('the same lookup from many parents and two fields is sent once', async () => {
    blog.users.reset();
    blog.posts.reset();
    const res = await blog.gateway.query('{ posts { id author { name } writer { name } again: author { id } } }');
    assert.equal(res.body.errors, undefined);
    const list = res.body.data?.posts as Array<{ id: string; author: unknown; writer: unknown; again: unknown }>;
    assert.equal(list.length, 10);
    for (const post of list) {
      const author = authorOf(Number(post.id));
      assert.deepEqual(post.author, { name: `User ${author}` });
      assert.deepEqual(post.writer, { name: `User ${author}` });
      assert.deepEqual(post.again, { id: String(author) });
    }
    assert.equal(blog.users.count(), 3, 'one request per distinct author');
    assert.deepEqual(blog.users.requests.map((r) => r.path).sort(), ['/users/1', '/users/2', '/users/3']);
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 4, batches: 0 });
  });

  test('a lookup made in round 1 is not sent again in round 2 of the same request', async () => {
    blog.users.reset();
    blog.posts.reset();
    const res = await blog.gateway.query('{ user(id: 1) { name } posts(limit: 3) { author { name } } }');
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data?.user, { name: 'User 1' });
    assert.deepEqual(res.body.data?.posts, [
      { author: { name: 'User 1' } },
      { author: { name: 'User 2' } },
      { author: { name: 'User 3' } },
    ]);
    assert.equal(blog.users.count(), 3, '/users/1 once, /users/2, /users/3');
    assert.equal(blog.users.requests.filter((r) => r.path === '/users/1').length, 1);
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 4, batches: 0 });
  });

  test('dedupe is per request: without @cache the next request fetches again', async () => {
    blog.users.reset();
    await blog.gateway.query('{ user(id: 2) { name } }');
    const res = await blog.gateway.query('{ user(id: 2) { name } }');
    assert.deepEqual(res.body.data, { user: { name: 'User 2' } });
    assert.equal(blog.users.count(), 2);
    assert.deepEqual(debugCounts(res), { rounds: 1, subrequests: 1, batches: 0 });
  });
});

describe('dedupe with @batch', () => {
  let blog: Blog;

  before(async () => {
    blog = await startBlog(schema('@batch(path: "/users?ids={keys}", match: "id")'));
  });
  after(() => closeBlog(blog));

  test('a batch carries each distinct key once, however many parents and aliases share it', async () => {
    const res = await blog.gateway.query('{ posts { id author { name } other: author { id } } }');
    assert.equal(res.body.errors, undefined);
    for (const post of res.body.data?.posts as Array<{ id: string; author: unknown; other: unknown }>) {
      const author = authorOf(Number(post.id));
      assert.deepEqual(post.author, { name: `User ${author}` });
      assert.deepEqual(post.other, { id: String(author) });
    }
    assert.equal(blog.users.count(), 1);
    assert.deepEqual(keysSent(blog.users.requests), ['1', '2', '3']);
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 2, batches: 1 });
  });
});

describe('one object reached twice', () => {
  let blog: Blog;

  before(async () => {
    blog = await startBlog(
      schema('', 'type User { id: ID! name: String latest: Post @fetch(source: "posts", path: "/posts/{parent.id}") }'),
    );
  });
  after(() => closeBlog(blog));

  test('a fragment under two fields that share one answer looks its field up once, and counts no dedupe for it', async () => {
    // `author` and `writer` of a post share one memo entry, so one user object; the fragment's
    // `latest` is one field node under both: the same (user, field) reached twice.
    const res = await blog.gateway.query(
      '{ posts(limit: 3) { a: author { ...F } b: writer { ...F } } } fragment F on User { id latest { id } }',
    );
    assert.equal(res.body.errors, undefined);
    const user = (n: number) => ({ id: String(n), latest: { id: String(n) } });
    assert.deepEqual(res.body.data, { posts: [1, 2, 3].map((n) => ({ a: user(n), b: user(n) })) });
    assert.deepEqual(
      blog.posts.requests.map((r) => r.path),
      ['/posts', '/posts/1', '/posts/2', '/posts/3'],
    );
    assert.deepEqual(debugCounts(res), { rounds: 3, subrequests: 7, batches: 0 });
    const metrics = await blog.gateway.get('/metrics');
    const dedupe = metrics.text.split('\n').filter((l) => l.startsWith('gqlgw_dedupe_saved_total{'));
    assert.deepEqual(
      dedupe.map((l) => l.replace(/\{.*coordinate="([^"]+)".*\}/, ' $1')).sort(),
      ['gqlgw_dedupe_saved_total Post.writer 3'],
      metrics.text.slice(0, 2000),
    );
  });
});
