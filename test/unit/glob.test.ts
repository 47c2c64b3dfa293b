/** blueprint/glob.ts: schema entries (files and globs with *, ? and **) against a real directory tree. */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { expandSchemaGlobs } from '../../gateway/blueprint/glob.js';

const FILES = [
  'schema/a.graphqls',
  'schema/b.graphqls',
  'schema/b.graphql',
  'schema/ab.graphqls',
  'schema/nested/c.graphqls',
  'schema/nested/deep/d.graphqls',
  'schema/.hidden/e.graphqls',
  'schema/node_modules/f.graphqls',
  'schema/x+y.graphqls',
  'other/g.graphqls',
];

describe('expandSchemaGlobs', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gqlgw-glob-'));
    for (const file of FILES) {
      await mkdir(join(dir, file, '..'), { recursive: true });
      await writeFile(join(dir, file), 'type Query { a: Int }');
    }
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const cases: ReadonlyArray<[entry: string, files: string[]]> = [
    ['schema/a.graphqls', ['schema/a.graphqls']],
    ['schema/missing.graphqls', []],
    ['schema/nested', []],
    ['schema/*.graphqls', ['schema/a.graphqls', 'schema/ab.graphqls', 'schema/b.graphqls', 'schema/x+y.graphqls']],
    ['schema/?.graphqls', ['schema/a.graphqls', 'schema/b.graphqls']],
    ['schema/b.*', ['schema/b.graphql', 'schema/b.graphqls']],
    [
      'schema/**/*.graphqls',
      [
        'schema/a.graphqls',
        'schema/ab.graphqls',
        'schema/b.graphqls',
        'schema/nested/c.graphqls',
        'schema/nested/deep/d.graphqls',
        'schema/x+y.graphqls',
      ],
    ],
    ['schema/nested/**', ['schema/nested/c.graphqls', 'schema/nested/deep/d.graphqls']],
    ['*/*.graphqls', ['other/g.graphqls', 'schema/a.graphqls', 'schema/ab.graphqls', 'schema/b.graphqls', 'schema/x+y.graphqls']],
    ['schema/x+y.*', ['schema/x+y.graphqls']],
    ['nowhere/*.graphqls', []],
  ];
  for (const [entry, files] of cases) {
    test(`${entry} → ${files.length === 0 ? 'nothing' : files.join(', ')}`, () => {
      const [expanded] = expandSchemaGlobs([entry], dir);
      assert.equal(expanded?.entry, entry);
      assert.deepEqual(
        expanded?.files,
        files.map((f) => join(dir, f)),
      );
    });
  }

  test('an absolute entry ignores the base directory', () => {
    const [expanded] = expandSchemaGlobs([join(dir, 'other', '*.graphqls')], '/nonexistent');
    assert.deepEqual(expanded?.files, [join(dir, 'other/g.graphqls')]);
  });

  test('one result per entry, in the order given', () => {
    const expanded = expandSchemaGlobs(['other/*.graphqls', 'schema/a.graphqls', 'none/*'], dir);
    assert.deepEqual(
      expanded.map((e) => [e.entry, e.files.length]),
      [
        ['other/*.graphqls', 1],
        ['schema/a.graphqls', 1],
        ['none/*', 0],
      ],
    );
  });
});
