/**
 * Coalescing across requests (docs/caching.md) against slow counting
 * upstreams and the real gateway over HTTP: identical GET subrequests in flight for another
 * GraphQL request are waited for, @batch keys in flight are not asked again, callers with different
 * forwarded values never share, a waiter that goes away harms no one, a failure reaches every
 * waiter and is not cached, and `coalesce = false` sends every request's own subrequests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { splitIds, startUpstream, type CountingUpstream } from '../support/upstream.js';
import { parsePromText, sumOf, valueOf } from '../support/prom-text.js';
import { loopTurns, pollUntil, until } from '../support/wait.js';
import { Gate } from '../support/gate.js';

const SCHEMA = `
type Query {
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}")
  userOff(id: ID!): User @fetch(source: "users_off", path: "/users/{args.id}")
  posts(ids: String!): [Post] @fetch(source: "posts", path: "/posts?ids={args.ids}")
  me: Profile @fetch(source: "accounts", path: "/me")
  flaky: User @fetch(source: "users", path: "/flaky") @cache(ttl: 60)
  lookup(id: ID!): User @fetch(source: "users", method: "POST", path: "/lookup", body: """{"id": {args.id}}""")
}
type Post {
  id: ID!
  authorId: ID @from(key: "author_id")
  author: User
    @fetch(source: "users", path: "/users/{parent.authorId}")
    @batch(path: "/users?ids={keys}", match: "id")
}
type Mutation {
  touch(id: ID!): User @fetch(source: "users", method: "POST", path: "/touch/{args.id}")
}
type User { id: ID! name: String }
type Profile { name: String }
`;

describe('coalescing across requests', { timeout: 30_000 }, () => {
  let users: CountingUpstream;
  let posts: CountingUpstream;
  let accounts: CountingUpstream;
  let gw: TestGateway;
  let flakyStatus = 500;
  const gate = new Gate();

  before(async () => {
    users = await startUpstream({
      'GET /users/:id': async ({ params }) => {
        await gate.passed();
        return { json: { id: params.id, name: `User ${params.id}` } };
      },
      'GET /users': async ({ query }) => {
        await gate.passed();
        return { json: splitIds(query.get('ids')).map((id) => ({ id, name: `User ${id}` })) };
      },
      'POST /lookup': async () => {
        await gate.passed();
        return { json: { id: 'l', name: 'looked up' } };
      },
      'POST /touch/:id': async ({ params }) => {
        await gate.passed();
        return { json: { id: params.id, name: `touched ${params.id}` } };
      },
      'GET /flaky': async () => {
        await gate.passed();
        return flakyStatus === 200 ? { json: { id: 'f', name: 'Flaky' } } : { status: flakyStatus, json: { error: 'down' } };
      },
    });
    posts = await startUpstream({
      'GET /posts': ({ query }) => ({ json: splitIds(query.get('ids')).map((id) => ({ id, author_id: id })) }),
    });
    accounts = await startUpstream({
      'GET /me': async ({ headers }) => {
        await gate.passed();
        return { json: { name: `me as ${headers.authorization ?? 'nobody'}` } };
      },
    });
    gw = await startTestGateway({
      sources: {
        users: { url: users.url },
        users_off: { url: users.url, extra: 'coalesce = false' },
        posts: { url: posts.url },
        accounts: { url: accounts.url, forwardHeaders: ['authorization'] },
      },
      schemas: { 'schema.graphqls': SCHEMA },
    });
  });
  after(async () => {
    await gw?.close();
    await Promise.all([users?.close(), posts?.close(), accounts?.close()]);
  });

  const metric = async (name: string, labels: Record<string, string>): Promise<number | undefined> =>
    valueOf(parsePromText((await gw.get('/metrics')).text), name, labels);
  /** A query whose client can go away before the answer: `leave()` aborts its HTTP request. */
  const leavingQuery = (query: string): { answer: Promise<'answered' | 'aborted'>; leave(): void } => {
    const controller = new AbortController();
    const answer = fetch(gw.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
      signal: controller.signal,
    }).then(
      () => 'answered' as const,
      () => 'aborted' as const,
    );
    return { answer, leave: () => controller.abort() };
  };
  const coalesced = async (coordinate: string): Promise<number> =>
    sumOf(parsePromText((await gw.get('/metrics')).text), 'gqlgw_coalesced_total', { coordinate });
  /** Waits (the gate closed) until `n` more lookups of `coordinate` joined a call in flight, then opens the gate. */
  const joinedThenOpen = async (coordinate: string, baseline: number, n: number): Promise<void> => {
    const seen = await pollUntil(
      () => coalesced(coordinate),
      (count) => count >= baseline + n,
      5000,
      10,
    );
    gate.open();
    assert.equal(seen - baseline, n, `${n} lookups of ${coordinate} waited for the call in flight`);
  };

  it('20 concurrent identical queries make 1 upstream request; only the first counts it', async () => {
    users.reset();
    gate.close();
    const baseline = await coalesced('Query.user');
    const asked = Promise.all(Array.from({ length: 20 }, () => gw.query('{ user(id: 7) { id name } }')));
    await joinedThenOpen('Query.user', baseline, 19);
    const results = await asked;
    assert.equal(users.count('GET /users/:id'), 1);
    for (const r of results) assert.deepEqual(r.body.data, { user: { id: '7', name: 'User 7' } });
    const subrequests = results.map((r) => debugCounts(r).subrequests).sort();
    assert.deepEqual(subrequests, [...Array(19).fill(0), 1], 'X-GQL-Subrequests counts only what a request sent');
    assert.equal(await metric('gqlgw_coalesced_total', { coordinate: 'Query.user', source: 'users' }), baseline + 19);
  });

  it('asks a @batch key in flight for another request at most once: only new keys go out', async () => {
    users.reset();
    gate.close();
    const first = gw.query('{ posts(ids: "1,2,3,4") { id author { name } } }');
    await until(() => users.count('GET /users') === 1, 'the first batch reached users');
    const later = gw.query('{ posts(ids: "3,4,5,6") { id author { name } } }');
    await until(() => users.count('GET /users') === 2, 'the second batch reached users');
    await joinedThenOpen('Post.author', 0, 2);
    const [one, second] = await Promise.all([first, later]);
    const batches = users.requestsFor('GET /users').map((r) => splitIds(r.query.get('ids')).sort());
    assert.deepEqual(batches, [
      ['1', '2', '3', '4'],
      ['5', '6'],
    ]);
    assert.deepEqual(
      second.body.data?.posts,
      ['3', '4', '5', '6'].map((id) => ({ id, author: { name: `User ${id}` } })),
    );
    assert.deepEqual(
      one.body.data?.posts,
      ['1', '2', '3', '4'].map((id) => ({ id, author: { name: `User ${id}` } })),
    );
    assert.deepEqual(debugCounts(second), { rounds: 2, subrequests: 2, batches: 1 });
    assert.equal(await metric('gqlgw_coalesced_total', { coordinate: 'Post.author', source: 'users' }), 2, 'one per key');
  });

  it('never shares a call between callers with different forwarded header values', async () => {
    accounts.reset();
    gate.close();
    const ask = (who: string | undefined) => gw.query('{ me { name } }', undefined, who ? { authorization: who } : {});
    const callers = ['Bearer a', 'Bearer b', undefined];
    const asked = Promise.all(Array.from({ length: 15 }, (_, i) => ask(callers[i % 3])));
    await joinedThenOpen('Query.me', 0, 12);
    const results = await asked;
    assert.equal(accounts.count('GET /me'), 3, 'one call per distinct forwarded value');
    results.forEach((r, i) => assert.equal((r.body.data?.me as { name: string }).name, `me as ${callers[i % 3] ?? 'nobody'}`));
  });

  it('a caller that goes away, even the one that sent the call, harms none of the others', async () => {
    users.reset();
    gate.close();
    const baseline = await coalesced('Query.user');
    const leader = leavingQuery('{ user(id: 8) { name } }');
    await until(() => users.count('GET /users/:id') === 1, 'the leader reached users');
    const waiters = Promise.all(Array.from({ length: 3 }, () => gw.query('{ user(id: 8) { name } }')));
    const leavingWaiter = leavingQuery('{ user(id: 8) { name } }');
    const seen = await pollUntil(
      () => coalesced('Query.user'),
      (count) => count >= baseline + 4,
      5000,
      10,
    );
    assert.equal(seen - baseline, 4, "every waiter joined the leader's call");
    leader.leave();
    leavingWaiter.leave();
    assert.equal(await leader.answer, 'aborted');
    assert.equal(await leavingWaiter.answer, 'aborted');
    await loopTurns(); // the gateway reads the disconnects (same process); then the source answers
    gate.open();
    for (const r of await waiters) assert.deepEqual([r.body.data, r.body.errors], [{ user: { name: 'User 8' } }, undefined]);
    assert.equal(users.count('GET /users/:id'), 1, 'the shared call ran on for the others');
  });

  it("gives a failed call's error to every waiter and never caches it", async () => {
    users.reset();
    flakyStatus = 503;
    gate.close();
    const asked = Promise.all(Array.from({ length: 5 }, () => gw.query('{ flaky { name } }')));
    await joinedThenOpen('Query.flaky', 0, 4);
    const failed = await asked;
    assert.equal(users.count('GET /flaky'), 1);
    for (const r of failed) {
      assert.equal(r.body.data?.flaky, null);
      assert.deepEqual(
        r.body.errors?.map((e) => [e.extensions?.code, e.extensions?.status]),
        [['UPSTREAM_HTTP_ERROR', 503]],
      );
    }
    flakyStatus = 200;
    const healed = await gw.query('{ flaky { name } }');
    assert.deepEqual([healed.body.data, healed.body.errors], [{ flaky: { name: 'Flaky' } }, undefined]);
    assert.equal(users.count('GET /flaky'), 2, 'the error was not cached');
  });

  it('never coalesces a non-GET: identical concurrent mutations and POST reads each reach the source', async () => {
    users.reset();
    gate.close();
    const mutations = Promise.all(Array.from({ length: 3 }, () => gw.query('mutation { touch(id: 3) { name } }')));
    const reads = Promise.all(Array.from({ length: 3 }, () => gw.query('{ lookup(id: 3) { name } }')));
    await until(
      () => users.count('POST /touch/:id') === 3 && users.count('POST /lookup') === 3,
      'every request reached users while the first was still out',
    );
    gate.open();
    for (const r of await mutations) assert.deepEqual(r.body.data, { touch: { name: 'touched 3' } });
    for (const r of await reads) assert.deepEqual(r.body.data, { lookup: { name: 'looked up' } });
    assert.equal((await coalesced('Mutation.touch')) + (await coalesced('Query.lookup')), 0);
  });

  it('with coalesce = false every request sends its own subrequests', async () => {
    users.reset();
    const results = await Promise.all(Array.from({ length: 4 }, () => gw.query('{ userOff(id: 9) { name } }')));
    assert.equal(users.count('GET /users/:id'), 4);
    for (const r of results) assert.equal(debugCounts(r).subrequests, 1);
  });
});
