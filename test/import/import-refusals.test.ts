/**
 * What `gqlgw import openapi` refuses to read or write (docs/openapi.md, issue 46): a `$ref` to a
 * URL, an absolute path or a file out of the document's folder (a local secret must never become a
 * field description); a YAML document whose aliases expand past 10 MB (a billion-laughs document of
 * 638 bytes is refused in well under a second); a path with a dot-segment. Each is an ImportError
 * naming the `$ref` or path at its pointer, and the real CLI exits 1 writing nothing.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { importOpenApi } from '../../gateway/import/import-openapi.js';
import { ImportError } from '../../gateway/import/problems.js';
import { runCli } from '../support/cli.js';

const SECRET = 'the-launch-code-is-0000';
let root: string;
let docs: string;
let secretFile: string;

const doc = (paths: object, extra: object = {}) =>
  JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, servers: [{ url: 'http://127.0.0.1:9/api' }], paths, ...extra });
const petsWith = (schema: object) => ({
  '/pets': { get: { operationId: 'pets', responses: { 200: { description: 'ok', content: { 'application/json': { schema } } } } } },
});

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'gqlgw-import-refusals-'));
  docs = path.join(root, 'api');
  await mkdir(path.join(docs, 'schemas'), { recursive: true });
  await mkdir(path.join(root, 'private'));
  secretFile = path.join(root, 'private', 'secret.json');
  await writeFile(secretFile, JSON.stringify({ type: 'object', description: SECRET, properties: { id: { type: 'string' } } }));
  await writeFile(path.join(docs, 'schemas', 'pet.json'), JSON.stringify({ type: 'object', properties: { name: { type: 'string' } } }));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

async function refused(name: string, text: string): Promise<ImportError> {
  const file = path.join(docs, name);
  await writeFile(file, text);
  let caught: unknown;
  await importOpenApi(file, 'api').catch((err: unknown) => (caught = err));
  assert.ok(caught instanceof ImportError, `${name} was imported: ${String(caught)}`);
  assert.ok(!caught.message.includes(SECRET));
  return caught;
}

describe('gqlgw import openapi: refusals', () => {
  test('a $ref to a URL, an absolute path or a file out of the folder is refused, naming it', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['file-url.json', `file://${secretFile}`, /is a URL/],
      ['absolute.json', secretFile, /is an absolute path/],
      ['dotdot.json', '../private/secret.json', /is a path out of the document's folder/],
      ['http.json', 'http://127.0.0.1:9/x.json', /is a URL/],
    ];
    for (const [name, ref, why] of cases) {
      const err = await refused(name, doc(petsWith({ $ref: ref })));
      assert.match(err.message, new RegExp(`^\\$ref "${ref.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" `));
      assert.match(err.message, why);
      assert.equal(err.pointer, '#/paths/~1pets/get/responses/200/content/application~1json/schema');
    }
    // A relative file inside the folder is still followed.
    const ok = path.join(docs, 'inside.json');
    await writeFile(ok, doc(petsWith({ $ref: './schemas/pet.json' })));
    const result = await importOpenApi(ok, 'api');
    assert.match([...result.files.values()].join('\n'), /name: String/);
  });

  test('a ref inside a followed file is held to the same rule', async () => {
    await writeFile(path.join(docs, 'schemas', 'leaky.json'), JSON.stringify({ $ref: '../../private/secret.json' }));
    const err = await refused('nested.json', doc(petsWith({ $ref: './schemas/leaky.json' })));
    assert.match(err.message, /\$ref "\.\.\/\.\.\/private\/secret\.json" is a path out of the document's folder/);
    assert.equal(path.basename(err.file), 'leaky.json');
  });

  test('YAML aliases that expand past 10 MB are refused at once', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i <= 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`  ${name}: &${name} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`);
    }
    const yaml = `openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths: {}\nx-bomb:\n  ${levels.join('\n')}\n`;
    assert.ok(yaml.length < 1000, `${yaml.length} bytes`);
    const started = performance.now();
    const err = await refused('bomb.yaml', yaml);
    assert.match(err.message, /expands past 10485760 bytes through its YAML aliases/);
    assert.ok(performance.now() - started < 5000, 'refused without expanding');
    // A document with a few honest aliases imports.
    const honest = path.join(docs, 'honest.yaml');
    await writeFile(
      honest,
      'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /pets:\n    get:\n      operationId: pets\n      responses:\n        "200": &ok\n          description: ok\n          content: {application/json: {schema: {type: object, properties: {id: {type: string}}}}}\n  /cats:\n    get:\n      operationId: cats\n      responses:\n        "200": *ok\n',
    );
    assert.equal((await importOpenApi(honest, 'api')).counts.query, 2);
  });

  test('a path with a dot-segment is refused, plain or percent-encoded; the CLI writes nothing', async () => {
    for (const [name, p] of [
      ['dots.json', '/../admin/users/{id}'],
      ['encoded.json', '/users/%2e%2E/admin'],
      ['single.json', '/./users'],
    ] as const) {
      const err = await refused(name, doc({ [p]: petsWith({ type: 'object' })['/pets'] }));
      assert.match(err.message, /has a dot-segment/);
      assert.equal(err.pointer, `#/paths/${p.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    }
    const run = await runCli(['import', 'openapi', path.join(docs, 'dots.json'), '--source', 'api', '--out', 'out-dots'], root);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /has a dot-segment .*; nothing was written\n$/);
    assert.equal(existsSync(path.join(root, 'out-dots')), false);
    // The secret never became a description anywhere the tests wrote.
    assert.ok(!(await readFile(secretFile, 'utf8')).includes('never'), 'fixture intact');
  });
});
