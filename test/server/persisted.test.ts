/**
 * docs/hardening.md: automatic persisted queries (Apollo's protocol, over POST and GET),
 * trusted documents (`persisted_documents`) and `only_persisted`. Both entrances ask one decision
 * (gateway/server/persisted.ts), so every case is sent over POST (fast path) and GET (yoga).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { GatewayConfigError } from '../../gateway/config/diagnostics.js';
import { loadConfig } from '../../gateway/config/load.js';
import { APQ_MAX_DOCUMENTS, APQ_MAX_TEXT_CHARS, createPersistedDocuments } from '../../gateway/server/persisted.js';
import { requestError } from '../support/assert.js';
import { startTestGateway, writeGatewayFiles, type HttpResult, type TestGateway } from '../support/gateway.js';
import type { CountingUpstream } from '../support/upstream.js';
import { makePosts, QUERY_TYPE, startPosts, USER_TYPE } from '../core/fixtures.js';

const SCHEMA = `${USER_TYPE}${QUERY_TYPE} type Post { id: ID! title: String }`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const persistedQuery = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

/** The same request over POST JSON (fast path) and GET (yoga); both answers are returned. */
async function both(
  gw: TestGateway,
  params: { query?: string; extensions?: unknown },
): Promise<[HttpResult<unknown>, HttpResult<unknown>]> {
  const post = await gw.post(JSON.stringify(params));
  const search = new URLSearchParams();
  if (params.query !== undefined) search.set('query', params.query);
  if (params.extensions !== undefined) search.set('extensions', JSON.stringify(params.extensions));
  const get = await gw.get(`/graphql?${search}`, { accept: 'application/json' });
  return [post, get];
}

function assertRefused(answers: Array<HttpResult<unknown>>, code: string): void {
  for (const res of answers) {
    assert.equal(res.status, 400, res.text);
    assert.equal(requestError(res.body).extensions?.code, code, res.text);
  }
}

describe('automatic persisted queries', () => {
  let posts: CountingUpstream;
  let gw: TestGateway;
  before(async () => {
    posts = await startPosts(makePosts(3, () => 1));
    gw = await startTestGateway({
      schemas: { 'schema.graphqls': SCHEMA },
      sources: { posts: { url: posts.url }, users: { url: posts.url } },
    });
  });
  after(async () => {
    await gw.close();
    await posts.close();
  });

  test('an unknown hash is PERSISTED_QUERY_NOT_FOUND; the retry with the query stores it; then the hash alone runs it, over POST and GET', async () => {
    const query = '{ posts(limit: 2) { id title } }';
    const hash = sha256(query);
    const missing = await both(gw, { extensions: persistedQuery(hash) });
    assertRefused(missing, 'PERSISTED_QUERY_NOT_FOUND');
    assert.equal(requestError(missing[0].body).message, 'PersistedQueryNotFound');
    posts.reset();

    const stored = await gw.post(JSON.stringify({ query, extensions: persistedQuery(hash) }));
    assert.equal(stored.status, 200, stored.text);
    const expected = {
      data: {
        posts: [
          { id: '1', title: 'Title 1' },
          { id: '2', title: 'Title 2' },
        ],
      },
    };
    assert.deepEqual((stored.body as { data: unknown }).data, expected.data);
    for (const res of await both(gw, { extensions: persistedQuery(hash.toUpperCase()) })) {
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((res.body as { data: unknown }).data, expected.data);
    }
    assert.equal(posts.count(), 3, 'each run fetched');
  });

  test('a query sent with a hash that is not its SHA-256 is PERSISTED_QUERY_HASH_MISMATCH and is not stored', async () => {
    const query = '{ posts(limit: 1) { id } }';
    const wrong = sha256('{ posts { title } }');
    assertRefused(await both(gw, { query, extensions: persistedQuery(wrong) }), 'PERSISTED_QUERY_HASH_MISMATCH');
    assertRefused(await both(gw, { extensions: persistedQuery(wrong) }), 'PERSISTED_QUERY_NOT_FOUND');
  });

  test('a malformed persistedQuery is PERSISTED_QUERY_INVALID', async () => {
    assertRefused(await both(gw, { extensions: { persistedQuery: { version: 2, sha256Hash: sha256('x') } } }), 'PERSISTED_QUERY_INVALID');
    assertRefused(await both(gw, { extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }), 'PERSISTED_QUERY_INVALID');
  });

  test('stored documents are bounded in count and in text size: the oldest go first', () => {
    const store = createPersistedDocuments({ trusted: undefined, onlyPersisted: false });
    const texts = Array.from({ length: APQ_MAX_DOCUMENTS + 1 }, (_, i) => `{ posts(limit: ${i}) { id } }`);
    for (const text of texts) store.resolve({ query: text, extensions: persistedQuery(sha256(text)) });
    assert.throws(() => store.resolve({ extensions: persistedQuery(sha256(texts[0]!)) }), /PersistedQueryNotFound/);
    assert.equal(store.resolve({ extensions: persistedQuery(sha256(texts[1]!)) }), texts[1]);

    const big = createPersistedDocuments({ trusted: undefined, onlyPersisted: false });
    const size = Math.floor(APQ_MAX_TEXT_CHARS / 4) + 1;
    const large = Array.from({ length: 4 }, (_, i) => `#${i}${' '.repeat(size)}\n{ posts { id } }`);
    for (const text of large) big.resolve({ query: text, extensions: persistedQuery(sha256(text)) });
    assert.throws(() => big.resolve({ extensions: persistedQuery(sha256(large[0]!)) }), /PersistedQueryNotFound/);
    assert.equal(big.resolve({ extensions: persistedQuery(sha256(large[3]!)) }), large[3]);
  });
});

describe('trusted documents with only_persisted = true', () => {
  const trustedQuery = 'query Trusted { posts(limit: 1) { id title } }';
  let posts: CountingUpstream;
  let gw: TestGateway;
  before(async () => {
    posts = await startPosts(makePosts(3, () => 1));
    gw = await startTestGateway({
      // Not a schema: the helper writes any file given here beside gateway.toml.
      schemas: { 'schema.graphqls': SCHEMA, 'docs.json': JSON.stringify({ [sha256(trustedQuery)]: trustedQuery }) },
      toml: [
        '[gateway]',
        'host = "127.0.0.1"',
        'port = 0',
        'schema = ["schema.graphqls"]',
        'persisted_documents = "docs.json"',
        'only_persisted = true',
        '',
        `[sources.posts]\nurl = "${posts.url}"`,
        `[sources.users]\nurl = "${posts.url}"`,
      ].join('\n'),
    });
  });
  after(async () => {
    await gw.close();
    await posts.close();
  });

  test('a trusted document runs by its hash, and by its text, over POST and GET', async () => {
    for (const params of [{ extensions: persistedQuery(sha256(trustedQuery)) }, { query: trustedQuery }]) {
      for (const res of await both(gw, params)) {
        assert.equal(res.status, 200, res.text);
        assert.deepEqual((res.body as { data: unknown }).data, { posts: [{ id: '1', title: 'Title 1' }] });
      }
    }
  });

  test('any other document is 400 PERSISTED_QUERY_REQUIRED, and nothing is stored or fetched', async () => {
    posts.reset();
    const other = '{ posts { id } }';
    assertRefused(await both(gw, { query: other }), 'PERSISTED_QUERY_REQUIRED');
    assertRefused(await both(gw, { query: other, extensions: persistedQuery(sha256(other)) }), 'PERSISTED_QUERY_REQUIRED');
    assertRefused(await both(gw, { extensions: persistedQuery(sha256(other)) }), 'PERSISTED_QUERY_REQUIRED');
    assert.equal(posts.count(), 0);
  });
});

describe('persisted_documents configuration errors', () => {
  test("a key that is not its document's SHA-256, and only_persisted without a file, are refused at file:line:col", async () => {
    const files = await writeGatewayFiles({
      schemas: { 'schema.graphqls': SCHEMA },
      toml: '[gateway]\nschema = ["schema.graphqls"]\npersisted_documents = "docs.json"\n',
    });
    try {
      await writeFile(path.join(files.dir, 'docs.json'), JSON.stringify({ [sha256('{ a }')]: '{ b }' }));
      assert.throws(
        () => loadConfig(files.configPath),
        (err: unknown) => {
          assert.ok(err instanceof GatewayConfigError);
          assert.match(
            err.message,
            new RegExp(
              `gateway\\.toml:3:1: gateway\\.persisted_documents: key "${sha256('{ a }')}" in .*docs\\.json is not the SHA-256 of its document \\(that is "${sha256('{ b }')}"\\)`,
            ),
          );
          return true;
        },
      );
      await writeFile(files.configPath, '[gateway]\nschema = ["schema.graphqls"]\nonly_persisted = true\n');
      assert.throws(
        () => loadConfig(files.configPath),
        /gateway\.toml:3:1: gateway\.only_persisted = true needs gateway\.persisted_documents/,
      );
    } finally {
      await files.cleanup();
    }
  });
});
