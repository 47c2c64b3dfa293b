/**
 * The three gqlgw variants of the benchmark and the schema files they are served from.
 *
 * bench/schema.graphqls holds the shared types once and the three `Post` declarations in blocks
 * marked `# ---- variant: NAME ----`. A schema can declare `Post` only once, so each variant is
 * served from its own generated file, bench/variants/NAME.graphqls = shared block + variant block.
 * `renderVariantSchemas` is pure; `writeVariantSchemas` rewrites the files (run by every bench run,
 * so they cannot drift; the smoke test compares the committed copies with the rendering).
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const VARIANTS = ['no-batch', 'batch', 'batch-cache'] as const;
export type VariantName = (typeof VARIANTS)[number];

const MARKER = /^# ---- (shared|variant: ([a-z-]+)) ----\s*$/;

/** Splits schema.graphqls into its shared block and one complete schema text per variant. */
export function renderVariantSchemas(sourceText: string): Map<VariantName, string> {
  const blocks = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of sourceText.split('\n')) {
    const marker = MARKER.exec(line);
    if (marker) {
      const name = marker[2] ?? 'shared';
      if (blocks.has(name)) throw new Error(`bench/schema.graphqls: block "${name}" appears twice`);
      current = [];
      blocks.set(name, current);
    } else if (current) {
      current.push(line);
    }
  }
  const shared = blocks.get('shared');
  if (!shared) throw new Error('bench/schema.graphqls: no "# ---- shared ----" block');
  const out = new Map<VariantName, string>();
  for (const variant of VARIANTS) {
    const block = blocks.get(variant);
    if (!block) throw new Error(`bench/schema.graphqls: no "# ---- variant: ${variant} ----" block`);
    const body = [...shared, ...block].join('\n').trim();
    out.set(variant, `# GENERATED from bench/schema.graphqls (variant "${variant}") by bench/variants.ts; do not edit.\n\n${body}\n`);
  }
  return out;
}

/** The generated schema file of a variant, relative to bench/. */
export function variantSchemaPath(variant: VariantName): string {
  return `variants/${variant}.graphqls`;
}

/** Regenerates bench/variants/*.graphqls from bench/schema.graphqls; returns the files written. */
export function writeVariantSchemas(benchSourceDir: string): string[] {
  const rendered = renderVariantSchemas(readFileSync(join(benchSourceDir, 'schema.graphqls'), 'utf8'));
  mkdirSync(join(benchSourceDir, 'variants'), { recursive: true });
  const written: string[] = [];
  for (const [variant, text] of rendered) {
    const file = join(benchSourceDir, variantSchemaPath(variant));
    writeFileSync(file, text);
    written.push(file);
  }
  return written;
}
