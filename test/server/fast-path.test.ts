/**
 * The fast path (plain `POST /graphql` with `application/json`) and yoga's full pipeline answer
 * alike: the same status, body and debug headers for successes, field errors, request errors and
 * limits. A chunked body always takes yoga's path, so each request is sent both ways and the answers
 * are compared; the fast-path counter shows which entrance answered, and the upstream counts show
 * both executed the same lookups. Mutations are the fast path's too (server/operation.ts). Every
 * outcome kind on every entrance: test/server/entrances.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { fastPathServed, sendThrough } from '../support/entrances.js';
import { makePosts, makeUsers, startPosts, startUsers, USER_TYPE, QUERY_TYPE } from '../core/fixtures.js';

const SCHEMA = `${USER_TYPE}${QUERY_TYPE}
type Post {
  id: ID!
  title: String
  authorId: ID @from(key: "author_id")
  author: User
    @fetch(source: "users", path: "/users/{parent.authorId}")
    @batch(path: "/users?ids={keys}", match: "id", max: 10)
  strictAuthor: User!
    @fetch(source: "users", path: "/users/{parent.authorId}")
    @batch(path: "/users?ids={keys}", match: "id")
}
`;

interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly counts: string;
  readonly contentType: string | null;
}

for (const debug of [true, false]) {
  describe(`fast path and yoga answer alike (debug_headers = ${debug})`, () => {
    let users: CountingUpstream;
    let posts: CountingUpstream;
    let gw: TestGateway;

    before(async () => {
      users = await startUsers(makeUsers(30));
      posts = await startPosts(makePosts(40, (i) => (i % 7 === 0 ? 999 : (i % 30) + 1)));
      gw = await startTestGateway({
        schemas: { 'schema.graphqls': SCHEMA },
        sources: { users: { url: users.url }, posts: { url: posts.url } },
        debugMode: debug,
        extraToml: '[limits]\nmax_aliases = 5\nmax_depth = 4\n',
      });
    });
    after(async () => {
      await gw.close();
      await users.close();
      await posts.close();
    });

    /** Sends `body` through the fast path, or to yoga as a chunked POST (which the fast path never takes). */
    async function send(body: unknown, entrance: 'fast' | 'yoga'): Promise<Answer & { upstream: number }> {
      users.reset();
      posts.reset();
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      const res =
        entrance === 'fast'
          ? await fetch(gw.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })
          : await fetch(gw.url, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: new Blob([text]).stream(),
              duplex: 'half',
            } as RequestInit);
      const answer = await res.text();
      let parsed: unknown = answer;
      try {
        parsed = JSON.parse(answer);
      } catch {
        // compared as text
      }
      return {
        status: res.status,
        body: parsed,
        counts: ['x-gql-rounds', 'x-gql-subrequests', 'x-gql-batches'].map((h) => res.headers.get(h)).join('/'),
        contentType: res.headers.get('content-type'),
        upstream: users.count() + posts.count(),
      };
    }

    const cases: Array<[string, unknown]> = [
      ['a batched query', { query: '{ posts(limit: 20) { id title author { name } } }' }],
      [
        'variables and an operation name',
        {
          query: 'query A($id: ID!) { post(id: $id) { title author { name } } } query B { user(id: 1) { name } }',
          variables: { id: '3' },
          operationName: 'A',
        },
      ],
      [
        'a missing key on a nullable and a non-null field',
        { query: '{ posts(limit: 8) { id author { name } } post(id: 7) { strictAuthor { name } } }' },
      ],
      ['a single-fetch 404 on a nullable field', { query: '{ user(id: 404) { name } }' }],
      ['invalid variables', { query: 'query ($id: ID!) { post(id: $id) { title } }', variables: {} }],
      ['an unknown operation name', { query: 'query A { user(id: 1) { name } }', operationName: 'Nope' }],
      ['a validation error with a suggestion', { query: '{ user(id: 1) { nme } }' }],
      ['a syntax error', { query: '{ user(id: 1) { name }' }],
      [
        'too many aliases',
        {
          query:
            '{ a: user(id: 1) { name } b: user(id: 1) { name } c: user(id: 1) { name } d: user(id: 1) { name } e: user(id: 1) { name } f: user(id: 1) { name } }',
        },
      ],
      ['too deep', { query: '{ post(id: 1) { author { name } strictAuthor { id } } posts { author { id } } }', variables: null }],
      ['a query that is not a string', { query: 42 }],
      ['malformed JSON', '{"query": '],
    ];

    const HANDED_TO_YOGA = new Set(['an unknown operation name', 'a query that is not a string', 'malformed JSON']);
    for (const [name, body] of cases) {
      test(name, async () => {
        const served0 = await fastPathServed(gw.origin);
        const fast = await send(body, 'fast');
        // The fast path hands what it does not run (no plain params object, an unknown operation) to yoga.
        assert.equal(await fastPathServed(gw.origin), served0 + (HANDED_TO_YOGA.has(name) ? 0 : 1), 'the fast path answered');
        const viaYoga = await send(body, 'yoga');
        assert.equal(await fastPathServed(gw.origin), served0 + (HANDED_TO_YOGA.has(name) ? 0 : 1), 'yoga answered');
        assert.equal(fast.status, viaYoga.status, 'status');
        assert.deepEqual(fast.body, viaYoga.body, 'body');
        assert.equal(fast.counts, viaYoga.counts, 'debug headers');
        assert.equal(fast.upstream, viaYoga.upstream, 'upstream requests');
        assert.match(fast.contentType ?? '', /^application\/json/);
      });
    }

    test('the batched query is answered correctly on the fast path', async () => {
      const fast = await send({ query: '{ posts(limit: 20) { id author { name } } }' }, 'fast');
      assert.equal(fast.status, 200);
      const list = (fast.body as { data: { posts: Array<{ id: string; author: { name: string } | null }> } }).data.posts;
      assert.equal(list.length, 20);
      for (const p of list) {
        const i = Number(p.id);
        assert.deepEqual(p.author, i % 7 === 0 ? null : { name: `User ${(i % 30) + 1}` });
      }
      assert.equal(fast.upstream, 3, 'posts + two chunks of max 10 keys');
      if (debug) assert.equal(fast.counts, '2/3/2');
    });
  });
}

describe('the fast path runs mutations too', () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;
  before(async () => {
    upstream = await startUpstream({
      'POST /posts': ({ body }) => ({ json: { id: 'p1', title: (JSON.parse(body) as { title: string }).title } }),
      'PATCH /posts/:id': ({ params }) => ({ status: params.id === '404' ? 404 : 500, json: {} }),
    });
    gw = await startTestGateway({
      schemas: {
        's.graphqls': `type Query { ping: String @fetch(source: "s", path: "/ping") }
type Post { id: ID! title: String }
type Mutation {
  createPost(title: String!): Post @fetch(source: "s", path: "/posts", method: "POST", body: """{"title": {args.title}}""")
  renamePost(id: ID!): Post! @fetch(source: "s", path: "/posts/{args.id}", method: "PATCH", body: """{"id": {args.id}}""")
}`,
      },
      sources: { s: { url: upstream.url } },
      debugMode: true,
    });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });

  for (const [kind, query] of [
    ['a created post', 'mutation { createPost(title: "hi") { id title } }'],
    ['a failed non-null field after a success', 'mutation { a: createPost(title: "x") { title } b: renamePost(id: 404) { id } }'],
  ] as const) {
    test(`${kind}: the fast path answers it, with yoga's bytes, sending each write once`, async () => {
      const answers: Array<{ status: number; body: string; counts: string | null; sent: string[] }> = [];
      for (const entrance of ['fast', 'yoga'] as const) {
        upstream.reset();
        const served0 = await fastPathServed(gw.origin);
        const res = await sendThrough(entrance, gw.url, { query });
        answers.push({
          status: res.status,
          body: await res.text(),
          counts: res.headers.get('x-gql-subrequests'),
          sent: upstream.requests.map((r) => `${r.method} ${r.url} ${r.body}`),
        });
        assert.equal(await fastPathServed(gw.origin), served0 + (entrance === 'fast' ? 1 : 0), `${entrance}: the fast path answered`);
      }
      assert.deepEqual(answers[0], answers[1]);
      assert.equal(answers[0]!.status, 200);
      assert.ok(answers[0]!.sent.length >= 1 && answers[0]!.sent[0]!.startsWith('POST /posts '), answers[0]!.sent.join());
    });
  }
});
