/**
 * One answer pipeline behind two entrances (gateway/execute/README.md; docs/reference.md, `[cors]`): the fast path must keep taking plain POST JSON requests (its own counter,
 * read over HTTP, moves only for them), and a request answered by the fast path and the same
 * request answered by yoga (GET) get the same status, body and headers — content type, CORS and
 * debug headers. A request the fast path hands to yoga is not parsed again. Preflights and origins
 * follow `[cors]`; without it there are no CORS headers at all.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../gateway/config/load.js';
import { GatewayConfigError } from '../../gateway/config/diagnostics.js';
import { startTestGateway, writeGatewayFiles, type TestGateway } from '../support/gateway.js';
import type { CountingUpstream } from '../support/upstream.js';
import { makePosts, makeUsers, startPosts, startUsers, USER_TYPE, QUERY_TYPE, BATCHED_POST_TYPE } from '../core/fixtures.js';
import { requestError } from '../support/assert.js';
import { metricValue } from '../support/prom-text.js';

const SCHEMA = `${USER_TYPE}${QUERY_TYPE}${BATCHED_POST_TYPE}`;

const APP = 'https://app.example.com';
const EVIL = 'https://evil.example.net';
/** Headers an answer's entrance must not change. */
const COMPARED = [
  'content-type',
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-expose-headers',
  'vary',
  'x-gql-rounds',
  'x-gql-subrequests',
  'x-gql-batches',
];

interface Seen {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string | null>;
}

function seen(res: Response, body: string): Seen {
  return { status: res.status, body, headers: Object.fromEntries(COMPARED.map((h) => [h, res.headers.get(h)])) };
}

describe('one answer pipeline for the fast path and yoga', () => {
  let users: CountingUpstream;
  let posts: CountingUpstream;
  let gw: TestGateway;

  const scrape = async () => (await gw.get('/metrics')).text;
  const fastPathCount = async () => metricValue(await scrape(), 'gqlgw_http_fast_path_total');

  async function viaPost(query: string, headers: Record<string, string>): Promise<Seen> {
    const res = await fetch(gw.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    return seen(res, await res.text());
  }
  async function viaGet(query: string, headers: Record<string, string>): Promise<Seen> {
    const res = await fetch(`${gw.url}?query=${encodeURIComponent(query)}`, { headers });
    return seen(res, await res.text());
  }

  before(async () => {
    users = await startUsers(makeUsers(5));
    posts = await startPosts(makePosts(6, (i) => (i % 5) + 1));
    gw = await startTestGateway({
      schemas: { 'schema.graphqls': SCHEMA },
      sources: { users: { url: users.url, forwardHeaders: ['authorization', 'X-Tenant'] }, posts: { url: posts.url } },
      extraToml: `[cors]\norigins = ["${APP}"]\ncredentials = true\nmax_age_s = 600\n\n[limits]\nmax_aliases = 3`,
    });
  });
  after(async () => {
    await gw.close();
    await users.close();
    await posts.close();
  });

  test('the fast path takes plain POST JSON requests (and only those): its counter moves by one per request', async () => {
    const initial = await fastPathCount();
    const res = await gw.query('{ posts(limit: 2) { id } }');
    assert.equal(res.status, 200, res.text);
    assert.equal(await fastPathCount(), initial + 1);
    const got = await gw.get(`/graphql?query=${encodeURIComponent('{ posts(limit: 2) { id } }')}`);
    assert.equal(got.status, 200);
    assert.equal(await fastPathCount(), initial + 1, 'a GET goes through yoga');
  });

  test('POST (fast path) and GET (yoga) give the same status, body and headers, for every kind of answer and origin', async () => {
    const queries = [
      '{ posts(limit: 6) { id title author { name } } }',
      '{ post(id: 404) { id } user(id: 1) { name } }',
      '{ posts { nope } }',
      '{ posts { id',
      '{ a: posts { id } b: posts { id } c: posts { id } d: posts { id } }',
      '{ a: __schema { queryType { name } } b: __schema { queryType { name } } }',
    ];
    const origins: Array<Record<string, string>> = [{ origin: APP }, { origin: EVIL }, {}];
    const accepts = ['application/json', 'application/graphql-response+json, application/json'];
    let compared = 0;
    const initial = await fastPathCount();
    for (const query of queries) {
      for (const origin of origins) {
        // Every query and origin, each Accept in turn (so both media types meet every origin).
        const headers = { ...origin, accept: accepts[compared % accepts.length]! };
        const fast = await viaPost(query, headers);
        const slow = await viaGet(query, headers);
        assert.deepEqual(slow, fast, `${query} with ${JSON.stringify(headers)}`);
        // Equal is not enough: both could drop CORS on an error answer. Every answer carries it.
        assert.equal(fast.headers['vary'], 'Origin', `${query}: Vary on every answer`);
        assert.equal(fast.headers['access-control-allow-origin'], origin.origin === APP ? APP : null, `${query} from ${origin.origin}`);
        compared++;
      }
    }
    assert.equal(compared, 18);
    assert.equal(await fastPathCount(), initial + 18, 'the fast path answered every POST, yoga every GET');
    // What they agree on is what [cors] and debug_headers ask for.
    const ok = await viaPost(queries[0]!, { origin: APP });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(ok.headers['access-control-allow-origin'], APP);
    assert.equal(ok.headers['access-control-allow-credentials'], 'true');
    assert.equal(
      ok.headers['access-control-expose-headers'],
      'X-GQL-Rounds, X-GQL-Subrequests, X-GQL-Batches, X-GQL-Cost, X-GQL-Worker, Retry-After',
    );
    assert.equal(ok.headers['vary'], 'Origin');
    assert.equal(ok.headers['x-gql-rounds'], '2');
    const refused = await viaPost(queries[0]!, { origin: EVIL });
    assert.equal(refused.status, 200, 'a non-browser client is still answered');
    for (const h of COMPARED.filter((name) => name.startsWith('access-control-'))) assert.equal(refused.headers[h], null, h);
    const typed = await viaGet(queries[2]!, { accept: 'application/graphql-response+json' });
    assert.equal(typed.status, 400);
    assert.equal(typed.headers['content-type'], 'application/graphql-response+json; charset=utf-8');
  });

  test('a request the fast path hands to yoga is parsed and validated once', async () => {
    const text = await scrape();
    const parsed = metricValue(text, 'gqlgw_documents_parsed_total');
    const fast = metricValue(text, 'gqlgw_http_fast_path_total');
    // A fresh text naming an operation it lacks: the fast path prepares it, cannot plan it, and yoga answers.
    const res = await gw.query('query Here { posts { id } }', undefined, undefined, 'Elsewhere');
    assert.equal(res.status, 400, res.text);
    assert.equal(requestError(res.body).extensions?.code, 'OPERATION_RESOLUTION_FAILURE');
    const later = await scrape();
    assert.equal(metricValue(later, 'gqlgw_http_fast_path_total'), fast, 'yoga answered');
    assert.equal(metricValue(later, 'gqlgw_documents_parsed_total'), parsed + 1, 'one parse for both entrances');
  });

  test('a preflight from an allowed origin gets 204 with methods, every forwarded header and max-age', async () => {
    const res = await fetch(gw.url, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), APP);
    assert.equal(res.headers.get('access-control-allow-methods'), 'GET, POST');
    assert.equal(res.headers.get('access-control-allow-headers'), 'content-type, accept, authorization, x-tenant');
    assert.equal(res.headers.get('access-control-max-age'), '600');
    assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
    assert.equal(res.headers.get('vary'), 'Origin');
  });

  test('an OPTIONS that is no preflight gets 204 with Allow, and the CORS headers of an allowed origin', async () => {
    const res = await fetch(gw.url, { method: 'OPTIONS', headers: { origin: APP } });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('allow'), 'GET, POST, OPTIONS');
    assert.equal(res.headers.get('access-control-allow-origin'), APP);
    assert.equal(res.headers.get('vary'), 'Origin');
  });

  test('an OPTIONS from an origin not on the list gets 403 ORIGIN_NOT_ALLOWED and no CORS header', async () => {
    const res = await fetch(gw.url, { method: 'OPTIONS', headers: { origin: EVIL, 'access-control-request-method': 'POST' } });
    assert.equal(res.status, 403);
    assert.equal(requestError(await res.json()).extensions?.code, 'ORIGIN_NOT_ALLOWED');
    for (const [name] of res.headers) assert.doesNotMatch(name, /^access-control-/);
    const text = await scrape();
    assert.ok(metricValue(text, 'gqlgw_http_requests_total', { status: '403', code: 'ORIGIN_NOT_ALLOWED' }) >= 1);
  });

  test('gqlgw_http_requests_total counts every answer by status and code', async () => {
    const first = await scrape();
    await gw.query('{ posts(limit: 1) { id } }');
    await gw.query('{ posts { nope } }');
    await gw.post('{"query": ');
    await gw.get(`/graphql?query=${encodeURIComponent('{ posts { id } }')}`);
    const last = await scrape();
    const delta = (labels: Record<string, string>) =>
      metricValue(last, 'gqlgw_http_requests_total', labels) - metricValue(first, 'gqlgw_http_requests_total', labels);
    assert.equal(delta({ status: '200', code: 'ok' }), 2);
    assert.equal(delta({ status: '400', code: 'GRAPHQL_VALIDATION_FAILED' }), 1);
    assert.equal(delta({ status: '400', code: 'BAD_REQUEST' }), 1);
    assert.equal(delta({}), 4);
  });
});

describe('without [cors]', () => {
  let posts: CountingUpstream;
  let gw: TestGateway;
  before(async () => {
    posts = await startPosts(makePosts(2, () => 1));
    gw = await startTestGateway({
      schemas: { 'schema.graphqls': `${USER_TYPE}${QUERY_TYPE} type Post { id: ID! }` },
      sources: { posts: { url: posts.url }, users: { url: posts.url } },
    });
  });
  after(async () => {
    await gw.close();
    await posts.close();
  });

  test('no CORS header on any answer, and a preflight is refused', async () => {
    const answers = [
      await fetch(gw.url, {
        method: 'POST',
        headers: { origin: APP, 'content-type': 'application/json' },
        body: '{"query":"{ posts { id } }"}',
      }),
      await fetch(`${gw.url}?query=${encodeURIComponent('{ posts { id } }')}`, { headers: { origin: APP } }),
      await fetch(gw.url, { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'POST' } }),
    ];
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 403],
    );
    for (const res of answers) for (const [name] of res.headers) assert.doesNotMatch(name, /^(access-control-|vary$)/);
  });
});

describe('[cors] configuration errors', () => {
  test('origins = ["*"] with credentials = true is refused at its file:line:col', async () => {
    const files = await writeGatewayFiles({
      schemas: { 'schema.graphqls': `${USER_TYPE}${QUERY_TYPE} type Post { id: ID! }` },
      sources: { posts: { url: 'http://127.0.0.1:1' }, users: { url: 'http://127.0.0.1:1' } },
      extraToml: '[cors]\norigins = ["*", "https://app.example.com/"]\ncredentials = true',
    });
    try {
      const text = readFileSync(files.configPath, 'utf8').split('\n');
      const credentialsLine = text.findIndex((l) => l.startsWith('credentials')) + 1;
      const originsLine = text.findIndex((l) => l.startsWith('origins')) + 1;
      assert.throws(
        () => loadConfig(files.configPath),
        (err: unknown) => {
          assert.ok(err instanceof GatewayConfigError);
          const shown = path.basename(files.configPath);
          assert.match(
            err.message,
            new RegExp(`${shown}:${credentialsLine}:1: cors\\.credentials = true cannot be combined with origins = \\["\\*"\\]`),
          );
          assert.match(
            err.message,
            new RegExp(`${shown}:${originsLine}:1: cors\\.origins entry "https://app\\.example\\.com/" must be "\\*" or an origin`),
          );
          return true;
        },
      );
      await writeFile(
        files.configPath,
        text.join('\n').replace('credentials = true', 'credentials = false').replace(', "https://app.example.com/"', ''),
      );
      assert.deepEqual(loadConfig(files.configPath).cors, { origins: ['*'], credentials: false, maxAgeS: 600 });
    } finally {
      await files.cleanup();
    }
  });
});
