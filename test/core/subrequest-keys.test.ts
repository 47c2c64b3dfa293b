/**
 * @batch lookups' keys are built once per distinct key value and kept across requests
 * (gateway/execute/send/subrequest-keys.ts): only for fields whose single-fetch path depends on the key
 * alone. A kept key must be exactly the one the lookup would build, so across requests the L2
 * cache still answers the same keys, and a path that also depends on an argument, or on forwarded
 * headers, never reuses another request's key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, writeGatewayFiles, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { buildBlueprint } from '../../gateway/blueprint/build.js';
import { loadConfig } from '../../gateway/config/load.js';
import { SubrequestKeys } from '../../gateway/execute/send/subrequest-keys.js';

const SCHEMA = `
type Query {
  posts: [Post] @fetch(source: "s", path: "/posts")
  others: [Post] @fetch(source: "h", path: "/posts")
}
type Post {
  id: ID!
  authorId: ID @from(key: "author_id")
  author: User
    @fetch(source: "s", path: "/users/{parent.authorId}")
    @batch(path: "/users?ids={keys}", match: "id")
    @cache(ttl: 60)
  localAuthor(lang: String!): User
    @fetch(source: "s", path: "/users/{parent.authorId}?lang={args.lang}")
    @batch(path: "/users?ids={keys}&lang={args.lang}", match: "id")
    @cache(ttl: 60)
  callerAuthor: User
    @fetch(source: "h", path: "/users/{parent.authorId}")
    @batch(path: "/users?ids={keys}", match: "id")
    @cache(ttl: 60)
}
type User { id: ID! name: String }
`;

const POSTS = [
  { id: 1, author_id: 7 },
  { id: 2, author_id: '8' },
  { id: 3, author_id: 7 },
];

describe('kept @batch keys', () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    const users = ({ query }: { query: URLSearchParams }) => ({
      json: (query.get('ids') ?? '').split(',').map((id) => ({
        id: Number(id),
        name: `${query.get('lang') ?? 'plain'} ${id} ${query.get('caller') ?? ''}`.trim(),
      })),
    });
    upstream = await startUpstream({ 'GET /posts': () => ({ json: POSTS }), 'GET /users': users });
    gw = await startTestGateway({
      schemas: { 's.graphqls': SCHEMA },
      sources: { s: { url: upstream.url }, h: { url: upstream.url, forwardHeaders: ['x-caller'] } },
    });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });

  test('a key kept from one request finds the cache entries another request filled', async () => {
    const query = '{ posts { id author { name } } }';
    upstream.reset();
    const first = await gw.query(query);
    assert.equal(upstream.count('GET /users'), 1);
    const second = await gw.query(query);
    assert.deepEqual(second.body.data, first.body.data);
    assert.deepEqual(first.body.data, {
      posts: [
        { id: '1', author: { name: 'plain 7' } },
        { id: '2', author: { name: 'plain 8' } },
        { id: '3', author: { name: 'plain 7' } },
      ],
    });
    assert.equal(upstream.count('GET /users'), 1, 'the second request was answered from L2 by the kept keys');
    assert.equal(debugCounts(second).subrequests, 1, 'only /posts');
  });

  test('a path that also reads an argument keeps no key: another argument is another subrequest', async () => {
    upstream.reset();
    const en = await gw.query('{ posts { localAuthor(lang: "en") { name } } }');
    const fr = await gw.query('{ posts { localAuthor(lang: "fr") { name } } }');
    assert.deepEqual(
      (fr.body.data?.posts as Array<{ localAuthor: { name: string } }>).map((p) => p.localAuthor.name),
      ['fr 7', 'fr 8', 'fr 7'],
    );
    assert.deepEqual(
      (en.body.data?.posts as Array<{ localAuthor: { name: string } }>).map((p) => p.localAuthor.name),
      ['en 7', 'en 8', 'en 7'],
    );
    assert.deepEqual(
      upstream.requests.filter((r) => r.path === '/users').map((r) => r.query.get('lang')),
      ['en', 'fr'],
    );
  });

  test('a source that forwards headers keeps no key: another caller is another cache entry', async () => {
    upstream.reset();
    const query = '{ others { callerAuthor { name } } }';
    const ann = await gw.query(query, undefined, { 'x-caller': 'ann' });
    const bob = await gw.query(query, undefined, { 'x-caller': 'bob' });
    assert.equal(upstream.count('GET /users'), 2, 'one batch per caller');
    assert.equal(ann.body.errors, undefined);
    assert.deepEqual(bob.body.data, ann.body.data, 'the upstream ignores the header; the point is the count');
  });

  test('which fields keep keys', async () => {
    const files = await writeGatewayFiles({
      schemas: { 's.graphqls': SCHEMA },
      sources: { s: { url: 'http://127.0.0.1:1' }, h: { url: 'http://127.0.0.1:1', forwardHeaders: ['x-caller'] } },
    });
    try {
      const blueprint = buildBlueprint(loadConfig(files.configPath));
      const keys = new SubrequestKeys();
      const fetchOf = (field: string) => blueprint.fields.get(`Post.${field}`)!.fetch!;
      for (const field of ['author', 'localAuthor', 'callerAuthor']) keys.remember(fetchOf(field), '7', '/users/7', 's:/users/7');
      assert.deepEqual(keys.known(fetchOf('author'), '7'), { path: '/users/7', key: 's:/users/7' });
      assert.equal(keys.known(fetchOf('localAuthor'), '7'), undefined, 'its path reads an argument');
      assert.equal(keys.known(fetchOf('callerAuthor'), '7'), undefined, 'its source forwards headers');
    } finally {
      await files.cleanup();
    }
  });
});
