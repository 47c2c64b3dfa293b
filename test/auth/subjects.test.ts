/**
 * What a verified token decides inside a query (docs/observability.md), with
 * real tokens and counting upstreams: `@auth(scopes:)` on fields and on types refuses with
 * UNAUTHENTICATED / FORBIDDEN at the field's path and fetches nothing for it; a cached field reading
 * `{auth.sub}` keeps each subject's entry apart in L2, in memcached and under coalescing, as does a
 * source header reading a claim; the fallback token of a header both forwarded and fixed; and no
 * token or claim in errors, logs or metric labels.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { keySet, makeKey, mintToken, type TestKey } from '../support/identity.js';
import { listItems, startMemcached, type RunningMemcached } from '../support/memcached.js';
import { parsePromText, sumOf } from '../support/prom-text.js';
import { until } from '../support/wait.js';
import { Gate } from '../support/gate.js';

const ISSUER = 'https://id.test.invalid';
const AUDIENCE = 'gqlgw';
/** A claim value that must never leave the request it came with (errors, logs, metrics). */
const SECRET_EMAIL = 'alice-private-mailbox@mail.test.invalid';

const SCHEMA = `
type Query {
  me: User @fetch(source: "users", path: "/users/{auth.sub}") @cache(ttl: 60)
  profile: Profile @fetch(source: "profiles", path: "/profile") @cache(ttl: 60)
  secret: Secret @fetch(source: "users", path: "/secret") @auth(scopes: ["secrets:read"])
  stats: Stats @fetch(source: "users", path: "/stats")
  allStats: [Stats] @fetch(source: "users", path: "/stats/all")
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}")
  partner: Partner @fetch(source: "partners", path: "/partner") @cache(ttl: 60)
}
type User {
  id: ID!
  name: String
  email: String @auth(scopes: ["email"])
  orders: [Order] @fetch(source: "users", path: "/users/{parent.id}/orders")
}
type Order { id: ID! }
type Secret { value: String }
type Stats @auth(scopes: ["admin"]) { count: Int }
type Profile { name: String }
type Partner { token: String }
`;

describe('@auth, {auth.*} and per-subject cache entries', () => {
  let key: TestKey;
  let dir: string;
  let jwksFile: string;
  let users: CountingUpstream;
  let profiles: CountingUpstream;
  let partners: CountingUpstream;
  let memcached: RunningMemcached;
  let gw: TestGateway;
  const gate = new Gate();
  const tokens = new Map<string, string>();

  const token = async (sub: string, scope = '', extra: Record<string, unknown> = {}): Promise<string> => {
    const k = `${sub}|${scope}|${JSON.stringify(extra)}`;
    let t = tokens.get(k);
    if (!t) {
      t = await mintToken(key, { sub, scope, ...extra }, { issuer: ISSUER, audience: AUDIENCE });
      tokens.set(k, t);
    }
    return t;
  };
  const as = async (sub: string, scope = '') => ({ authorization: `Bearer ${await token(sub, scope)}` });
  const authToml = () => `[auth]\njwks = ${JSON.stringify(jwksFile)}\nissuer = "${ISSUER}"\naudience = "${AUDIENCE}"\n`;
  const sources = () => ({
    users: { url: users.url },
    profiles: { url: profiles.url, extra: 'headers = { "x-user" = "user-{auth.sub}" }' },
    partners: { url: partners.url, forwardHeaders: ['x-partner-token'], extra: 'headers = { "x-partner-token" = "gateway-own" }' },
  });

  before(async () => {
    key = await makeKey('ES256', 'ec-1');
    dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-subjects-'));
    jwksFile = path.join(dir, 'jwks.json');
    await writeFile(jwksFile, JSON.stringify(keySet([key])));
    users = await startUpstream({
      'GET /users/:id': async ({ params }) => {
        await gate.passed();
        return { json: { id: params.id, name: `name of ${params.id}`, email: `${params.id}@mail.test.invalid` } };
      },
      'GET /users/:id/orders': ({ params }) => ({ json: [{ id: `${params.id}-o1` }] }),
      'GET /secret': () => ({ json: { value: 's3cr3t' } }),
      'GET /stats': () => ({ json: { count: 3 } }),
      'GET /stats/all': () => ({ json: [{ count: 1 }, { count: 2 }] }),
    });
    profiles = await startUpstream({ 'GET /profile': ({ headers }) => ({ json: { name: `profile of ${String(headers['x-user'])}` } }) });
    partners = await startUpstream({ 'GET /partner': ({ headers }) => ({ json: { token: String(headers['x-partner-token']) } }) });
    memcached = await startMemcached();
    gw = await startTestGateway({ sources: sources(), schemas: { 'schema.graphqls': SCHEMA }, extraToml: authToml() });
  });
  after(async () => {
    gate.open();
    await gw?.close();
    await Promise.all([users?.close(), profiles?.close(), partners?.close(), memcached?.stop()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('@auth(scopes:) on a field: UNAUTHENTICATED without a token, FORBIDDEN without the scope, and nothing fetched', async () => {
    users.reset();
    const anonymous = await gw.query('{ secret { value } user(id: 1) { name } }');
    assert.deepEqual(anonymous.body.data, { secret: null, user: { name: 'name of 1' } });
    assert.deepEqual(
      anonymous.body.errors?.map((e) => [e.path, e.extensions?.code]),
      [[['secret'], 'UNAUTHENTICATED']],
    );
    const noScope = await gw.query('{ secret { value } }', undefined, await as('alice', 'read'));
    assert.deepEqual(noScope.body.data, { secret: null });
    assert.equal(noScope.body.errors?.[0]?.extensions?.code, 'FORBIDDEN');
    assert.match(noScope.body.errors![0]!.message, /secrets:read/);
    assert.equal(users.count('GET /secret'), 0, 'a refused field sends nothing');
    const granted = await gw.query('{ secret { value } }', undefined, await as('alice', 'read secrets:read'));
    assert.deepEqual(granted.body.data, { secret: { value: 's3cr3t' } });
    assert.equal(granted.body.errors, undefined);
    assert.equal(users.count('GET /secret'), 1);
    // `scp` as a list grants as `scope` does.
    const scp = await mintToken(key, { sub: 'carol', scp: ['secrets:read'] }, { issuer: ISSUER, audience: AUDIENCE });
    assert.deepEqual((await gw.query('{ secret { value } }', undefined, { authorization: `Bearer ${scp}` })).body.data, {
      secret: { value: 's3cr3t' },
    });
  });

  it('@auth on a plain field below a fetched one: null with FORBIDDEN at its path, its siblings served', async () => {
    const res = await gw.query('{ user(id: 5) { id name email } }', undefined, await as('alice'));
    assert.deepEqual(res.body.data, { user: { id: '5', name: 'name of 5', email: null } });
    assert.deepEqual(
      res.body.errors?.map((e) => [e.path, e.extensions?.code]),
      [[['user', 'email'], 'FORBIDDEN']],
    );
    const withScope = await gw.query('{ user(id: 5) { email } }', undefined, await as('alice', 'email'));
    assert.deepEqual(withScope.body.data, { user: { email: '5@mail.test.invalid' } });
    assert.equal(withScope.body.errors, undefined);
  });

  it('@auth on a type guards every field of that type or a list of it, and nothing below them is fetched', async () => {
    users.reset();
    const res = await gw.query('{ stats { count } allStats { count } }', undefined, await as('alice', 'read'));
    assert.deepEqual(res.body.data, { stats: null, allStats: null });
    assert.deepEqual(
      res.body.errors?.map((e) => [e.path, e.extensions?.code]),
      [
        [['stats'], 'FORBIDDEN'],
        [['allStats'], 'FORBIDDEN'],
      ],
    );
    assert.equal(users.count(), 0);
    const admin = await gw.query('{ stats { count } allStats { count } }', undefined, await as('alice', 'admin'));
    assert.deepEqual(admin.body.data, { stats: { count: 3 }, allStats: [{ count: 1 }, { count: 2 }] });
    assert.equal(admin.body.errors, undefined);
  });

  it('two subjects with a cached {auth.sub} field each get their own entry from L2', async () => {
    users.reset();
    const alice = await gw.query('{ me { id name } }', undefined, await as('alice'));
    const bob = await gw.query('{ me { id name } }', undefined, await as('bob'));
    assert.deepEqual(alice.body.data, { me: { id: 'alice', name: 'name of alice' } });
    assert.deepEqual(bob.body.data, { me: { id: 'bob', name: 'name of bob' } });
    const aliceAgain = await gw.query('{ me { id name } }', undefined, await as('alice', 'other scopes, same subject'));
    assert.deepEqual(aliceAgain.body.data, { me: { id: 'alice', name: 'name of alice' } });
    assert.equal(debugCounts(aliceAgain).subrequests, 0, 'served from L2');
    assert.deepEqual(users.requests.map((r) => r.url).sort(), ['/users/alice', '/users/bob']);
  });

  it('... and from memcached, across two gateways without L2', async () => {
    const extra = `${authToml()}\n[cache.memcached]\nservers = ["${memcached.address}"]\nkey_prefix = "subjects:"`;
    const one = await startTestGateway({ sources: sources(), schemas: { 'schema.graphqls': SCHEMA }, l2MaxEntries: 0, extraToml: extra });
    const two = await startTestGateway({ sources: sources(), schemas: { 'schema.graphqls': SCHEMA }, l2MaxEntries: 0, extraToml: extra });
    try {
      users.reset();
      assert.deepEqual((await one.query('{ me { name } }', undefined, await as('dave'))).body.data, { me: { name: 'name of dave' } });
      const erin = await two.query('{ me { name } }', undefined, await as('erin'));
      assert.deepEqual(erin.body.data, { me: { name: 'name of erin' } });
      assert.equal(debugCounts(erin).subrequests, 1, "dave's entry is not erin's");
      const dave = await two.query('{ me { name } }', undefined, await as('dave'));
      assert.deepEqual(dave.body.data, { me: { name: 'name of dave' } });
      assert.equal(debugCounts(dave).subrequests, 0, "dave's entry came from memcached");
      const keys = (await listItems(memcached.address)).map((i) => i.key).filter((k) => k.startsWith('subjects:'));
      assert.deepEqual(keys.sort(), ['subjects:users:/users/dave', 'subjects:users:/users/erin']);
      assert.deepEqual(users.requests.map((r) => r.url).sort(), ['/users/dave', '/users/erin']);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('... and under coalescing: concurrent subjects never share a call, the same subject does', async () => {
    const fresh = await startTestGateway({ sources: sources(), schemas: { 'schema.graphqls': SCHEMA }, extraToml: authToml() });
    try {
      users.reset();
      gate.close();
      const coalesced = async () =>
        sumOf(parsePromText((await fresh.get('/metrics')).text), 'gqlgw_coalesced_total', { coordinate: 'Query.me' });
      const frank1 = fresh.query('{ me { name } }', undefined, await as('frank'));
      const grace = fresh.query('{ me { name } }', undefined, await as('grace'));
      await until(() => users.count('GET /users/:id') === 2, 'both subjects reached the source');
      const frank2 = fresh.query('{ me { name } }', undefined, await as('frank', 'second request'));
      let joined = 0;
      for (let i = 0; i < 200 && joined < 1; i++) joined = await coalesced();
      assert.equal(joined, 1, "frank's second request waits for frank's call");
      gate.open();
      const [f1, g, f2] = await Promise.all([frank1, grace, frank2]);
      assert.deepEqual(f1.body.data, { me: { name: 'name of frank' } });
      assert.deepEqual(g.body.data, { me: { name: 'name of grace' } });
      assert.deepEqual(f2.body.data, { me: { name: 'name of frank' } });
      assert.deepEqual(users.requests.map((r) => r.url).sort(), ['/users/frank', '/users/grace']);
    } finally {
      gate.open();
      await fresh.close();
    }
  });

  it('a source header reading {auth.sub} is sent per subject and partitions the cache', async () => {
    profiles.reset();
    const a = await gw.query('{ profile { name } }', undefined, await as('alice'));
    const b = await gw.query('{ profile { name } }', undefined, await as('bob'));
    const a2 = await gw.query('{ profile { name } }', undefined, await as('alice'));
    assert.deepEqual(a.body.data, { profile: { name: 'profile of user-alice' } });
    assert.deepEqual(b.body.data, { profile: { name: 'profile of user-bob' } });
    assert.deepEqual(a2.body.data, { profile: { name: 'profile of user-alice' } });
    assert.equal(debugCounts(a2).subrequests, 0);
    assert.deepEqual(
      profiles.requests.map((r) => r.headers['x-user']),
      ['user-alice', 'user-bob'],
    );
    const anonymous = await gw.query('{ profile { name } }');
    assert.equal(anonymous.body.errors?.[0]?.extensions?.code, 'UNAUTHENTICATED', 'a field reading a claim needs a token');
    assert.equal(profiles.count(), 2);
  });

  it("a header both forwarded and fixed sends the caller's value, else the gateway's, each cached apart", async () => {
    partners.reset();
    const own = await gw.query('{ partner { token } }', undefined, { 'x-partner-token': 'callers-own' });
    const fallback = await gw.query('{ partner { token } }');
    const fallbackAgain = await gw.query('{ partner { token } }');
    const ownAgain = await gw.query('{ partner { token } }', undefined, { 'x-partner-token': 'callers-own' });
    assert.deepEqual(own.body.data, { partner: { token: 'callers-own' } });
    assert.deepEqual(fallback.body.data, { partner: { token: 'gateway-own' } });
    assert.deepEqual(fallbackAgain.body.data, { partner: { token: 'gateway-own' } });
    assert.deepEqual(ownAgain.body.data, { partner: { token: 'callers-own' } });
    assert.deepEqual(
      partners.requests.map((r) => r.headers['x-partner-token']),
      ['callers-own', 'gateway-own'],
    );
  });

  it('no token or claim value in errors, logs or metric labels', async () => {
    const secretToken = await token('alice', 'read', { email: SECRET_EMAIL });
    const written: string[] = [];
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    const capture = (chunk: unknown): boolean => {
      written.push(String(chunk));
      return true;
    };
    process.stdout.write = capture as typeof process.stdout.write;
    process.stderr.write = capture as typeof process.stderr.write;
    let texts: string[];
    try {
      const refused = await gw.query('{ secret { value } stats { count } user(id: 1) { email } }', undefined, {
        authorization: `Bearer ${secretToken}`,
      });
      const expired = await mintToken(key, { sub: 'alice', email: SECRET_EMAIL }, { issuer: ISSUER, audience: AUDIENCE, expiresInS: -600 });
      const invalid = await gw.query('{ me { name } }', undefined, { authorization: `Bearer ${expired}` });
      const metrics = await gw.get('/metrics');
      texts = [refused.text, invalid.text, metrics.text, ...written];
      assert.equal(invalid.status, 401);
      assert.equal(refused.body.errors?.length, 3);
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
    }
    for (const text of texts) {
      assert.ok(!text.includes(secretToken), 'no token');
      assert.ok(!text.includes(SECRET_EMAIL), 'no claim value');
      assert.ok(!text.includes('eyJ'), 'nothing that looks like a JWT');
    }
  });
});

describe('gqlgw check and @auth / {auth.*}', () => {
  it('refuses @auth and {auth.*} without [auth], and suggests the claim meant', async () => {
    const { parseConfig } = await import('../../gateway/config/load.js');
    const { buildBlueprint } = await import('../../gateway/blueprint/build.js');
    const dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-authcheck-'));
    try {
      await writeFile(
        path.join(dir, 's.graphqls'),
        [
          'type Query {',
          '  me: U @fetch(source: "u", path: "/users/{auth.sub}")',
          '  x: U @auth(scopes: ["a"]) @fetch(source: "u", path: "/x")',
          '  y: U @fetch(source: "u", path: "/y/{auth.sbu}")',
          '}',
          'type U @auth { id: ID }',
        ].join('\n'),
      );
      const base = `[gateway]\nschema = ["s.graphqls"]\n[sources.u]\nurl = "http://127.0.0.1:1"\n`;
      const without = parseConfig(base, path.join(dir, 'gateway.toml'));
      assert.throws(
        () => buildBlueprint(without),
        (e: Error) => {
          assert.match(e.message, /s\.graphqls:2:\d+: @fetch on Query\.me: \{auth\.sub\} needs an \[auth\] table/);
          assert.match(e.message, /s\.graphqls:3:\d+: @auth on Query\.x needs an \[auth\] table/);
          assert.match(e.message, /s\.graphqls:6:\d+: @auth on U needs an \[auth\] table/);
          return true;
        },
      );
      await writeFile(path.join(dir, 'jwks.json'), JSON.stringify({ keys: [] }));
      const withAuth = parseConfig(`${base}[auth]\njwks = "jwks.json"\nissuer = "i"\naudience = "a"\n`, path.join(dir, 'gateway.toml'));
      assert.throws(
        () => buildBlueprint(withAuth),
        (e: Error) => {
          assert.match(
            e.message,
            /s\.graphqls:4:\d+: @fetch on Query\.y: \{auth\.sbu\} names no known claim; did you mean "\{auth\.sub\}"\? \(a claim that is not standard is listed in \[auth\] claims = \["sbu"\]\)/,
          );
          assert.doesNotMatch(e.message, /Query\.me|Query\.x|on U /, 'with [auth], the other uses are fine');
          return true;
        },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
