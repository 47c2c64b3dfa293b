/**
 * docs/reference.md lists every name a user of gqlgw meets, read here from the code's own
 * definitions: the CLI's option table, the keys the config loader asks for (with their defaults),
 * the directive definitions, the placeholder namespaces, the X-GQL-* header names, the error codes
 * written in the source and the metric definitions. A name added in code and missing from the
 * reference fails here; so does a gateway.toml key the reference lists and the loader does not know.
 * Also: the README links the reference, and no page or message of the product points at a file a
 * user's clone does not have.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { Kind, parse, print } from 'graphql';
import { Registry } from 'prom-client';
import { parse as parseToml } from 'smol-toml';
import { CLI_OPTIONS, COMMANDS } from '../../gateway/cli-options.js';
import { parseConfig } from '../../gateway/config/load.js';
import { GatewayConfigError } from '../../gateway/config/diagnostics.js';
import { NO_DEFAULT, recordKeysRead, TABLE } from '../../gateway/config/table-reader.js';
import { defineMetrics } from '../../gateway/observability/definitions.js';
import { DEBUG_HEADER_NAMES, WORKER_HEADER } from '../../gateway/server/debug-headers.js';
import { DIRECTIVE_DEFINITIONS } from '../../directives/definitions.js';
import { PLACEHOLDER_NAMESPACES } from '../../directives/template.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REFERENCE = readFileSync(path.join(ROOT, 'docs/reference.md'), 'utf8');

/** The text of one `## ` section of the reference. */
function section(title: string): string {
  const start = REFERENCE.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `docs/reference.md has no "## ${title}" section`);
  const end = REFERENCE.indexOf('\n## ', start + 1);
  return REFERENCE.slice(start, end < 0 ? undefined : end);
}

/** The table rows of a section whose first cell is `name` (in backticks). */
function rowsOf(text: string, first: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`| \`${first}\``));
}

/** The files git tracks (what a clone has), relative to the root; outside a git checkout, every file but dependencies and builds. */
function trackedFiles(): string[] {
  try {
    return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f !== '' && existsSync(path.join(ROOT, f)));
  } catch {
    return filesUnder(ROOT, '').map((f) => path.relative(ROOT, f));
  }
}

function filesUnder(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (!['node_modules', 'dist', '.git'].includes(name)) out.push(...filesUnder(full, ext));
    } else if (name.endsWith(ext)) out.push(full);
  }
  return out;
}

describe('docs/reference.md is complete', () => {
  test('every command and flag', () => {
    const text = section('Commands and flags');
    for (const command of COMMANDS) assert.equal(rowsOf(text, `gqlgw ${command}`).length, 1, `gqlgw ${command}`);
    for (const [name, option] of Object.entries(CLI_OPTIONS)) {
      const short = 'short' in option ? `, \`-${option.short}\`` : '';
      assert.ok(text.includes(`| \`--${name}\`${short}`), `--${name}${short}`);
    }
  });

  test('every gateway.toml key the loader reads, with its default; nothing it does not know', () => {
    const block = /```toml\n([\s\S]*?)```/.exec(section('gateway.toml'))?.[1];
    assert.ok(block, 'the gateway.toml section has a toml block');
    const { keys, error } = recordKeysRead(() => parseConfig(block, '/reference/gateway.toml', 'gateway.toml', { API_KEY: 'k' }));
    const problems = error instanceof GatewayConfigError ? error.diagnostics.map((d) => d.message) : error ? [String(error)] : [];
    // The block names a persisted_documents file and a JWKS file that are not there; every other problem is the reference's.
    assert.deepEqual(
      problems.filter((m) => !m.includes('docs.json') && !m.includes('jwks.json')),
      [],
    );

    const documented = new Map<string, unknown>();
    const tables = new Set<string>();
    const walk = (table: Record<string, unknown>, at: string) => {
      for (const [name, value] of Object.entries(table)) {
        const key = at ? `${at}.${name}` : name;
        const isTable = typeof value === 'object' && value !== null && !Array.isArray(value);
        if (isTable && (keys.get(key) === TABLE || at === 'sources')) {
          tables.add(key);
          walk(value as Record<string, unknown>, key);
        } else documented.set(key, value);
      }
    };
    walk(parseToml(block) as Record<string, unknown>, '');
    const read = [...keys].filter(([, d]) => d !== TABLE).map(([k]) => k);
    assert.deepEqual(
      read.filter((k) => !documented.has(k)),
      [],
      'keys the loader reads that docs/reference.md does not list',
    );
    assert.deepEqual(
      [...documented.keys()].filter((k) => !keys.has(k)),
      [],
      'keys docs/reference.md lists that the loader does not read',
    );
    const readTables = [...keys].filter(([, d]) => d === TABLE).map(([k]) => k);
    assert.deepEqual(
      readTables.filter((t) => !tables.has(t)),
      [],
      'tables the loader reads that docs/reference.md has no [table] for',
    );

    // Defaults: every key not marked optional or required shows the default the loader applies.
    const exempt = new Set<string>();
    let table = '';
    for (const line of block.split('\n')) {
      const header = /^\[([^\]]+)\]/.exec(line);
      if (header) table = header[1]!;
      const key = /^([a-z_]+) = .*# (optional|required)/.exec(line);
      if (key) exempt.add(`${table}.${key[1]}`);
    }
    const wrong: string[] = [];
    for (const [key, fallback] of keys) {
      if (fallback === TABLE || exempt.has(key)) continue;
      if (fallback === NO_DEFAULT) {
        wrong.push(`${key} has no default: mark it "# optional" or "# required"`);
        continue;
      }
      if (JSON.stringify(documented.get(key)) !== JSON.stringify(fallback))
        wrong.push(`${key}: the reference shows ${JSON.stringify(documented.get(key))}, the default is ${JSON.stringify(fallback)}`);
    }
    assert.deepEqual(wrong, []);
  });

  test('every directive argument, with its default', () => {
    const text = section('Directives');
    for (const definition of parse(DIRECTIVE_DEFINITIONS).definitions) {
      if (definition.kind !== Kind.DIRECTIVE_DEFINITION) continue;
      for (const arg of definition.arguments ?? []) {
        const rows: string[] = rowsOf(text, `@${definition.name.value}`).filter((r) => r.includes(`| \`${arg.name.value}\` |`));
        assert.equal(rows.length, 1, `@${definition.name.value}(${arg.name.value})`);
        const shown = arg.defaultValue ? `\`${print(arg.defaultValue)}\`` : arg.type.kind === Kind.NON_NULL_TYPE ? 'required' : '| |';
        assert.ok(rows[0]!.includes(shown), `@${definition.name.value}(${arg.name.value}) shows ${shown}: ${rows[0]}`);
      }
    }
  });

  test('every placeholder and X-GQL-* header', () => {
    const placeholders = section('Placeholders');
    for (const ns of PLACEHOLDER_NAMESPACES) assert.ok(placeholders.includes(`| \`{${ns}.`), `{${ns}.…}`);
    for (const other of ['{keys}', '{result.']) assert.ok(placeholders.includes(`| \`${other}`), other);
    const headers = section('Headers');
    for (const name of [...DEBUG_HEADER_NAMES, WORKER_HEADER]) assert.equal(rowsOf(headers, name).length, 1, name);
  });

  test('every error code the source writes', () => {
    const text = section('Error codes');
    const codes = new Set<string>();
    for (const dir of ['gateway', 'directives']) {
      for (const file of filesUnder(path.join(ROOT, dir), '.ts')) {
        for (const [, code] of readFileSync(file, 'utf8').matchAll(/['"]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"]/g)) {
          // undici's and Node's own error codes are matched, not written.
          if (!/^(UND_ERR_|ERR_|EAI_)/.test(code!)) codes.add(code!);
        }
      }
    }
    assert.ok(codes.size >= 20, `found only ${codes.size} codes`);
    assert.deepEqual([...codes].filter((code) => rowsOf(text, code).length !== 1).sort(), [], 'codes without a row');
  });

  test('every metric', () => {
    const registry = new Registry();
    defineMetrics(registry);
    const text = section('Metrics');
    const names = registry.getMetricsAsArray().map((m) => m.name);
    assert.ok(names.length >= 20);
    assert.deepEqual(
      names.filter((name) => rowsOf(text, name).length !== 1),
      [],
    );
  });
});

describe('the product points only at itself', () => {
  test('the README links docs/reference.md', () => {
    assert.match(readFileSync(path.join(ROOT, 'README.md'), 'utf8'), /\]\(docs\/reference\.md\)/);
  });

  test('no tracked file names SPEC.md or DESIGN.md, which a clone does not have', () => {
    const outside = /\b(SPEC|DESIGN)\.md\b/;
    const found: string[] = [];
    const self = path.relative(
      ROOT,
      fileURLToPath(import.meta.url)
        .replace(/\/dist\//, '/')
        .replace(/\.js$/, '.ts'),
    );
    // Every file the clone has: pages, code and its comments, configs, fixtures (a comment that cites a
    // file the clone lacks sends the next engineer nowhere). Binary files are skipped.
    for (const file of trackedFiles()) {
      if (file === self) continue;
      const bytes = readFileSync(path.join(ROOT, file));
      if (bytes.includes(0)) continue;
      bytes
        .toString('utf8')
        .split('\n')
        .forEach((line, i) => outside.test(line) && found.push(`${file}:${i + 1}`));
    }
    assert.deepEqual(found, []);
  });
});
