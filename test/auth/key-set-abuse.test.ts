/**
 * A key-set URL that misbehaves cannot be turned against the gateway (docs/hardening.md): a malformed
 * token never causes a fetch; after a failed fetch (a 500, an HTML page) no fetch is made for 10 s
 * however many tokens arrive; a key set is read up to 1 MB and a larger one is refused while it
 * streams. The identity provider is a real local server that counts fetches and bytes written.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { keySet, makeKey, mintToken, type TestKey } from '../support/identity.js';
import { listenLocal } from '../support/listen.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const ISSUER = 'https://id.test.invalid';
const AUDIENCE = 'gqlgw';
const SCHEMA = 'type Query { me: User @fetch(source: "users", path: "/users/{auth.sub}") }\ntype User { id: ID! }\n';
const ME = '{ me { id } }';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

type Mode = 'error' | 'html' | 'huge' | 'ok';

describe('[auth] a misbehaving key-set URL', () => {
  let mode: Mode = 'error';
  let fetches = 0;
  let bytesWritten = 0;
  let key: TestKey;
  let idp: http.Server;
  let users: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    key = await makeKey('RS256', 'k1');
    idp = http.createServer((_req, res) => {
      fetches++;
      if (mode === 'error') return void res.writeHead(500).end('oops');
      if (mode === 'html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
      if (mode === 'ok') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(keySet([key])));
      // 'huge': 8 MB of a JSON key set, streamed without a Content-Length.
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let left = 128;
      const pump = (): void => {
        while (left > 0) {
          left--;
          bytesWritten += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => undefined);
      pump();
    });
    const port = await listenLocal(idp);
    users = await startUpstream({ 'GET /users/:id': ({ params }) => ({ json: { id: params.id } }) });
    gw = await startTestGateway({
      sources: { users: { url: users.url } },
      schemas: { 's.graphqls': SCHEMA },
      extraToml: `[auth]\njwks = "http://127.0.0.1:${port}/jwks.json"\nissuer = "${ISSUER}"\naudience = "${AUDIENCE}"\n`,
    });
  });
  after(async () => {
    await gw?.close();
    await users?.close();
    idp?.closeAllConnections();
    await new Promise((r) => idp?.close(r));
  });

  it('never fetches for a malformed token, and fetches once per 10 s while the key set fails', async () => {
    for (const junk of ['a.b.c', 'x', 'eyJhbGciOiJub25lIn0.e30.', `${'e'.repeat(40)}.${'f'.repeat(40)}.g`]) {
      const res = await gw.query(ME, undefined, bearer(junk));
      assert.equal(res.status, 401, junk);
      assert.match(res.body.errors![0]!.message, /not a valid JWT|algorithm/);
    }
    assert.equal(fetches, 0, 'a malformed token caused a key-set fetch');

    const token = await mintToken(key, { sub: 'a' }, { issuer: ISSUER, audience: AUDIENCE });
    const answers = await Promise.all(Array.from({ length: 30 }, () => gw.query(ME, undefined, bearer(token))));
    for (const res of answers) {
      assert.equal(res.status, 401);
      assert.match(res.body.errors![0]!.message, /cannot be verified now/);
    }
    mode = 'html';
    for (let i = 0; i < 10; i++) assert.equal((await gw.query(ME, undefined, bearer(token))).status, 401);
    assert.equal(fetches, 1, '40 well-formed tokens during a failure: one fetch');
    assert.equal(users.count(), 0);
  });

  it('refuses a key set over 1 MB while it streams', async () => {
    const gw2 = await startTestGateway({
      sources: { users: { url: users.url } },
      schemas: { 's.graphqls': SCHEMA },
      extraToml: `[auth]\njwks = "http://127.0.0.1:${(idp.address() as { port: number }).port}/jwks.json"\nissuer = "${ISSUER}"\naudience = "${AUDIENCE}"\n`,
    });
    try {
      mode = 'huge';
      const fetchesBefore = fetches;
      const token = await mintToken(key, { sub: 'b' }, { issuer: ISSUER, audience: AUDIENCE });
      const res = await gw2.query(ME, undefined, bearer(token));
      assert.equal(res.status, 401);
      assert.match(res.body.errors![0]!.message, /larger than 1048576 bytes/);
      assert.equal(fetches, fetchesBefore + 1);
      assert.ok(bytesWritten < 8 * 1024 * 1024, `the whole 8 MB was read (${bytesWritten} bytes written)`);
    } finally {
      await gw2.close();
    }
  });
});
