/**
 * Bounded soak: a steady rate of mixed queries (batched, single fetches, a few bad
 * requests) against a source that fails 10 % of its requests in rotating ways (5xx, reset, HTML,
 * timeout, a batch answer that is not an array). Runs SOAK_SECONDS seconds (default 20).
 *
 * Not part of `npm test` (it would take a fifth of its time budget): `npm run test:soak` runs it,
 * setting GQLGW_SOAK=1; without that variable the suite is skipped.
 *
 * Stated bounds, checked at the end:
 * - no crash: every request gets an answer, and the gateway still answers after;
 * - every response is well-formed: JSON, 200 with all 20 posts (an author is its user, or null
 *   with an error at its path carrying an upstream code), or 400 with a coded request error;
 * - heap after GC at the end is at most 24 MiB above heap after GC after warm-up;
 * - sockets: the gateway holds at most `connections` (8) sockets to the source, and the
 *   process's TCP sockets at the end are at most 16 more than after warm-up.
 *
 * Two memory cases with the default limits follow (docs/hardening.md "Fault matrix"; their fast
 * variants are in amplification.test.ts and operation-bytes.test.ts): a small query over a cycle
 * whose answer would be 72 MB (RESPONSE_LIMIT, bounded RSS, the event loop free), and ten aliases
 * of an 8 MB answer (UPSTREAM_BYTES_LIMIT past 64 MiB).
 */
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type GraphQLResult, type TestGateway } from '../support/gateway.js';
import { idsOf, startFaultyUpstream, type Fault, type FaultyUpstream } from '../support/faulty-upstream.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { requestError } from '../support/assert.js';
import { CYCLE_SCHEMA, cycleQuery, cycleRoutes } from '../support/cycle.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 20);
const RATE_PER_SECOND = 40;
const MAX_OUTSTANDING = 32;
const CONNECTIONS = 8;
const HEAP_GROWTH_BOUND = 24 * 1024 * 1024;
const SOCKET_GROWTH_BOUND = 16;
const UPSTREAM_CODES = new Set(['UPSTREAM_HTTP_ERROR', 'UPSTREAM_TIMEOUT', 'UPSTREAM_BAD_RESPONSE', 'UPSTREAM_UNREACHABLE']);

const SCHEMA = `
type Query {
  posts(page: Int = 0): [Post] @fetch(source: "posts", path: "/posts?page={args.page}")
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}")
}
type Post {
  id: ID!
  authorId: ID @from(key: "author_id")
  author: User @fetch(source: "users", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id", max: 5)
}
type User { id: ID! name: String }
`;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Heap after GC; the caller first drops what the test itself keeps (the upstreams' request logs). */
function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function tcpSockets(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
}

/** Every 10th request to the users source fails, rotating through five kinds of failure. */
function failing(n: number, batch: boolean): Fault | undefined {
  if (n % 10 !== 0) return undefined;
  switch ((n / 10) % 5) {
    case 0:
      return { kind: 'json', status: 500, body: { error: 'boom' } };
    case 1:
      return { kind: 'reset' };
    case 2:
      return { kind: 'raw', contentType: 'application/json', body: '<html>oops</html>' };
    case 3:
      return { kind: 'json', body: batch ? [] : {}, delayMs: 1000 };
    default:
      return batch ? { kind: 'json', body: { not: 'an array' } } : { kind: 'json', status: 503, body: {} };
  }
}

const SKIP = process.env.GQLGW_SOAK === '1' ? false : 'the soak runs with `npm run test:soak`';

describe(`soak: ${SECONDS} s at ${RATE_PER_SECOND} requests/s against a source failing 10 %`, { skip: SKIP }, () => {
  let users: FaultyUpstream;
  let posts: FaultyUpstream;
  let gw: TestGateway;
  let usersRequests = 0;

  before(async () => {
    users = await startFaultyUpstream({
      'GET /users': ({ query }) =>
        failing(++usersRequests, true) ?? { kind: 'json', body: idsOf(query).map((id) => ({ id: Number(id), name: `User ${id}` })) },
      'GET /users/:id': ({ params }) =>
        failing(++usersRequests, false) ?? { kind: 'json', body: { id: params.id, name: `User ${params.id}` } },
    });
    posts = await startFaultyUpstream({
      'GET /posts': ({ query }) => {
        const page = Number(query.get('page') ?? 0);
        return {
          kind: 'json',
          body: Array.from({ length: 20 }, (_, i) => ({ id: page * 20 + i, author_id: String((page * 7 + i) % 50) })),
        };
      },
    });
    gw = await startTestGateway({
      debugMode: false,
      sources: { users: { url: users.url, timeoutMs: 300, extra: `connections = ${CONNECTIONS}` }, posts: { url: posts.url } },
      schemas: { 's.graphqls': SCHEMA },
    });
  });
  after(async () => {
    await gw.close();
    await users.close();
    await posts.close();
  });

  test('no crash, well-formed answers, bounded heap and sockets', { timeout: (SECONDS + 60) * 1000 }, async (t) => {
    const problems: string[] = [];
    const seen = { ok: 0, withUpstreamErrors: 0, badRequests: 0 };
    let outstanding = 0;
    let skipped = 0;
    let maxUpstreamSockets = 0;

    const checkPosts = (body: GraphQLResult, page: number): void => {
      const list = body.data?.posts as Array<{ id: string; author: { id: string; name: string } | null }> | undefined;
      if (!Array.isArray(list) || list.length !== 20) return void problems.push(`posts: ${JSON.stringify(body).slice(0, 200)}`);
      const errorPaths = new Map((body.errors ?? []).map((e) => [JSON.stringify(e.path), e]));
      list.forEach((post, i) => {
        const authorId = String((page * 7 + i) % 50);
        if (post.author === null) {
          const error = errorPaths.get(JSON.stringify(['posts', i, 'author']));
          if (!error || !UPSTREAM_CODES.has(String(error.extensions?.code)))
            problems.push(`null author without an upstream error at posts.${i}: ${JSON.stringify(body.errors)}`);
        } else if (post.author.id !== authorId || post.author.name !== `User ${authorId}`) {
          problems.push(`wrong author at posts.${i}: ${JSON.stringify(post.author)}`);
        }
      });
      if ((body.errors ?? []).length > 0) seen.withUpstreamErrors++;
    };

    const one = async (n: number): Promise<void> => {
      const kind = n % 20;
      try {
        if (kind === 0) {
          const res = await gw.post('{"query": "{ posts { id ');
          if (res.status !== 400 || !(res.body as GraphQLResult)?.errors?.[0]?.extensions?.code)
            problems.push(`malformed JSON: ${res.status} ${res.text}`);
          else seen.badRequests++;
        } else if (kind === 10) {
          const res = await gw.query(`{ user(id: 1) ${'{ name '.repeat(200)}${'}'.repeat(200)} }`);
          if (res.status !== 400 || res.body?.errors?.[0]?.extensions?.code !== 'DEPTH_LIMIT')
            problems.push(`deep query: ${res.status} ${res.text.slice(0, 200)}`);
          else seen.badRequests++;
        } else if (kind % 3 === 0) {
          const id = n % 50;
          const res = await gw.query(`{ user(id: ${id}) { id name } }`);
          const u = res.body?.data?.user as { name?: string } | null | undefined;
          if (res.status !== 200) problems.push(`user: status ${res.status}`);
          else if (u === null ? !UPSTREAM_CODES.has(String(res.body.errors?.[0]?.extensions?.code)) : u?.name !== `User ${id}`)
            problems.push(`user: ${res.text.slice(0, 200)}`);
          else seen.ok++;
        } else {
          const page = n % 13;
          const res = await gw.query(`{ posts(page: ${page}) { id author { id name } } }`);
          if (res.status !== 200) problems.push(`posts: status ${res.status} ${res.text.slice(0, 200)}`);
          else {
            checkPosts(res.body, page);
            seen.ok++;
          }
        }
      } catch (err) {
        problems.push(`request ${n} failed: ${(err as Error).message}`);
      }
    };

    const pending = new Set<Promise<void>>();
    const drive = async (durationMs: number, first: number): Promise<number> => {
      const interval = 1000 / RATE_PER_SECOND;
      const start = performance.now();
      let n = first;
      for (let i = 0; i < Math.ceil((durationMs / 1000) * RATE_PER_SECOND); i++) {
        if (outstanding < MAX_OUTSTANDING) {
          outstanding++;
          const p = one(n++).finally(() => {
            outstanding--;
            pending.delete(p);
          });
          pending.add(p);
        } else skipped++;
        maxUpstreamSockets = Math.max(maxUpstreamSockets, users.connectionsOpen);
        const wait = start + (i + 1) * interval - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      await Promise.all([...pending]);
      return n;
    };

    const warmupMs = Math.min(3000, SECONDS * 150);
    const forgetRequestLogs = () => {
      users.reset();
      posts.reset();
    };
    let n = await drive(warmupMs, 1);
    forgetRequestLogs();
    const heapWarm = heapAfterGc();
    const socketsWarm = tcpSockets();
    n = await drive(SECONDS * 1000 - warmupMs, n);
    forgetRequestLogs();
    const heapEnd = heapAfterGc();
    const socketsEnd = tcpSockets();

    const still = await gw.query('{ user(id: 3) { name } }');
    assert.ok(still.status === 200, 'the gateway still answers');
    const mib = (b: number) => (b / 1024 / 1024).toFixed(1);
    t.diagnostic(
      `requests ${n - 1} (skipped ${skipped} at the outstanding cap), ok ${seen.ok}, with upstream errors ${seen.withUpstreamErrors}, bad requests ${seen.badRequests}; ` +
        `source requests ${usersRequests}; heap ${mib(heapWarm)} → ${mib(heapEnd)} MiB; TCP sockets ${socketsWarm} → ${socketsEnd}; max sockets to the source ${maxUpstreamSockets}`,
    );
    assert.deepEqual(problems.slice(0, 5), [], `${problems.length} malformed answers`);
    assert.ok(seen.withUpstreamErrors > 0, 'the failing source did produce errors');
    assert.ok(seen.ok > SECONDS * RATE_PER_SECOND * 0.5, `most requests were served (${seen.ok})`);
    assert.ok(heapEnd - heapWarm < HEAP_GROWTH_BOUND, `heap grew ${mib(heapEnd - heapWarm)} MiB`);
    assert.ok(maxUpstreamSockets <= CONNECTIONS, `at most ${CONNECTIONS} sockets to the source, saw ${maxUpstreamSockets}`);
    assert.ok(socketsEnd - socketsWarm <= SOCKET_GROWTH_BOUND, `TCP sockets ${socketsWarm} → ${socketsEnd}`);
  });
});

/** The process's resident memory, sampled every 20 ms while `run` runs: its peak growth. */
async function peakRssGrowth<T>(run: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    const result = await run();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growth: peak - start };
  } finally {
    clearInterval(timer);
  }
}

describe(
  'soak: a 127-byte query over a cycle with the default answer limits (issue: 72 MB, 890 MB RSS, others blocked for seconds)',
  { skip: SKIP },
  () => {
    let upstream: CountingUpstream;
    let gw: TestGateway;

    before(async () => {
      upstream = await startUpstream(cycleRoutes(70));
      gw = await startTestGateway({ schemas: { 's.graphqls': CYCLE_SCHEMA }, sources: { s: { url: upstream.url } } });
    });
    after(async () => {
      await gw.close();
      await upstream.close();
    });

    test('400 RESPONSE_LIMIT, bounded memory, and the event loop never blocked for long', { timeout: 120_000 }, async (t) => {
      await gw.query('{ __typename }');
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      let done = false;
      const { result: res, growth } = await peakRssGrowth(async () => {
        const big = gw.query(cycleQuery(4)).finally(() => {
          done = true;
        });
        while (!done) await gw.query('{ __typename }');
        return big;
      });
      delay.disable();
      t.diagnostic(`longest event-loop block ${Math.round(delay.max / 1e6)} ms, peak RSS growth ${Math.round(growth / 1024 / 1024)} MiB`);
      assert.equal(res.status, 400);
      assert.equal(requestError(res.body).extensions?.code, 'RESPONSE_LIMIT');
      assert.equal(upstream.count(), 3, "posts, the author, and the author's posts: dedupe keeps it at three");
      assert.ok(growth < 256 * 1024 * 1024, `peak RSS growth ${Math.round(growth / 1024 / 1024)} MiB`);
      // ~50 ms is the design (a 5 ms slice per turn); the bound leaves room for a loaded 2-core machine.
      assert.ok(delay.max / 1e6 < 250, `the longest event-loop block was ${Math.round(delay.max / 1e6)} ms`);
    });
  },
);

describe('soak: 10 aliases of an 8 MB answer with the default max_operation_upstream_bytes (64 MiB)', { skip: SKIP }, () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;
  const BIG = 'x'.repeat(8 * 1024 * 1024);

  before(async () => {
    upstream = await startUpstream({ 'GET /docs/:id': ({ params }) => ({ json: { id: params.id, text: BIG } }) });
    gw = await startTestGateway({
      schemas: { 's.graphqls': 'type Query { doc(id: ID!): Doc @fetch(source: "s", path: "/docs/{args.id}") }\ntype Doc { id: ID! }' },
      sources: { s: { url: upstream.url } },
    });
  });
  after(async () => {
    await gw.close();
    await upstream.close();
  });

  test('the fields past the budget fail with UPSTREAM_BYTES_LIMIT, and memory stays bounded', { timeout: 120_000 }, async () => {
    const query = `{ ${Array.from({ length: 10 }, (_, i) => `d${i}: doc(id: "${i}") { id }`).join(' ')} }`;
    const { result: res, growth } = await peakRssGrowth(() => gw.query(query));
    assert.equal(res.status, 200);
    const failed = (res.body.errors ?? []).filter((e) => e.extensions?.code === 'UPSTREAM_BYTES_LIMIT');
    assert.ok(failed.length >= 2, `80 MB asked, 64 MiB allowed: ${failed.length} fields failed`);
    // The source's own copies of the answers live in this process too: the bound counts them.
    assert.ok(growth < 640 * 1024 * 1024, `peak RSS growth ${Math.round(growth / 1024 / 1024)} MiB`);
  });
});
