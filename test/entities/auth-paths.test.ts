/**
 * `@auth` on a type holds on every path that reaches it (SPEC "One caller cannot change another's
 * answer"): `_entities`, union members, interface fields, fragments and `@lookup` completion, with
 * real tokens, the real gateway over HTTP and a counting upstream. A caller without the type's
 * scopes never sees its fields, and nothing is fetched for them (the upstream's counts).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { keySet, makeKey, mintToken, type TestKey } from '../support/identity.js';

const ISSUER = 'https://id.test.invalid';
const AUDIENCE = 'gqlgw';
const PAYLOAD = 'the-launch-codes';

const SCHEMA = `
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])

type Query {
  search: [SearchResult] @fetch(source: "rest", path: "/search")
  node(id: ID!): Node @fetch(source: "rest", path: "/nodes/{args.id}")
  post: Post @fetch(source: "rest", path: "/post")
}
union SearchResult = Secret | Post
interface Node { id: ID! }
type Post implements Node @key(fields: "id") { id: ID! title: String related: Node }
type Secret implements Node @key(fields: "id") @lookup(key: "id", source: "rest", path: "/secrets/{key.id}") @auth(scopes: ["admin"]) {
  id: ID!
  payload: String
  details: String @fetch(source: "rest", path: "/secrets/{parent.id}/details")
}
`;

describe('@auth on a type, on every path to it', () => {
  let key: TestKey;
  let dir: string;
  let rest: CountingUpstream;
  let gw: TestGateway;
  let reader: Record<string, string>;
  let admin: Record<string, string>;
  const secretCalls = () => rest.requests.filter((r) => r.path.startsWith('/secrets')).length;

  before(async () => {
    key = await makeKey('ES256', 'ec-1');
    dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-auth-paths-'));
    const jwks = path.join(dir, 'jwks.json');
    await writeFile(jwks, JSON.stringify(keySet([key])));
    const secret = { __typename: 'Secret', id: '2', payload: PAYLOAD };
    rest = await startUpstream({
      'GET /search': () => ({ json: [secret, { __typename: 'Post', id: '1', title: 'hello' }] }),
      'GET /nodes/:id': () => ({ json: secret }),
      'GET /post': () => ({ json: { id: '1', title: 'hello', related: { __typename: 'Secret', id: '2' } } }),
      'GET /secrets/:id': ({ params }) => ({ json: { id: params.id, payload: PAYLOAD } }),
      'GET /secrets/:id/details': () => ({ json: 'more secrets' }),
    });
    const opts = { issuer: ISSUER, audience: AUDIENCE };
    reader = { authorization: `Bearer ${await mintToken(key, { sub: 'mallory', scope: 'read' }, opts)}` };
    admin = { authorization: `Bearer ${await mintToken(key, { sub: 'root', scope: 'admin' }, opts)}` };
    gw = await startTestGateway({
      sources: { rest: { url: rest.url } },
      schemas: { 'schema.graphqls': SCHEMA },
      extraToml: `[auth]\njwks = ${JSON.stringify(jwks)}\nissuer = "${ISSUER}"\naudience = "${AUDIENCE}"\n`,
    });
  });
  after(async () => {
    await gw?.close();
    await rest?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const codes = (res: { body: { errors?: ReadonlyArray<{ extensions?: Record<string, unknown> }> } }) =>
    new Set(res.body.errors?.map((e) => e.extensions?.code));

  it('_entities: an anonymous or unscoped caller gets the refusal at its index, and the secret is never looked up', async () => {
    const query = '{ _entities(representations: [{__typename: "Secret", id: "2"}]) { ... on Secret { payload details } } }';
    rest.reset();
    const anonymous = await gw.query(query);
    assert.doesNotMatch(anonymous.text, new RegExp(PAYLOAD));
    assert.deepEqual(anonymous.body.data, { _entities: [null] });
    assert.deepEqual(
      anonymous.body.errors?.map((e) => [e.path, e.extensions?.code]),
      [[['_entities', 0], 'UNAUTHENTICATED']],
    );
    const unscoped = await gw.query(query, undefined, reader);
    assert.deepEqual(unscoped.body.data, { _entities: [null] });
    assert.deepEqual([...codes(unscoped)], ['FORBIDDEN']);
    assert.equal(rest.count(), 0);
    const allowed = await gw.query(query, undefined, admin);
    assert.deepEqual(allowed.body.data, { _entities: [{ payload: PAYLOAD, details: 'more secrets' }] });
  });

  it('union members and fragments on them: the fields of the guarded member are refused, nothing below is fetched', async () => {
    for (const query of [
      '{ search { __typename ... on Secret { payload details } ... on Post { title } } }',
      '{ search { ...S ... on Post { title } } } fragment S on Secret { payload details }',
    ]) {
      rest.reset();
      const res = await gw.query(query, undefined, reader);
      assert.doesNotMatch(res.text, new RegExp(PAYLOAD), query);
      const [secret, post] = (res.body.data as { search: Array<Record<string, unknown>> }).search;
      assert.equal(secret?.payload ?? null, null);
      assert.equal(secret?.details ?? null, null);
      assert.equal(post?.title, 'hello');
      assert.deepEqual([...codes(res)], ['FORBIDDEN']);
      assert.deepEqual(
        rest.requests.map((r) => r.url),
        ['/search'],
      );
    }
  });

  it('interface fields: a Secret behind Node is refused, even its id', async () => {
    rest.reset();
    const res = await gw.query('{ node(id: "2") { id ... on Secret { payload } } }', undefined, reader);
    assert.doesNotMatch(res.text, new RegExp(PAYLOAD));
    assert.deepEqual(res.body.data, { node: null });
    assert.deepEqual([...codes(res)], ['FORBIDDEN']);
    const allowed = await gw.query('{ node(id: "2") { id ... on Secret { payload } } }', undefined, admin);
    assert.deepEqual(allowed.body.data, { node: { id: '2', payload: PAYLOAD } });
  });

  it('@lookup completion: a partial Secret is not completed for a caller who may not read it', async () => {
    rest.reset();
    const res = await gw.query('{ post { title related { ... on Secret { payload } } } }', undefined, reader);
    assert.doesNotMatch(res.text, new RegExp(PAYLOAD));
    assert.deepEqual(res.body.data, { post: { title: 'hello', related: { payload: null } } });
    assert.deepEqual([...codes(res)], ['FORBIDDEN']);
    assert.equal(secretCalls(), 0);
    const allowed = await gw.query('{ post { title related { ... on Secret { payload } } } }', undefined, admin);
    assert.deepEqual(allowed.body.data, { post: { title: 'hello', related: { payload: PAYLOAD } } });
    assert.equal(secretCalls(), 1);
  });
});
