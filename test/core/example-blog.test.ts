/**
 * The bundled example: schema/blog.graphqls (the file the root gateway.toml serves) against the
 * example blog services of examples/blog/, started on free ports.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { COMMENTS, POSTS, USERS, startBlog, type RunningBlog } from '../../examples/blog/index.js';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { item } from '../support/assert.js';

// dist/test/core/example-blog.test.js → repository root
const BLOG_SCHEMA = fileURLToPath(new URL('../../../schema/blog.graphqls', import.meta.url));

const nameOf = (userId: number): string => USERS.find((u) => u.id === userId)!.name;

describe('the example blog behind schema/blog.graphqls', () => {
  let blog: RunningBlog;
  let gateway: TestGateway;

  before(async () => {
    blog = await startBlog({ ports: { users: 0, posts: 0, comments: 0 } });
    gateway = await startTestGateway({
      sources: {
        users: { url: blog.urls.users, timeoutMs: 2000 },
        posts: { url: blog.urls.posts, timeoutMs: 2000 },
        comments: { url: blog.urls.comments, timeoutMs: 2000 },
      },
      schemas: { 'schema/blog.graphqls': await readFile(BLOG_SCHEMA, 'utf8') },
      l2MaxEntries: 1000,
    });
  });
  after(async () => {
    await gateway.close();
    await blog.close();
  });

  test('posts with authors, comments and comment authors, batched per round', async () => {
    const res = await gateway.query(
      '{ posts(limit: 10) { id title createdAt authorId author { name } comments { id postId author { username } } } }',
    );
    assert.equal(res.body.errors, undefined);
    const list = res.body.data?.posts as Array<{
      id: string;
      title: string;
      createdAt: string;
      authorId: string;
      author: { name: string };
      comments: Array<{ id: string; postId: string; author: { username: string } }>;
    }>;
    assert.equal(list.length, 10);
    for (const post of list) {
      const record = POSTS.find((p) => String(p.id) === post.id)!;
      assert.equal(post.title, record.title);
      assert.equal(post.createdAt, record.created_at);
      assert.equal(post.authorId, String(record.author_id));
      assert.equal(post.author.name, nameOf(record.author_id));
      const expected = COMMENTS.filter((c) => c.post_id === record.id);
      assert.deepEqual(post.comments.map((c) => c.id).sort(), expected.map((c) => String(c.id)).sort());
      for (const comment of post.comments) {
        const c = COMMENTS.find((x) => String(x.id) === comment.id)!;
        assert.equal(comment.author.username, USERS.find((u) => u.id === c.author_id)!.username);
      }
    }
    assert.ok(
      list.some((p) => p.comments.length === 0),
      'post 5 and 10 have no comments',
    );
    // Round 1 the posts; round 2 their authors and their comments, one batch each; round 3 one batch
    // of the comment authors who wrote none of the posts (the request memo answers the others).
    assert.deepEqual(debugCounts(res), { rounds: 3, subrequests: 4, batches: 3 });
  });

  test('arguments, single lookups and a missing user', async () => {
    const res = await gateway.query(
      '{ posts(limit: 2, authorId: "4") { id } user(id: 4) { name posts { id } } nobody: user(id: 999) { name } post(id: 7) { title } }',
    );
    assert.equal(res.body.errors, undefined);
    assert.deepEqual(res.body.data, {
      posts: [{ id: '4' }, { id: '24' }],
      user: { name: nameOf(4), posts: [{ id: '4' }, { id: '24' }, { id: '44' }] },
      nobody: null,
      post: { title: item(POSTS, 6).title },
    });
  });

  test("every user's posts in one batch (User.posts, so the example passes gqlgw check --strict)", async () => {
    const res = await gateway.query('{ users { id posts { id } } }');
    assert.equal(res.body.errors, undefined);
    const users = res.body.data?.users as Array<{ id: string; posts: Array<{ id: string }> }>;
    assert.equal(users.length, USERS.length);
    for (const user of users) {
      assert.deepEqual(
        user.posts.map((p) => p.id),
        POSTS.filter((p) => String(p.author_id) === user.id).map((p) => String(p.id)),
      );
    }
    assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 2, batches: 1 });
  });
  test('writes: updateUser, createPost and deletePost, each invalidating what it changed', async () => {
    const name = async () => ((await gateway.query('{ user(id: 3) { name } }')).body.data?.user as { name: string }).name;
    await name();
    const cached = await gateway.query('{ user(id: 3) { name } }');
    assert.equal(debugCounts(cached).subrequests, 0, 'the second read is a cache hit');
    const updated = await gateway.query('mutation { updateUser(id: 3, input: { name: "Renamed" }) { id name } }');
    assert.deepEqual(updated.body, { data: { updateUser: { id: '3', name: 'Renamed' } }, extensions: updated.body.extensions });
    assert.equal(await name(), 'Renamed', 'the read after the write reaches the users service');

    const postsOf3 = async () =>
      ((await gateway.query('{ user(id: 3) { posts { id } } }')).body.data?.user as { posts: Array<{ id: string }> }).posts.map(
        (p) => p.id,
      );
    const before3 = await postsOf3();
    const created = await gateway.query(
      'mutation { createPost(input: { title: "New", body: "Hello", authorId: 3 }) { id title author { name } } }',
    );
    assert.equal(created.body.errors, undefined);
    const post = created.body.data?.createPost as { id: string; title: string; author: { name: string } };
    assert.deepEqual({ title: post.title, author: post.author }, { title: 'New', author: { name: 'Renamed' } });
    assert.deepEqual(await postsOf3(), [...before3, post.id], "the author's cached post list was invalidated");

    await gateway.query(`{ post(id: ${post.id}) { title } }`);
    const deleted = await gateway.query(`mutation { deletePost(id: ${post.id}) }`);
    assert.deepEqual(deleted.body.data, { deletePost: true });
    assert.deepEqual((await gateway.query(`{ post(id: ${post.id}) { title } }`)).body.data, { post: null });
  });
});
