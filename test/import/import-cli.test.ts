/**
 * The `gqlgw import openapi` command line (docs/reference.md): --help, every error
 * path (exit code, the exact message with file and JSON pointer, nothing written, no stack trace),
 * circular schemas, names that collide after transformation, what is not mapped, and that two
 * runs write byte-identical files. The command line, the refusals and the two runs go through the
 * real CLI as a child process; the rest through its command in this process (importCommand, what
 * the CLI calls), as a `gqlgw` process costs more CPU than the case.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli, type CliRun } from '../support/cli.js';
import { importCommand } from '../../gateway/import/command.js';
import { FIXTURES } from './support.js';
import { importOpenApi } from '../../gateway/import/import-openapi.js';
import { ImportError, formatPlace } from '../../gateway/import/problems.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-import-cli-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const doc = (paths: object, schemas: object = {}) =>
  JSON.stringify({
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    servers: [{ url: 'http://127.0.0.1:9/api' }],
    paths,
    components: { schemas },
  });
const getJson = (schema: object, operationId?: string) => ({
  get: { ...(operationId ? { operationId } : {}), responses: { 200: { description: 'ok', content: { 'application/json': { schema } } } } },
});

async function write(name: string, text: string): Promise<string> {
  await writeFile(path.join(dir, name), text);
  return name;
}

async function importIn(args: string[]) {
  return runCli(['import', 'openapi', ...args], dir);
}

/** `gqlgw import openapi SPEC --source NAME --out OUT` in `dir`, in this process; paths are printed relative to `dir`. */
async function importHere(spec: string, source: string, out: string): Promise<CliRun> {
  const printed = { stdout: '', stderr: '' };
  const shown = (text: string) => text.replaceAll(`${dir}${path.sep}`, '');
  const status = await importCommand(['openapi', path.resolve(dir, spec)], { source, out: path.join(dir, out) }, 'usage', {
    stdout: (text) => (printed.stdout += shown(text)),
    stderr: (text) => (printed.stderr += shown(text)),
  });
  return { status, ...printed };
}

describe('gqlgw import openapi: the command line', () => {
  test('--help lists the command', async () => {
    const runs = await Promise.all([['--help'], ['import', '--help']].map((args) => runCli(args, dir)));
    for (const run of runs) {
      assert.equal(run.status, 0);
      assert.match(
        run.stdout,
        /^ {2}gqlgw import openapi SPEC --source NAME --out DIR write \.graphqls files for an OpenAPI 3\.0\/3\.1 or Swagger 2\.0$/m,
      );
    }
  });

  test('a wrong command line exits 2 with what to write', async () => {
    const cases: Array<[string[], string]> = [
      [['import'], 'gqlgw import: name the format: gqlgw import openapi SPEC ...'],
      [['import', 'swagger', 'a.json'], 'gqlgw import: unknown format "swagger": the one format is openapi'],
      [['import', 'openapi'], 'gqlgw import: name the OpenAPI document: gqlgw import openapi SPEC --source NAME --out DIR'],
      [
        ['import', 'openapi', 'a.json', 'b.json', '--source', 's', '--out', 'o'],
        'gqlgw import: one document at a time; unexpected "b.json"',
      ],
      [['import', 'openapi', 'a.json', '--out', 'o'], 'gqlgw import: --source NAME is required: the [sources.NAME] the fields fetch from'],
      [
        ['import', 'openapi', 'a.json', '--source', 'my api', '--out', 'o'],
        'gqlgw import: --source "my api" must be letters, digits, "_" or "-", starting with a letter or "_"',
      ],
      [
        ['import', 'openapi', 'a.json', '--source', 's'],
        'gqlgw import: --out DIR is required: the folder the .graphqls files are written to',
      ],
    ];
    const runs = await Promise.all(cases.map(([args]) => runCli(args, dir)));
    for (const [i, [args, message]] of cases.entries()) {
      const run = runs[i]!;
      assert.equal(run.status, 2, args.join(' '));
      assert.equal(run.stderr.split('\n')[0], message);
      assert.match(run.stderr, /^usage:$/m);
    }
  });

  test('a document it cannot import exits 1 naming the file and the pointer, writes nothing, shows no stack', async () => {
    await mkdir(path.join(dir, 'folder.json'), { recursive: true });
    const cases: Array<[string, string]> = [
      ['missing.json', 'missing.json: no such file'],
      ['folder.json', 'folder.json: is a folder, not an OpenAPI document'],
      [
        await write('truncated.json', '{ "openapi": '),
        'truncated.json:1:14: is neither JSON nor YAML: unexpected end of the stream within a flow collection (1:14)',
      ],
      [await write('bad.yaml', 'openapi: 3.0.0\ninfo: [\n'), 'bad.yaml:3:1: is neither JSON nor YAML: deficient indentation (3:1)'],
      [
        await write('other.json', '{"name": "not an API", "version": 1}'),
        'other.json: is not an OpenAPI document: it has no "openapi" (3.x) or "swagger" (2.0) key at the top',
      ],
      [
        await write('v4.json', '{"openapi": "4.0.0", "info": {"title": "t", "version": "1"}, "paths": {}}'),
        'v4.json#/openapi: OpenAPI 4.0.0 is not supported; this reads OpenAPI 3.0, 3.1 and Swagger 2.0',
      ],
      [
        await write('v1.json', '{"swagger": "1.2"}'),
        'v1.json#/swagger: Swagger 1.2 is not supported; this reads OpenAPI 3.0, 3.1 and Swagger 2.0',
      ],
      [
        await write(
          'broken-ref.json',
          doc(
            { '/pets': getJson({ type: 'array', items: { $ref: '#/components/schemas/Nope' } }) },
            { Pet: { type: 'object', properties: { id: { type: 'string' } } } },
          ),
        ),
        'broken-ref.json#/paths/~1pets/get/responses/200/content/application~1json/schema/items: $ref "#/components/schemas/Nope" points to nothing in the document; fix the reference or add what it names',
      ],
      [
        await write('external-ref.json', doc({ '/pets': getJson({ $ref: './pets-schema.json#/Pet' }) })),
        'external-ref.json#/paths/~1pets/get/responses/200/content/application~1json/schema: $ref "./pets-schema.json#/Pet" names a file that cannot be read (local files only; a URL is never fetched); fix the reference or add what it names',
      ],
      [
        await write('url-ref.json', doc({ '/pets': getJson({ $ref: 'http://127.0.0.1:9/pets-schema.json#/Pet' }) })),
        'url-ref.json#/paths/~1pets/get/responses/200/content/application~1json/schema: $ref "http://127.0.0.1:9/pets-schema.json#/Pet" is a URL; only refs inside the document and relative files in its own folder are followed',
      ],
    ];
    // Through the real CLI for two of them (exit code, stderr, nothing written); the importer itself for all.
    const viaCli = cases.slice(0, 1).concat(cases.slice(-3, -2));
    const runs = await Promise.all(viaCli.map(([file]) => importIn([file, '--source', 'api', '--out', `out-${file}`])));
    for (const [i, [file, message]] of viaCli.entries()) {
      const out = `out-${file}`;
      const run = runs[i]!;
      assert.equal(run.status, 1, `${file}: ${run.stderr}`);
      assert.equal(run.stderr, `gqlgw import: ${message}; nothing was written\n`);
      assert.equal(run.stdout, '');
      assert.equal(existsSync(path.join(dir, out)), false, `${file}: nothing written`);
    }
    for (const [file, message] of cases) {
      await assert.rejects(importOpenApi(path.join(dir, file), 'api'), (err: unknown) => {
        assert.ok(err instanceof ImportError, String(err));
        assert.equal(formatPlace(path.relative(dir, err.file), err.pointer, err.message), message);
        return true;
      });
    }
  });

  test('a circular schema imports, the recursion kept as types', async () => {
    const file = await write(
      'tree.json',
      doc(
        {
          '/nodes/{node_id}': {
            ...getJson({ $ref: '#/components/schemas/Node' }, 'getNode'),
            parameters: [{ name: 'node_id', in: 'path', required: true, schema: { type: 'string' } }],
          },
        },
        {
          Node: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
              next: { $ref: '#/components/schemas/Edge' },
            },
          },
          Edge: { type: 'object', properties: { to: { $ref: '#/components/schemas/Node' } } },
        },
      ),
    );
    const run = await importHere(file, 'tree', 'tree');
    assert.equal(run.status, 0, run.stderr);
    const types = await readFile(path.join(dir, 'tree/tree.types.graphqls'), 'utf8');
    assert.match(types, /type Edge \{\n {2}to: Node\n\}/);
    assert.match(types, /type Node \{\n {2}id: String\n {2}children: \[Node\]\n {2}next: Edge\n\}/);
    const query = await readFile(path.join(dir, 'tree/tree.query.graphqls'), 'utf8');
    assert.match(query, /^ {2}getNode\(node_id: String!\): Node @fetch\(source: "tree", path: "\/nodes\/\{args\.node_id\}"\)$/m);
  });

  test('names that collide after transformation are made unique deterministically and warned about', async () => {
    const file = await write(
      'collide.json',
      doc(
        {
          '/a': getJson({ $ref: '#/components/schemas/pet-owner' }, 'get-owner'),
          '/b': getJson({ $ref: '#/components/schemas/PetOwner' }, 'getOwner'),
        },
        {
          'pet-owner': {
            type: 'object',
            properties: {
              'first-name': { type: 'string' },
              firstName: { type: 'string' },
              state: { type: 'string', enum: ['in-use', 'in_use', 'IN USE'] },
            },
          },
          PetOwner: { type: 'object', properties: { id: { type: 'string' } } },
        },
      ),
    );
    const run = await importHere(file, 'c', 'collide');
    assert.equal(run.status, 0, run.stderr);
    const warnings = run.stderr.split('\n').filter((l) => l.startsWith('warning: '));
    assert.deepEqual(warnings, [
      'warning: collide.json#/components/schemas/pet-owner/properties/firstName: the field for key "firstName" of PetOwner is named firstName2: firstName is already the field for key "first-name" of PetOwner',
      'warning: collide.json#/components/schemas/pet-owner/properties/state/enum: enum value "in_use" of PetOwnerState is named IN_USE2: IN_USE is already enum value "in-use" of PetOwnerState',
      'warning: collide.json#/components/schemas/pet-owner/properties/state/enum: enum value "IN USE" of PetOwnerState is named IN_USE3: IN_USE is already enum value "in-use" of PetOwnerState',
      'warning: collide.json#/paths/~1b/get: the Query field of GET /b is named getOwner2: getOwner is already the Query field of GET /a',
      'warning: collide.json#/components/schemas/PetOwner: schema #/components/schemas/PetOwner is named PetOwner2: PetOwner is already schema #/components/schemas/pet-owner',
    ]);
    const types = await readFile(path.join(dir, 'collide/c.types.graphqls'), 'utf8');
    assert.match(
      types,
      /type PetOwner \{\n {2}firstName: String @from\(key: "first-name"\)\n {2}firstName2: String @from\(key: "firstName"\)\n {2}state: PetOwnerState\n\}/,
    );
    assert.match(
      types,
      /enum PetOwnerState \{\n {2}IN_USE @from\(value: "in-use"\)\n {2}IN_USE2 @from\(value: "in_use"\)\n {2}IN_USE3 @from\(value: "IN USE"\)\n\}/,
    );
    assert.match(types, /type PetOwner2 \{\n {2}id: String\n\}/);
  });

  test('what cannot be mapped is a warning with its pointer; the rest is written', async () => {
    const [run, petstore] = await Promise.all([
      importHere(path.join(FIXTURES, 'callbacks-3.0.json'), 'cb', 'cb'),
      importHere(path.join(FIXTURES, 'petstore-3.0.json'), 'p', 'p'),
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stderr,
      /^warning: .*callbacks-3\.0\.json#\/paths\/~1streams\/post\/callbacks: callbacks are not mapped: gqlgw is not called back$/m,
    );
    assert.match(run.stderr, /^gqlgw import: wrote 3 files to cb: 1 Query field, 1 Mutation field, 2 types; 3 warnings$/m);
    const undeclared = await importOpenApi(
      path.join(
        dir,
        await write('undeclared.json', doc({ '/a/{x}': getJson({ type: 'string' }, 'getA'), '/b': getJson({ type: 'string' }, 'getB') })),
      ),
      'u',
    );
    assert.deepEqual(undeclared.warnings, [
      { pointer: '#', message: 'the document does not validate: `/paths/a/{x}/get` is missing path parameter(s) for `{x}`.' },
      { pointer: '#/paths/~1a~1{x}/get', message: 'the path names {x} but no such path parameter is declared; the operation is left out' },
    ]);
    assert.match(undeclared.files.get('u.query.graphqls')!, /^type Query \{\n {2}getB: String @fetch\(source: "u", path: "\/b"\)\n\}\n$/m);
    assert.match(
      petstore.stderr,
      /#\/paths\/~1pet~1\{petId\}~1uploadImage\/post\/requestBody: a multipart\/form-data body is not mapped: gqlgw sends JSON bodies; the operation is left out$/m,
    );
    assert.match(petstore.stderr, /#\/paths\/~1pet~1\{petId\}\/delete\/parameters\/0: header parameter "api_key" is not mapped/m);
  });

  test('two runs write byte-identical files and print the same', async () => {
    for (const fixture of ['train-travel-3.1.json', 'petstore-swagger-2.0.json']) {
      const [a, b] = [await importOpenApi(path.join(FIXTURES, fixture), 'api'), await importOpenApi(path.join(FIXTURES, fixture), 'api')];
      assert.deepEqual(b, a, fixture);
    }
    for (const fixture of ['petstore-expanded-owners.yaml']) {
      // The two runs at once, each in its own folder.
      const runs = await Promise.all(
        [0, 1].map(async (i) => {
          const out = path.join(dir, `twice-${fixture}-${i}`);
          await mkdir(out, { recursive: true });
          const run = await runCli(['import', 'openapi', path.join(FIXTURES, fixture), '--source', 'api', '--out', 'out'], out);
          assert.equal(run.status, 0, run.stderr);
          const files = new Map<string, Buffer>();
          for (const name of (await readdir(path.join(out, 'out'))).sort()) files.set(name, await readFile(path.join(out, 'out', name)));
          return { stdout: run.stdout, stderr: run.stderr, files };
        }),
      );
      assert.ok(runs[0]!.files.size >= 2, fixture);
      assert.deepEqual(runs[1], runs[0], fixture);
    }
  });
});
