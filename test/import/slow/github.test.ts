/**
 * `gqlgw import openapi` on GitHub's whole REST description (@octokit/openapi 23.0.2, 1,200
 * operations, 13 MB; fixtures/github-rest.json.gz): it imports and checks in under 60 s, and a
 * mock built from its examples answers real queries through the imported schema on the real
 * gateway. About 30 s on a loaded 2-core machine, so it runs with `npm run test:github`, not in
 * `npm test` (which keeps the smaller real descriptions of ../openapi-fixtures.test.ts).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import { assertAnswer, FIXTURES, firstServer, serve } from '../support.js';

describe("GitHub's REST description (@octokit/openapi)", () => {
  test('imports and checks in under 60 s; repositories and issues answer as the examples say', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-github-'));
    const spec = path.join(dir, 'github.json');
    await writeFile(spec, gunzipSync(await readFile(path.join(FIXTURES, 'github-rest.json.gz'))));
    const started = Date.now();
    const served = await serve(spec, 'github');
    try {
      const seconds = (Date.now() - started) / 1000;
      assert.ok(seconds < 60, `import, mock, gateway start and check took ${seconds} s`);
      assert.equal(served.imported.url.href, `${firstServer(spec)}/`);
      assert.match(
        served.imported.run.stderr,
        /^warning: .*github\.json#\/paths\/~1users~1\{username\}\/get\/responses\/200\/content\/application~1json\/schema\/oneOf\/1: the discriminator "user_view_type" is not required in PublicUser/m,
      );
      assert.match(
        served.imported.files['schema/github.types.graphqls']!,
        /^union UsersGetByUsernameResponse @from\(key: "user_view_type", types: \["public=PublicUser", "private=PrivateUser"\]\) = PrivateUser \| PublicUser$/m,
      );
      await assertAnswer(served, {
        field: 'reposGet',
        args: 'owner: "octocat", repo: "Hello-World"',
        selection: {
          // Int64 fields are strings of digits (docs/reference.md "Exact integers").
          id: (v: unknown) => String(v),
          name: true,
          full_name: true,
          private: true,
          owner: { login: true, id: (v: unknown) => String(v) },
          license: { key: true, name: true },
        },
        route: 'GET /repos/:owner/:repo',
        sent: ['GET /repos/octocat/Hello-World'],
      });
      await assertAnswer(served, {
        field: 'issuesListForRepo',
        args: 'owner: "octocat", repo: "Hello-World", state: OPEN',
        selection: { number: true, title: true, state: true, user: { login: true }, labels: true },
        route: 'GET /repos/:owner/:repo/issues',
        sent: ['GET /repos/octocat/Hello-World/issues?state=open'],
      });
    } finally {
      await served.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
