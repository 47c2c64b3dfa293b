/**
 * One route decision, by the request's path only (docs/hardening.md "Routing"): the GraphQL path
 * is exactly `/graphql`, every POST to it must carry a JSON body (a form post or `text/plain` is
 * what a cross-site page sends without a preflight: CSRF), any other path is 404 whatever `Host`
 * says, and an internal error has the same status and bytes on every entrance. Against a real gateway over
 * HTTP, with a source that counts the writes it receives and the cookie they carry.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startGateway, type RunningGateway } from '../../gateway/server/start.js';
import { writeGatewayFiles, type GatewayFiles } from '../support/gateway.js';
import { rawRequest, type RawAnswer } from '../support/raw-http.js';
import { serveCli, type ServeProcess } from '../support/cli.js';
import { metricValue } from '../support/prom-text.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const SCHEMA = `
type Query {
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}")
  posts: [Post!]! @fetch(source: "users", path: "/posts")
}
type Mutation {
  rename(id: ID!, name: String!): User
    @fetch(source: "users", path: "/users/{args.id}", method: "PATCH", body: """{"name": {args.name}}""")
}
type User { id: ID! name: String }
type Post { id: ID! authorId: ID @from(key: "author_id") author: User @fetch(source: "users", path: "/users/{parent.authorId}") }
`;
const MUTATION = 'mutation { rename(id: "1", name: "pwned") { name } }';
const QUERY = '{ user(id: "1") { name } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('routing: one decision by path, one guard for every POST', () => {
  let users: CountingUpstream;
  let files: GatewayFiles;
  let open: RunningGateway;
  let persisted: RunningGateway;

  before(async () => {
    users = await startUpstream({
      'PATCH /users/:id': ({ params }) => ({ json: { id: params.id, name: 'pwned' } }),
      'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: `User ${params.id}` } }),
    });
    const config = (extra: string) =>
      `[gateway]\nhost = "127.0.0.1"\nport = 0\nschema = ["s.graphqls"]\n${extra}\n\n[sources.users]\nurl = "${users.url}"\nforward_headers = ["cookie"]\n`;
    files = await writeGatewayFiles({ schemas: { 's.graphqls': SCHEMA }, toml: config('') });
    open = await startGateway({ configPath: files.configPath, port: 0 });
    await writeFile(path.join(files.dir, 'docs.json'), JSON.stringify({ [sha256(MUTATION)]: MUTATION }));
    const lockedPath = path.join(files.dir, 'locked.toml');
    await writeFile(lockedPath, config('persisted_documents = "docs.json"\nonly_persisted = true'));
    persisted = await startGateway({ configPath: lockedPath, port: 0 });
  });
  after(async () => {
    await open.close();
    await persisted.close();
    await users.close();
    await files.cleanup();
  });

  const form = (body: string, type = 'application/x-www-form-urlencoded') => ({
    method: 'POST',
    headers: { 'content-type': type, cookie: 'session=victim' },
    body,
  });

  test('a form post, text/plain or multipart never runs a mutation, on any path that looks like GraphQL', async () => {
    const bodies = [
      `query=${encodeURIComponent(MUTATION)}`,
      `extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: sha256(MUTATION) } }))}`,
    ];
    const types = ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x'];
    for (const gateway of [open, persisted]) {
      for (const target of ['/graphql', '/graphql/', '//graphql', '/graphql?x=1', '/graphql/?x=1', '/%67raphql', '/GRAPHQL']) {
        for (const type of types) {
          for (const body of bodies) {
            users.reset();
            const res = await rawRequest(gateway.port, { target, ...form(body, type) });
            const expected = target === '/graphql' || target === '/graphql?x=1' ? 415 : 404;
            assert.equal(res.status, expected, `${target} ${type} ${body.slice(0, 12)}: ${res.text}`);
            if (expected === 415) {
              assert.equal(JSON.parse(res.text).errors[0].extensions.code, 'UNSUPPORTED_MEDIA_TYPE');
              assert.equal(res.headers['accept'], 'application/json');
            }
            assert.equal(users.count('PATCH /users/:id'), 0, `${target} ${type}: no write reached the source`);
          }
        }
      }
    }
  });

  test('only a JSON body carries an operation: application/json, graphql+json and graphql-response+json', async () => {
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'application/graphql+json',
      'application/graphql-response+json',
    ]) {
      users.reset();
      const res = await rawRequest(open.port, { target: '/graphql', ...form(JSON.stringify({ query: MUTATION }), type) });
      assert.equal(res.status, 200, `${type}: ${res.text}`);
      assert.deepEqual(JSON.parse(res.text), { data: { rename: { name: 'pwned' } } });
      assert.equal(users.count('PATCH /users/:id'), 1, type);
      assert.equal(users.requestsFor('PATCH /users/:id')[0]!.headers.cookie, 'session=victim');
    }
  });

  test('the route is the request path: Host never makes a path GraphQL', async () => {
    const query = encodeURIComponent(QUERY);
    const cases: Array<{ target: string; host: string }> = [
      { target: `/not-graphql?query=${query}`, host: `a/graphql?query=${query}&` },
      { target: '/', host: 'x/graphql' },
      { target: `/?query=${query}`, host: 'x/graphql' },
      { target: `/healthz?query=${query}`, host: 'x/graphql' },
      { target: `/graphiql/x?query=${query}`, host: 'x/graphql' },
    ];
    for (const { target, host } of cases) {
      users.reset();
      const res = await rawRequest(open.port, { method: 'GET', target, headers: { host, accept: 'application/json' } });
      assert.notEqual(res.status, 200, `${target} with Host ${host}: ${res.text}`);
      assert.doesNotMatch(res.text, /User 1/);
      assert.equal(users.count(), 0, `${target} with Host ${host} sent nothing to the source`);
    }
    users.reset();
    const real = await rawRequest(open.port, {
      method: 'GET',
      target: `/graphql?query=${query}`,
      headers: { host: 'evil.example/other?' },
    });
    assert.equal(real.status, 200, real.text);
    assert.deepEqual(JSON.parse(real.text), { data: { user: { name: 'User 1' } } });
  });

  test('any other path is 404, and /healthz, /readyz and GraphiQL still answer', async () => {
    for (const target of ['/', '/graphql/', '//graphql', '/graphqlx', '/foo', '/metrics/', '/readyz/', 'http://x/graphql']) {
      const res = await rawRequest(open.port, {
        method: 'GET',
        target: target.startsWith('http') ? target : `${target}?query=${encodeURIComponent(QUERY)}`,
      });
      assert.equal(res.status, 404, `${target}: ${res.text}`);
    }
    assert.equal((await rawRequest(open.port, { method: 'GET', target: '/healthz' })).status, 200);
    const ready = await rawRequest(open.port, { method: 'GET', target: '/readyz' });
    assert.deepEqual([ready.status, ready.text], [200, '{"status":"ready"}']);
    const page = await rawRequest(open.port, { method: 'GET', target: '/graphql', headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(page.text, /<script src="\/graphiql\/graphiql\.js">/);
  });
});

describe('an internal error: the same 500 on every entrance, and a line for the operator', () => {
  // A real failure nobody expected: the gateway runs with a tenth of Node's stack (--stack-size),
  // so writing a custom-scalar value 1,000 levels deep, within limits.max_json_depth, overflows it
  // inside JSON.stringify. Nothing of the gateway is replaced; only its process is starved.
  const DEPTH = 1000;
  let upstream: CountingUpstream;
  let files: GatewayFiles;
  let gw: ServeProcess;

  before(async () => {
    upstream = await startUpstream({
      'GET /deep': () => ({
        body: `{"id":"d","payload":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`,
        headers: { 'content-type': 'application/json' },
      }),
      'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: `User ${params.id}` } }),
    });
    const toml = `[gateway]\nschema = ["s.graphqls"]\n\n[limits]\nmax_json_depth = ${DEPTH}\n\n[sources.users]\nurl = "${upstream.url}"\n`;
    const schema = `scalar JSON\ntype Query { deep: Blob @fetch(source: "users", path: "/deep") user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}") }\ntype Blob { id: ID! payload: JSON }\ntype User { id: ID! name: String }`;
    files = await writeGatewayFiles({ schemas: { 's.graphqls': schema }, toml });
    gw = await serveCli(files.configPath, [], ['--stack-size=150']);
  });
  after(async () => {
    gw.child.kill('SIGTERM');
    await gw.exited;
    await upstream.close();
    await files.cleanup();
  });

  test('fast path, yoga POST, GET and event stream: 500 "Unexpected error." with the same bytes', async () => {
    const query = '{ deep { id payload } }';
    const body = JSON.stringify({ query });
    const entrances: Array<{ name: string; send: () => Promise<RawAnswer> }> = [
      { name: 'fast path', send: () => rawRequest(gw.port, { target: '/graphql', ...json(body) }) },
      { name: 'yoga POST', send: () => rawRequest(gw.port, { target: '/graphql', ...json(body, 'application/graphql+json') }) },
      {
        name: 'GET',
        send: () =>
          rawRequest(gw.port, {
            method: 'GET',
            target: `/graphql?query=${encodeURIComponent(query)}`,
            headers: { accept: 'application/json' },
          }),
      },
      {
        name: 'event stream',
        send: () => rawRequest(gw.port, { target: '/graphql', ...json(body, 'application/json', 'text/event-stream') }),
      },
    ];
    for (const entrance of entrances) {
      const res = await entrance.send();
      assert.equal(res.status, 500, `${entrance.name}: ${res.text.slice(0, 200)}`);
      assert.equal(res.text, '{"errors":[{"message":"Unexpected error.","extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}', entrance.name);
    }
    assert.equal(upstream.count('GET /deep'), entrances.length);
    // The operator sees what happened, once per failure; the client saw nothing of it.
    assert.equal(
      gw.stderr().match(/gqlgw: an unexpected error was answered with 500: RangeError: Maximum call stack size exceeded/g)?.length,
      4,
    );
    const metrics = await (await fetch(new URL('/metrics', gw.url))).text();
    assert.equal(metricValue(metrics, 'gqlgw_http_requests_total', { status: '500', code: 'INTERNAL_SERVER_ERROR' }), 4);
    // And the gateway answers the next query.
    const next = await rawRequest(gw.port, { target: '/graphql', ...json(JSON.stringify({ query: '{ user(id: "2") { name } }' })) });
    assert.equal(next.status, 200);
    assert.equal(next.text, '{"data":{"user":{"name":"User 2"}}}');
  });
});

function json(body: string, type = 'application/json', accept = 'application/json') {
  return { method: 'POST', headers: { 'content-type': type, accept }, body };
}
