/** The resolution hook of module-probe.ts: records each resolved specifier, then resolves as usual. */
import { appendFileSync } from 'node:fs';

type Next = (specifier: string, context: unknown) => Promise<{ url: string }>;

export async function resolve(specifier: string, context: unknown, next: Next): Promise<{ url: string }> {
  const file = process.env.MODULE_PROBE_FILE;
  if (file) appendFileSync(file, `${specifier}\n`);
  return next(specifier, context);
}
