/**
 * Editor support (issue 14): `gqlgw sdl` prints the directive definitions without a config; the
 * committed directives/definitions.graphql equals that output; graphql-config really loads the
 * repository's graphql.config.yml; and the GraphQL language service, given that project's schema,
 * knows @fetch/@batch/@cache/@from in a schema file and reports a typo such as @fetc.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { loadConfig } from 'graphql-config';
import { getDiagnostics } from 'graphql-language-service';
import { DIRECTIVE_DEFINITIONS } from '../../directives/definitions.js';
import { runCli } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('gqlgw sdl and the editor config: graphql-config loads it, the language service knows the directives', async () => {
  const [sdl, committed, config] = await Promise.all([
    runCli(['sdl'], '/'),
    readFile(`${ROOT}directives/definitions.graphql`, 'utf8'),
    loadConfig({ rootDir: ROOT, throwOnMissing: true }),
  ]);
  assert.equal(sdl.status, 0, sdl.stderr);
  assert.ok(sdl.stdout.endsWith(`${DIRECTIVE_DEFINITIONS.trim()}\n`), 'gqlgw sdl prints the definitions');
  assert.equal(committed, sdl.stdout, 'directives/definitions.graphql is `npx gqlgw sdl > directives/definitions.graphql`');

  const project = config!.getDefault();
  assert.ok(project.match(`${ROOT}schema/blog.graphqls`), 'the example schema belongs to the project');
  const schema = await project.getSchema();
  assert.deepEqual(
    schema.getDirective('fetch')?.args.map((a) => a.name),
    ['source', 'path', 'url', 'method', 'body', 'select', 'repeat', 'response'],
  );
  assert.ok(schema.getQueryType()?.getFields().posts, 'the schema files are loaded too');

  const blog = await readFile(`${ROOT}schema/blog.graphqls`, 'utf8');
  for (const name of ['@fetch', '@batch', '@cache', '@from']) assert.ok(blog.includes(name), `the example uses ${name}`);
  const unknown = (text: string) => getDiagnostics(text, schema).filter((d) => /Unknown directive/.test(String(d.message)));
  assert.deepEqual(unknown(blog), []);
  const typo = unknown('type Extra {\n  a: String @fetc(source: "posts", path: "/a")\n}\n');
  assert.deepEqual(
    typo.map((d) => [d.message, d.range.start.line, d.range.start.character]),
    [['Unknown directive "@fetc".', 1, 13]],
  );
});
