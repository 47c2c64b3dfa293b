/**
 * The importer's tests share these steps: run `gqlgw import openapi`'s command into a new folder,
 * turn the printed table into a gateway.toml pointing at a local upstream (keeping the document's
 * base path), and check it as `gqlgw check --strict` does. Both run in this process (a `gqlgw`
 * process costs more CPU than the rest of a case); import-cli.test.ts runs the real `gqlgw import`,
 * test/devloop/ the real `gqlgw check`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rm } from 'node:fs/promises';
import type { CliRun } from '../support/cli.js';
import { importCommand } from '../../gateway/import/command.js';
import { loadConfig } from '../../gateway/config/load.js';
import { formatDiagnostic } from '../../gateway/config/diagnostics.js';
import { buildBlueprint } from '../../gateway/blueprint/build.js';
import { collectWarnings, shownWarning } from '../../gateway/blueprint/warnings.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { project, selectionText, startExampleMock, type ExampleMock, type Selection } from '../support/openapi-mock.js';

/** test/import/fixtures in the source tree (the compiled tests run from dist/). */
export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/import/fixtures');

export interface Imported {
  readonly run: CliRun;
  readonly dir: string;
  /** The .graphqls files written, by name. */
  readonly files: Record<string, string>;
  /** The url the printed [sources.NAME] table gives. */
  readonly url: URL;
}

export async function importSpec(spec: string, source: string): Promise<Imported> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-import-'));
  const out = path.join(dir, 'schema');
  const printed = { stdout: '', stderr: '' };
  const status = await importCommand(['openapi', spec], { source, out }, 'usage', {
    stdout: (text) => (printed.stdout += text),
    stderr: (text) => (printed.stderr += text),
  });
  const run: CliRun = { status, ...printed };
  assert.equal(run.status, 0, run.stderr);
  const files: Record<string, string> = {};
  for (const name of (await readdir(out)).sort()) files[`schema/${name}`] = await readFile(path.join(out, name), 'utf8');
  const url = /^url = "([^"]+)"$/m.exec(run.stdout);
  assert.ok(url, `the printed table has a url: ${run.stdout}`);
  return { run, dir, files, url: new URL(url[1]!) };
}

/** The printed table with its url replaced by `upstream` plus the document's base path, under a [gateway] table. */
export function gatewayToml(imported: Imported, upstream: string): string {
  const base = imported.url.pathname.replace(/\/+$/, '');
  const table = imported.run.stdout.replace(/^url = "[^"]+"$/m, `url = ${JSON.stringify(upstream + base)}`);
  return `[gateway]\nhost = "127.0.0.1"\nport = 0\nschema = ["schema/*.graphqls"]\ndebug_headers = true\n\n${table}`;
}

/**
 * The server URL a description names, as the import should print it: OpenAPI 3's first
 * `servers` entry; Swagger 2.0's `schemes[0]://host basePath` (this fixture's one scheme).
 */
export function firstServer(spec: string): string {
  const doc = JSON.parse(readFileSync(spec, 'utf8')) as {
    servers?: Array<{ url: string }>;
    schemes?: string[];
    host?: string;
    basePath?: string;
  };
  return doc.servers ? doc.servers[0]!.url : `${doc.schemes![0]}://${doc.host}${doc.basePath ?? ''}`;
}

/** What `gqlgw check --strict` checks, on the imported files with the printed table: no problem and no warning. */
export async function assertChecks(imported: Imported, configDir: string): Promise<void> {
  const warnings = collectWarnings(buildBlueprint(loadConfig(path.join(configDir, 'gateway.toml'))));
  const shown = warnings.map((w) => formatDiagnostic({ ...w, message: shownWarning(w) }));
  assert.deepEqual(shown, [], `gqlgw check --strict fails on the import:\n${shown.join('\n')}`);
}

export interface Served {
  readonly imported: Imported;
  readonly mock: ExampleMock;
  readonly gateway: TestGateway;
  close(): Promise<void>;
}

/**
 * The gateway on the import and `upstream`, started while `gqlgw check --strict` (assertChecks) runs
 * on the same files and table, written beside the import in its own folder.
 */
export async function startChecked(imported: Imported, upstream: string): Promise<TestGateway> {
  const toml = gatewayToml(imported, upstream);
  await writeFile(path.join(imported.dir, 'gateway.toml'), toml);
  const [gateway, check] = await Promise.allSettled([
    startTestGateway({ toml, schemas: imported.files }),
    assertChecks(imported, imported.dir),
  ]);
  if (check.status === 'rejected') {
    if (gateway.status === 'fulfilled') await gateway.value.close();
    throw check.reason;
  }
  if (gateway.status === 'rejected') throw gateway.reason;
  return gateway.value;
}

/** Imports, checks, starts the example mock and the gateway on the import. */
export async function serve(spec: string, source: string): Promise<Served> {
  const imported = await importSpec(spec, source);
  const mock = await startExampleMock(spec, imported.url.pathname.replace(/\/+$/, ''));
  const gateway = await startChecked(imported, mock.upstream.url);
  return {
    imported,
    mock,
    gateway,
    close: async () => {
      await gateway.close();
      await mock.close();
      await rm(imported.dir, { recursive: true, force: true });
    },
  };
}

/** Runs `{ field(args) selection }`, asserts the answer is the projection of `route`'s JSON and the request lines sent. */
export async function assertAnswer(
  served: Served,
  query: { field: string; args?: string; selection: Selection; route: string; sent: string[]; mutation?: boolean },
): Promise<void> {
  served.mock.upstream.reset();
  const text = `${query.mutation ? 'mutation ' : ''}{ ${query.field}${query.args ? `(${query.args})` : ''} ${selectionText(query.selection)} }`;
  const res = await served.gateway.query(text);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.errors, undefined, `${text}: ${JSON.stringify(res.body.errors)}`);
  const expected = served.mock.answerFor(query.route);
  assert.notEqual(expected, undefined, `the mock answers ${query.route}`);
  assert.deepEqual(res.body.data?.[query.field], project(expected, query.selection), text);
  assert.deepEqual(
    served.mock.upstream.requests.map((r) => `${r.method} ${r.url}`),
    query.sent,
  );
}
