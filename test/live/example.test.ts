/**
 * The bundled example's live field (schema/live.graphqls over examples/blog/), subscribed the way
 * GraphiQL does: yoga's GraphiQL runs subscriptions with @graphql-tools/executor-http (a GET with
 * `Accept: text/event-stream`), and with graphql-ws when set to WebSocket.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse, type ExecutionResult } from 'graphql';
import { buildHTTPExecutor } from '@graphql-tools/executor-http';
import { startBlog, type RunningBlog } from '../../examples/blog/index.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { wsClient } from '../support/live-clients.js';

const schemaFile = (name: string) => fileURLToPath(new URL(`../../../schema/${name}`, import.meta.url));
const QUERY = 'subscription { postStats(postId: 1) { postId commentCount post { id title } } }';

let blog: RunningBlog;
let gateway: TestGateway;

before(async () => {
  blog = await startBlog({ ports: { users: 0, posts: 0, comments: 0 } });
  gateway = await startTestGateway({
    sources: { users: { url: blog.urls.users }, posts: { url: blog.urls.posts }, comments: { url: blog.urls.comments } },
    schemas: {
      'schema/blog.graphqls': await readFile(schemaFile('blog.graphqls'), 'utf8'),
      'schema/live.graphqls': await readFile(schemaFile('live.graphqls'), 'utf8'),
    },
  });
});

after(async () => {
  await gateway?.close();
  await blog?.close();
});

test("GraphiQL's SSE fetcher and a graphql-ws client get the example's live comment count", async () => {
  const executor = buildHTTPExecutor({ endpoint: gateway.url });
  const result = (await executor({ document: parse(QUERY) })) as AsyncIterable<ExecutionResult>;
  const iterator = result[Symbol.asyncIterator]();
  const first = await iterator.next();
  await iterator.return?.();
  const data = (first.value as ExecutionResult).data as { postStats: { postId: string; commentCount: number; post: { id: string } } };
  assert.equal(data.postStats.postId, '1');
  assert.equal(typeof data.postStats.commentCount, 'number');
  assert.equal(data.postStats.post.id, '1');

  const client = wsClient(gateway.url);
  const sub = client.subscriber({ query: QUERY });
  try {
    await sub.events_(1);
    const live = (sub.events[0]!.data as typeof data).postStats;
    assert.deepEqual([live.postId, live.post], ['1', data.postStats.post]);
  } finally {
    await client.dispose();
  }
});
