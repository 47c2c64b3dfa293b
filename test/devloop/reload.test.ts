/**
 * Reload (issue 14): `gqlgw serve --watch` through three edits of a schema file (good, broken,
 * fixed), a new schema file and a save by rename; SIGHUP without --watch; a request in flight
 * during a reload finishing on its old version; caches kept for unchanged fetches. The real CLI
 * is spawned and queried over HTTP; the tests wait for the printed reload lines, never a fixed time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startUpstream } from '../support/upstream.js';
import { writeGatewayFiles, type GatewayFiles } from '../support/gateway.js';
import { startGateway } from '../../gateway/server/start.js';
import { spawnCli, type RunningCli } from '../support/cli.js';

const V1 = `type Query {
  post: Post @fetch(source: "api", path: "/v1/post")
  slow: Post @fetch(source: "api", path: "/slow")
}
type Post { title: String }
`;
/** The field is renamed: a query for `title` only works on the old version. */
const V2 = V1.replace('/v1/post', '/v2/post').replace('type Post { title: String }', 'type Post { heading: String @from(key: "title") }');
const BROKEN = V2.replace('@fetch(source: "api", path: "/v2/post")', '@fetc(source: "api", path: "/v2/post")');
const V3 = V2.replace('/v2/post', '/v3/post');
const EXTRA = `extend type Query { extra: String @fetch(source: "api", path: "/extra") }\n`;

async function query(url: string, text: string): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: text }) });
  return res.json();
}

function urlOf(line: string): string {
  return line.replace('gqlgw listening on ', '').trim();
}

test('serve --watch and SIGHUP reload config and schema; a request in flight finishes on its version', async (t) => {
  let release: () => void = () => undefined;
  let arrived: () => void = () => undefined;
  const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
  const api = await startUpstream({
    'GET /v1/post': () => ({ json: { title: 'one' } }),
    'GET /v2/post': () => ({ json: { title: 'two' } }),
    'GET /v3/post': () => ({ json: { title: 'three' } }),
    'GET /extra': () => ({ json: 'extra' }),
    'GET /slow': () => {
      arrived();
      return new Promise((resolve) => (release = () => resolve({ json: { title: 'slow' } })));
    },
  });
  const made: GatewayFiles[] = [];
  const running: RunningCli[] = [];
  try {
    const files = () => writeGatewayFiles({ schemas: { 'schema/s.graphqls': V1 }, sources: { api: { url: api.url } }, debugMode: false });
    const [watched, hup] = await Promise.all([files(), files()]);
    made.push(watched, hup);
    // Both configs list their schema as a glob, so that a new file counts.
    for (const f of made)
      await writeFile(
        f.configPath,
        (await readFile(f.configPath, 'utf8')).replace('schema = ["schema/s.graphqls"]', 'schema = ["schema/*.graphqls"]'),
      );
    const watch = spawnCli(['serve', '--watch', '--port', '0'], watched.dir);
    const plain = spawnCli(['serve'], hup.dir); // the config's port 0: its change is reported
    running.push(watch, plain);
    const [watchUrl, plainUrl] = (
      await Promise.all([watch.waitFor('stdout', /^gqlgw listening on /), plain.waitFor('stdout', /^gqlgw listening on /)])
    ).map(urlOf) as [string, string];
    const schemaFile = path.join(watched.dir, 'schema', 's.graphqls');

    await t.test('--watch: a good edit is served after the reload line; the request in flight ends on the old version', async () => {
      assert.deepEqual(await query(watchUrl, '{ post { title } }'), { data: { post: { title: 'one' } } });
      const inFlight = query(watchUrl, '{ slow { title } }');
      await slowArrived;
      const mark = watch.stdout().length;
      await writeFile(schemaFile, V2);
      assert.match(await watch.waitFor('stdout', /^gqlgw reloaded: /, mark), /^gqlgw reloaded: 3 fields, 1 sources$/);
      assert.deepEqual(await query(watchUrl, '{ post { heading } }'), { data: { post: { heading: 'two' } } });
      release();
      assert.deepEqual(await inFlight, { data: { slow: { title: 'slow' } } }, 'validated and shaped by the version it started on');
    });

    await t.test('--watch: a broken edit saved by rename prints its diagnostics; the last good version keeps serving', async () => {
      const mark = watch.stderr().length;
      const temporary = path.join(watched.dir, 'schema', '.s.graphqls.swp');
      await writeFile(temporary, BROKEN);
      await rename(temporary, schemaFile);
      await watch.waitFor('stderr', /reload failed, still serving the last good version$/, mark);
      assert.match(
        watch.stderr().slice(mark),
        /^schema\/s\.graphqls:2:14: Unknown directive "@fetc"\. Did you mean "@fetch"\?\n1 problem in schema\/s\.graphqls; reload failed/,
      );
      assert.deepEqual(await query(watchUrl, '{ post { heading } }'), { data: { post: { heading: 'two' } } });
    });

    await t.test('--watch: the fixed edit and a new file matched by the glob are served', async () => {
      const mark = watch.stdout().length;
      await writeFile(path.join(watched.dir, 'schema', 'extra.graphqls'), EXTRA);
      await writeFile(schemaFile, V3);
      await watch.waitFor('stdout', /^gqlgw reloaded: 4 fields, 1 sources$/, mark);
      assert.deepEqual(await query(watchUrl, '{ post { heading } extra }'), { data: { post: { heading: 'three' }, extra: 'extra' } });
    });

    await t.test('SIGHUP without --watch reloads; a changed port is reported as needing a restart', async () => {
      await writeFile(path.join(hup.dir, 'schema', 's.graphqls'), V2);
      await writeFile(hup.configPath, (await readFile(hup.configPath, 'utf8')).replace('port = 0', 'port = 1'));
      assert.deepEqual(await query(plainUrl, '{ post { title } }'), { data: { post: { title: 'one' } } }, 'no reload before the signal');
      plain.child.kill('SIGHUP');
      await plain.waitFor('stdout', /^gqlgw reloaded: 3 fields, 1 sources$/);
      assert.match(
        plain.stderr(),
        new RegExp(
          `gqlgw: \\[gateway\\] port changed from 0 to 1: restart gqlgw to listen there \\(still serving ${plainUrl.replace(/[.]/g, '\\.')}\\)`,
        ),
      );
      assert.deepEqual(await query(plainUrl, '{ post { heading } }'), { data: { post: { heading: 'two' } } });
      assert.equal(plain.stdout().match(/gqlgw reloaded/g)?.length, 1, 'one reload: the signal, no watcher');
    });
  } finally {
    release();
    await Promise.all(running.map((r) => r.stop()));
    await api.close();
    await Promise.all(made.map((f) => f.cleanup()));
  }
});

test('reload keeps L2 entries of unchanged fetches and drops those of a changed fetch', async () => {
  const api = await startUpstream({
    'GET /a': () => ({ json: 'a' }),
    'GET /b': () => ({ json: 'b' }),
    'GET /b2': () => ({ json: 'b2' }),
  });
  const sdl = (b: string) =>
    `type Query {\n  a: String @fetch(source: "api", path: "/a") @cache(ttl: 300)\n  b: String @fetch(source: "api", path: "${b}") @cache(ttl: 300)\n}\n`;
  const files = await writeGatewayFiles({ schemas: { 's.graphqls': sdl('/b') }, sources: { api: { url: api.url } }, debugMode: false });
  const gateway = await startGateway({ configPath: files.configPath, port: 0 });
  try {
    const ask = () => query(gateway.url, '{ a b }');
    assert.deepEqual(await ask(), { data: { a: 'a', b: 'b' } });
    assert.deepEqual(await ask(), { data: { a: 'a', b: 'b' } });
    assert.deepEqual([api.count('GET /a'), api.count('GET /b')], [1, 1], 'the second query came from L2');

    assert.deepEqual(gateway.reload({ ifChanged: true }), { status: 'unchanged' }, 'nothing changed on disk');
    await writeFile(path.join(files.dir, 's.graphqls'), sdl('/b2'));
    const report = gateway.reload({ ifChanged: true });
    assert.equal(report.status, 'reloaded');
    assert.deepEqual(report.status === 'reloaded' && report.changedFetches, ['Query.b']);
    assert.deepEqual(await ask(), { data: { a: 'a', b: 'b2' } });
    assert.deepEqual([api.count('GET /a'), api.count('GET /b2')], [1, 1], 'Query.a still from L2; Query.b fetched at its new path');

    await writeFile(path.join(files.dir, 's.graphqls'), sdl('/b'));
    gateway.reload();
    assert.deepEqual(await ask(), { data: { a: 'a', b: 'b' } });
    assert.deepEqual([api.count('GET /a'), api.count('GET /b')], [1, 2], "Query.b's old entry was dropped by the first reload");
  } finally {
    await gateway.close();
    await api.close();
    await files.cleanup();
  }
});
