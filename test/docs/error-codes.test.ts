/**
 * The error codes are spelled in one file (gateway/errors.ts): its union is exactly the codes of
 * docs/reference.md "Error codes", and no other file of the product writes a code as a string.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { ERROR_CODES, UNCODED_ERROR } from '../../gateway/errors.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('the code union is the reference table: every row a code, every code a row', () => {
  const reference = readFileSync(path.join(ROOT, 'docs/reference.md'), 'utf8');
  const table = reference.slice(reference.indexOf('## Error codes'), reference.indexOf('\n## ', reference.indexOf('## Error codes') + 1));
  const rows = [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]!);
  assert.deepEqual(rows.filter((code) => code !== UNCODED_ERROR).sort(), [...ERROR_CODES].sort());
  assert.ok(rows.includes(UNCODED_ERROR), 'the span status of an uncoded error has its row');
});

test('no file of gateway/ but errors.ts spells a code as a string', () => {
  const codes = new Set<string>([...ERROR_CODES, UNCODED_ERROR]);
  const spelled: string[] = [];
  const gateway = path.join(ROOT, 'gateway');
  for (const file of readdirSync(gateway, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || file === 'errors.ts') continue;
    const text = readFileSync(path.join(gateway, file), 'utf8');
    for (const [, code] of text.matchAll(/['"]([A-Z][A-Z_]*)['"]/g)) if (codes.has(code!)) spelled.push(`${file}: ${code}`);
  }
  assert.deepEqual(spelled, []);
});
