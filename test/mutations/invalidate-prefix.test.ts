/**
 * `@invalidate(prefix: true)` (docs/mutations.md, *new*) against a real upstream and a real
 * memcached: adding a comment retires every cached page of that issue's comments, for every
 * caller, in L2 and in memcached (a gateway with an empty L2 refetches too), and nothing else:
 * issue 10's pages (whose path merely starts with the same characters) stay cached.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { listItems, startMemcached, type RunningMemcached } from '../support/memcached.js';
import { pollUntil } from '../support/wait.js';

const SCHEMA = `
type Query {
  comments(number: Int!, page: Int = 1): [Comment]
    @fetch(source: "gh", path: "/repos/o/r/issues/{args.number}/comments?page={args.page}") @cache(ttl: 60)
}
type Mutation {
  addComment(number: Int!, body: String!): Comment
    @fetch(source: "gh", method: "POST", path: "/repos/o/r/issues/{args.number}/comments", body: """{"body": {args.body}}""")
    @invalidate(source: "gh", path: "/repos/o/r/issues/{args.number}/comments", prefix: true)
}
type Comment { id: ID body: String }
`;

describe('@invalidate(prefix: true)', { timeout: 30_000 }, () => {
  let mc: RunningMemcached;
  let gh: CountingUpstream;
  let a: TestGateway;
  let c: TestGateway | undefined;
  const stored = new Map<number, string[]>([
    [1, ['first']],
    [10, ['tenth']],
  ]);
  let options: Parameters<typeof startTestGateway>[0];

  before(async () => {
    mc = await startMemcached();
    gh = await startUpstream({
      'GET /repos/o/r/issues/:n/comments': ({ params, query }) => ({
        json: (stored.get(Number(params.n)) ?? []).map((body, i) => ({ id: `${params.n}-${i}-p${query.get('page')}`, body })),
      }),
      'POST /repos/o/r/issues/:n/comments': ({ params, body }) => {
        const text = (JSON.parse(body) as { body: string }).body;
        stored.get(Number(params.n))!.push(text);
        return { status: 201, json: { id: 'new', body: text } };
      },
    });
    options = {
      sources: { gh: { url: gh.url, forwardHeaders: ['authorization'] } },
      schemas: { 'schema.graphqls': SCHEMA },
      extraToml: `[cache.memcached]\nservers = ["${mc.address}"]\nkey_prefix = "prefix${process.pid}:"`,
    };
    a = await startTestGateway(options);
  });
  after(async () => {
    await a?.close();
    await c?.close();
    await gh?.close();
    await mc?.stop();
  });

  const read = async (gw: TestGateway, who: string): Promise<unknown> =>
    (
      await gw.query(
        '{ p1: comments(number: 1) { body } p2: comments(number: 1, page: 2) { body } ten: comments(number: 10) { body } }',
        {},
        {
          authorization: who,
        },
      )
    ).body.data;
  const gets = (): string[] => gh.requests.filter((r) => r.method === 'GET').map((r) => `${r.url} ${r.headers.authorization}`);

  test('every page of the prefix is refetched, for every caller and from memcached; a longer number stays cached', async () => {
    await read(a, 'alice');
    await read(a, 'bob');
    assert.equal(gets().length, 6);
    // Every entry is in memcached before the write (fills are fire-and-forget).
    const items = await pollUntil(
      () => listItems(mc.address),
      (list) => list.filter((i) => i.key.includes('/comments?page=')).length >= 6,
    );
    assert.equal(items.filter((i) => i.key.includes('/comments?page=')).length, 6);
    gh.reset();
    const added = await a.query('mutation { addComment(number: 1, body: "second") { id } }', {}, { authorization: 'alice' });
    assert.deepEqual(added.body.data, { addComment: { id: 'new' } });
    const both = ['first', 'second'].map((body) => ({ body }));
    assert.deepEqual(await read(a, 'bob'), { p1: both, p2: both, ten: [{ body: 'tenth' }] });
    assert.deepEqual(gets().sort(), ['/repos/o/r/issues/1/comments?page=1 bob', '/repos/o/r/issues/1/comments?page=2 bob']);
    gh.reset();
    // A gateway with an empty L2 reads memcached: alice's old pages there are retired too.
    c = await startTestGateway(options);
    assert.deepEqual(await read(c, 'alice'), { p1: both, p2: both, ten: [{ body: 'tenth' }] });
    assert.deepEqual(gets().sort(), ['/repos/o/r/issues/1/comments?page=1 alice', '/repos/o/r/issues/1/comments?page=2 alice']);
    // And what was refetched after the invalidation is cached again as usual.
    gh.reset();
    await read(a, 'bob');
    await read(c, 'alice');
    assert.deepEqual(gets(), []);
  });
});
