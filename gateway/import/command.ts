import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ImportError, formatPlace } from './problems.js';

/** A source name gateway.toml can hold as `[sources.NAME]` without quotes. */
const SOURCE_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Where the command prints: the process's stdout and stderr for the CLI. */
export interface CommandOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

const PROCESS_OUTPUT: CommandOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * `gqlgw import openapi SPEC --source NAME --out DIR`: writes the files into DIR (created when
 * missing), prints the TOML to add on stdout, warnings and a summary on stderr. Exit 0 when
 * written (warnings or not), 1 for a document it cannot import, 2 for a wrong command line.
 */
export async function importCommand(
  positionals: readonly string[],
  flags: { source?: string; out?: string },
  usage: string,
  output: CommandOutput = PROCESS_OUTPUT,
): Promise<number> {
  const [kind, spec, ...extra] = positionals;
  const fail = (message: string): number => {
    output.stderr(`gqlgw import: ${message}\n${usage}`);
    return 2;
  };
  if (kind !== 'openapi')
    return fail(kind ? `unknown format "${kind}": the one format is openapi` : 'name the format: gqlgw import openapi SPEC ...');
  if (!spec) return fail('name the OpenAPI document: gqlgw import openapi SPEC --source NAME --out DIR');
  if (extra.length > 0) return fail(`one document at a time; unexpected "${extra.join(' ')}"`);
  if (!flags.source) return fail('--source NAME is required: the [sources.NAME] the fields fetch from');
  if (!SOURCE_NAME.test(flags.source))
    return fail(`--source "${flags.source}" must be letters, digits, "_" or "-", starting with a letter or "_"`);
  if (!flags.out) return fail('--out DIR is required: the folder the .graphqls files are written to');
  // Loaded only now: a wrong command line is answered without loading the OpenAPI parser.
  const { importOpenApi } = await import('./import-openapi.js');
  let result;
  try {
    result = await importOpenApi(spec, flags.source);
  } catch (err) {
    if (!(err instanceof ImportError)) throw err;
    output.stderr(`gqlgw import: ${formatPlace(err.file, err.pointer, err.message)}; nothing was written\n`);
    return 1;
  }
  try {
    mkdirSync(flags.out, { recursive: true });
    for (const [name, text] of result.files) writeFileSync(join(flags.out, name), text);
  } catch (err) {
    output.stderr(`gqlgw import: cannot write to --out ${flags.out}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    return 1;
  }
  for (const w of result.warnings) output.stderr(`warning: ${formatPlace(spec, w.pointer, w.message)}\n`);
  const glob = `${flags.out.replace(/\/+$/, '')}/*.graphqls`;
  output.stdout(`# Add to gateway.toml (and "${glob}" to [gateway] schema):\n${result.sourceTable}`);
  const { query, mutation, types } = result.counts;
  const counted = `${counting(query, 'Query field')}, ${counting(mutation, 'Mutation field')}, ${counting(types, 'type')}`;
  output.stderr(
    `gqlgw import: wrote ${counting(result.files.size, 'file')} to ${flags.out}: ${counted}; ${counting(result.warnings.length, 'warning')}\n`,
  );
  return 0;
}

/** `1 type`, `2 types`: a count and its noun, singular for one. */
function counting(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
