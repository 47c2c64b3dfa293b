/**
 * Every entrance gives the same bytes for every outcome (docs/hardening.md: "Both
 * entrances ... give byte-identical answers for every outcome, a failed element of a list-key
 * @batch included"; gateway/execute/README.md). One table of outcome kinds (ok, null,
 * 404, a failed chunk, a failed list element, a bad value, a limit of subrequests and one of the
 * answer) goes through every entrance:
 * the JSON fast path, yoga over POST (a chunked body, which the fast path never takes), GET, and
 * the fast path with `Accept: application/graphql-response+json`. Status, body bytes and X-GQL-*
 * counts must be equal, and `gqlgw_http_fast_path_total` must move by exactly the two fast-path
 * entrances per case: were the fast path no longer used, yoga would be compared with yoga and the
 * count would show it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { ENTRANCES, FAST_ENTRANCES, fastPathServed, sendThrough } from '../support/entrances.js';

const SCHEMA = `
type Query {
  user(id: ID!): User @fetch(source: "s", path: "/users/{args.id}")
  strictUser(id: ID!): User! @fetch(source: "s", path: "/users/{args.id}")
  posts: [Post] @fetch(source: "s", path: "/posts")
  repo: Repo @fetch(source: "s", path: "/repo")
}
type User { id: ID! name: String age: Int }
type Post {
  id: ID!
  authorId: ID @from(key: "author_id")
  author: User @fetch(source: "s", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id", max: 2)
}
type Repo {
  topicIds: [ID!]! @from(key: "topic_ids")
  topics: [Topic] @fetch(source: "s", path: "/topics/{parent.topicIds}") @batch(path: "/topics?ids={keys}", match: "id")
}
type Topic { id: ID! name: String }
`;

/** Users 1..9 exist; 404 is missing; 500 fails (alone or in a chunk); 7 has an age that is no Int. */
function user(id: string): { status?: number; json: unknown } {
  if (id === '404') return { status: 404, json: {} };
  if (id === '500') return { status: 500, json: {} };
  return { json: { id, name: `user ${id}`, age: id === '7' ? 'seven' : Number(id) } };
}

/** Outcome kind → query. */
const CASES: ReadonlyArray<readonly [string, string]> = [
  ['ok', '{ user(id: "1") { id name age } }'],
  ['null: a key the batch answer lacks', '{ posts { id author { name } } }'],
  ['404 on a nullable field', '{ user(id: "404") { name } }'],
  ['404 on a non-null field', '{ strictUser(id: "404") { name } }'],
  ['a failed chunk', '{ posts { id author { id name } } user(id: "2") { name } }'],
  ['a failed element of a list-key @batch', '{ repo { topicIds topics { name } } }'],
  ['a bad value', '{ user(id: "7") { name age } }'],
  [
    'a limit',
    '{ a: user(id: "1") { name } b: user(id: "2") { name } c: user(id: "3") { name } d: user(id: "4") { name } e: user(id: "5") { name } f: user(id: "6") { name } g: user(id: "8") { name } }',
  ],
  ['a limit of the answer', `{ ${['a', 'b', 'c', 'd', 'e'].map((k) => `${k}: posts { id authorId }`).join(' ')} }`],
];

interface Seen {
  readonly status: number;
  readonly body: string;
  readonly contentType: string | null;
  readonly counts: string;
}

async function seen(res: Response): Promise<Seen> {
  return {
    status: res.status,
    body: await res.text(),
    contentType: res.headers.get('content-type'),
    counts: ['x-gql-rounds', 'x-gql-subrequests', 'x-gql-batches'].map((h) => res.headers.get(h)).join('/'),
  };
}

describe('every entrance answers every outcome with the same bytes', () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;
  const fastPathCount = () => fastPathServed(gw.origin);

  before(async () => {
    upstream = await startUpstream({
      'GET /users/:id': ({ params }) => user(params.id),
      'GET /users': ({ query }) => {
        const ids = (query.get('ids') ?? '').split(',');
        if (ids.includes('500')) return { status: 500, json: {} };
        return { json: ids.filter((id) => id !== '404' && id !== '99').map((id) => user(id).json) };
      },
      'GET /posts': () => ({
        json: [
          { id: 'p1', author_id: '1' },
          { id: 'p2', author_id: '99' },
          { id: 'p3', author_id: '500' },
        ],
      }),
      'GET /repo': () => ({ json: { topic_ids: ['a', 'bad', 'a'] } }),
      'GET /topics': ({ query }) => {
        const ids = (query.get('ids') ?? '').split(',');
        if (ids.includes('bad')) return { status: 500, json: {} };
        return { json: ids.map((id) => ({ id, name: `topic ${id}` })) };
      },
    });
    gw = await startTestGateway({
      schemas: { 's.graphqls': SCHEMA },
      sources: { s: { url: upstream.url } },
      extraToml: '[limits]\nmax_subrequests = 6\nmax_result_nodes = 40\n',
    });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });

  for (const [kind, query] of CASES) {
    test(kind, async () => {
      const served0 = await fastPathCount();
      const answers: Array<Seen & { entrance: string; sent: string[] }> = [];
      for (const entrance of ENTRANCES) {
        upstream.reset();
        const answer = await seen(await sendThrough(entrance, gw.url, { query }));
        answers.push({ ...answer, entrance, sent: upstream.requests.map((r) => r.url) });
      }
      assert.equal(await fastPathCount(), served0 + FAST_ENTRANCES.length, 'the fast path answered the POSTs it takes, and only those');
      const [first, ...rest] = answers;
      for (const other of rest) {
        assert.equal(other.status, first!.status, `${other.entrance}: status`);
        assert.equal(other.body, first!.body, `${other.entrance}: body bytes`);
        assert.equal(other.counts, first!.counts, `${other.entrance}: X-GQL-* counts`);
        assert.deepEqual(other.sent, first!.sent, `${other.entrance}: upstream requests`);
      }
      for (const a of answers.slice(0, 3)) assert.equal(a.contentType, 'application/json; charset=utf-8', a.entrance);
      assert.equal(answers[3]!.contentType, 'application/graphql-response+json; charset=utf-8');
      EXPECTED[kind]!(JSON.parse(first!.body) as Answer, first!.status);
    });
  }

  // Request parameters of the wrong type: every entrance refuses them with the same 400, GET
  // included (its parameters are the JSON texts of the same values).
  const MALFORMED: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['extensions a number', { query: '{ user(id: "1") { id } }', extensions: 5 }],
    ['extensions a list', { query: '{ user(id: "1") { id } }', extensions: [] }],
    ['variables a list', { query: '{ user(id: "1") { id } }', variables: [1] }],
    ['variables a string', { query: '{ user(id: "1") { id } }', variables: 'x' }],
  ];
  for (const [kind, params] of MALFORMED) {
    test(`malformed request parameters: ${kind}`, async () => {
      upstream.reset();
      const answers: Array<Seen & { entrance: string }> = [];
      for (const entrance of ENTRANCES) {
        const res =
          entrance === 'get'
            ? await fetch(
                `${gw.url}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' && k === 'query' ? v : JSON.stringify(v)]))}`,
              )
            : await sendThrough(entrance, gw.url, JSON.stringify(params));
        answers.push({ ...(await seen(res)), entrance });
      }
      for (const a of answers) {
        assert.equal(a.status, 400, `${a.entrance}: ${a.body}`);
        assert.match(JSON.parse(a.body).errors[0].message, /^Expected "(extensions|variables)" param to be /, a.entrance);
      }
      const [first, ...rest] = answers;
      for (const other of rest) assert.equal(other.body, first!.body, `${other.entrance}: body bytes`);
      assert.equal(upstream.requests.length, 0, 'nothing was fetched');
    });
  }
});

interface Answer {
  readonly data?: Record<string, unknown> | null;
  readonly errors?: ReadonlyArray<{ path?: ReadonlyArray<string | number>; extensions?: Record<string, unknown> }>;
}

const codesAt = (a: Answer) => (a.errors ?? []).map((e) => `${(e.path ?? []).join('.')} ${String(e.extensions?.code)}`);

/** What each outcome must be, beyond the entrances agreeing. */
const EXPECTED: Readonly<Record<string, (answer: Answer, status: number) => void>> = {
  ok: (a, s) => {
    assert.equal(s, 200);
    assert.deepEqual(a.data, { user: { id: '1', name: 'user 1', age: 1 } });
    assert.equal(a.errors, undefined);
  },
  'null: a key the batch answer lacks': (a, s) => {
    assert.equal(s, 200);
    assert.deepEqual((a.data?.posts as Array<{ author: unknown }>)[1]!.author, null);
    assert.deepEqual(codesAt(a), ['posts.2.author UPSTREAM_HTTP_ERROR']);
  },
  '404 on a nullable field': (a, s) => {
    assert.equal(s, 200);
    assert.deepEqual(a.data, { user: null });
    assert.equal(a.errors, undefined);
  },
  '404 on a non-null field': (a, s) => {
    assert.equal(s, 200);
    assert.equal(a.data, null);
    assert.deepEqual(codesAt(a), ['strictUser NOT_FOUND']);
  },
  'a failed chunk': (a, s) => {
    assert.equal(s, 200);
    const posts = a.data?.posts as Array<{ author: unknown }>;
    assert.deepEqual(
      posts.map((p) => p.author),
      [{ id: '1', name: 'user 1' }, null, null],
    );
    assert.deepEqual(codesAt(a), ['posts.2.author UPSTREAM_HTTP_ERROR']);
  },
  'a failed element of a list-key @batch': (a, s) => {
    assert.equal(s, 200);
    assert.deepEqual(a.data, {
      repo: { topicIds: ['a', 'bad', 'a'], topics: [{ name: 'topic a' }, null, { name: 'topic a' }] },
    });
    assert.deepEqual(codesAt(a), ['repo.topics.1 UPSTREAM_HTTP_ERROR']);
  },
  'a bad value': (a, s) => {
    assert.equal(s, 200);
    assert.deepEqual(a.data, { user: { name: 'user 7', age: null } });
    assert.deepEqual(codesAt(a), ['user.age UPSTREAM_BAD_RESPONSE']);
  },
  'a limit of the answer': (a, s) => {
    assert.equal(s, 400);
    assert.equal(a.data, undefined);
    assert.deepEqual(codesAt(a), [' RESPONSE_LIMIT']);
  },
  'a limit': (a, s) => {
    assert.equal(s, 400);
    assert.equal(a.data, undefined);
    assert.deepEqual(codesAt(a), [' SUBREQUEST_LIMIT']);
  },
};
