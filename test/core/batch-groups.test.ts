/**
 * A round's @batch lookups gathered into groups (gateway/execute/send/batch.ts BatchGroups): per field,
 * per argument variant of its batch path. The walk reaches them interleaved (post 1's author, its
 * English and its French author, then post 2's ...); each must still land in its own group, be
 * sent once per chunk with exactly its keys, and every lookup waiting for a key must get that
 * key's item, also when a key is waited for by several posts and the keys are split into chunks,
 * and when lookups with different single fetches (memo entries) share one key of one group.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const schema = (max: number) => `
type Query {
  posts: [Post] @fetch(source: "s", path: "/posts")
}
type Post {
  id: ID!
  authorId: ID @from(key: "author_id")
  author: User
    @fetch(source: "s", path: "/users/{parent.authorId}")
    @batch(path: "/users?ids={keys}", match: "id", max: ${max})
  localAuthor(lang: String!): User
    @fetch(source: "s", path: "/users/{parent.authorId}?lang={args.lang}")
    @batch(path: "/users?ids={keys}&lang={args.lang}", match: "id", max: ${max})
  versioned(v: Int!): User
    @fetch(source: "s", path: "/users/{parent.authorId}?v={args.v}")
    @batch(path: "/users?ids={keys}", match: "id", max: ${max})
}
type User { id: ID! name: String }
`;

const POSTS = [
  { id: 1, author_id: 7 },
  { id: 2, author_id: 8 },
  { id: 3, author_id: 7 },
  { id: 4, author_id: 9 },
];

const QUERY = '{ posts { id author { name } en: localAuthor(lang: "en") { name } fr: localAuthor(lang: "fr") { name } } }';

const EXPECTED = {
  posts: POSTS.map((p) => ({
    id: String(p.id),
    author: { name: `plain ${p.author_id}` },
    en: { name: `en ${p.author_id}` },
    fr: { name: `fr ${p.author_id}` },
  })),
};

for (const max of [100, 2]) {
  describe(`interleaved @batch groups, max ${max}`, () => {
    let upstream: CountingUpstream;
    let gw: TestGateway;

    before(async () => {
      const users = ({ query }: { query: URLSearchParams }) => ({
        json: (query.get('ids') ?? '').split(',').map((id) => ({ id: Number(id), name: `${query.get('lang') ?? 'plain'} ${id}` })),
      });
      upstream = await startUpstream({ 'GET /posts': () => ({ json: POSTS }), 'GET /users': users });
      gw = await startTestGateway({ schemas: { 's.graphqls': schema(max) }, sources: { s: { url: upstream.url } } });
    });
    after(async () => {
      await gw.close();
      await upstream.close();
    });

    test('each field and argument variant is its own group, sent with exactly its keys; every post gets its items', async () => {
      upstream.reset();
      const r = await gw.query(QUERY);
      assert.equal(r.body.errors, undefined);
      assert.deepEqual(r.body.data, EXPECTED);
      const sent = upstream.requests
        .filter((q) => q.path === '/users')
        .map((q) => `${q.query.get('lang') ?? 'plain'}:${q.query.get('ids')}`)
        .sort();
      const chunks = max === 100 ? ['7,8,9'] : ['7,8', '9'];
      assert.deepEqual(sent, ['en', 'fr', 'plain'].flatMap((variant) => chunks.map((ids) => `${variant}:${ids}`)).sort());
      const counts = debugCounts(r);
      assert.equal(counts.rounds, 2);
      assert.equal(counts.subrequests, 1 + sent.length);
      assert.equal(counts.batches, sent.length);
    });

    test('lookups whose single fetches differ but share a batch key (and group) send the key once; each gets its item', async () => {
      upstream.reset();
      const r = await gw.query('{ posts { id a: versioned(v: 1) { name } b: versioned(v: 2) { name } } }');
      assert.equal(r.body.errors, undefined);
      assert.deepEqual(r.body.data, {
        posts: POSTS.map((p) => ({ id: String(p.id), a: { name: `plain ${p.author_id}` }, b: { name: `plain ${p.author_id}` } })),
      });
      const sent = upstream.requests.filter((q) => q.path === '/users').map((q) => q.query.get('ids'));
      assert.deepEqual(sent.sort(), max === 100 ? ['7,8,9'] : ['7,8', '9']);
      assert.equal(debugCounts(r).subrequests, 1 + sent.length);
    });
  });
}
