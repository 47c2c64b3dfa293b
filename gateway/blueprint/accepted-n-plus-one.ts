import { didYouMean } from '../../directives/suggest.js';
import type { Diagnostic } from '../config/diagnostics.js';
import { locateKey } from '../config/locate.js';
import type { FieldBlueprint } from './types.js';

/**
 * `[check] accept_n_plus_one = ["Issue.user"]` (docs/reference.md, *new*): each entry must be
 * the `Type.field` coordinate of a field of the schema. An unknown one is an error at the entry in
 * gateway.toml, with "did you mean" over the schema's coordinates; an accepted coordinate that has
 * no N+1 is allowed (nothing to warn about).
 */
export function unknownAcceptedCoordinates(
  accepted: readonly string[],
  fields: ReadonlyMap<string, FieldBlueprint>,
  config: { readonly file: string; readonly text: string },
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const coordinate of accepted) {
    if (fields.has(coordinate)) continue;
    const shape = /^[_A-Za-z][_0-9A-Za-z]*\.[_A-Za-z][_0-9A-Za-z]*$/.test(coordinate) ? '' : ' (write Type.field)';
    out.push({
      file: config.file,
      ...entryPlace(config.text, coordinate),
      message: `check.accept_n_plus_one entry "${coordinate}" is no field of the schema${shape}${didYouMean(coordinate, fields.keys())}`,
    });
  }
  return out;
}

/** The line and column of the entry's string in the accept_n_plus_one list, else of the key. */
function entryPlace(text: string, coordinate: string): { line: number; column: number } {
  const key = locateKey(text, ['check'], 'accept_n_plus_one');
  const lines = text.split(/\r?\n/);
  for (let i = key.line - 1; i < lines.length; i++) {
    const column = lines[i]!.indexOf(JSON.stringify(coordinate));
    if (column >= 0) return { line: i + 1, column: column + 1 };
    if (i > key.line - 1 && /^\s*(\[|[A-Za-z_"]+\s*=)/.test(lines[i]!)) break;
  }
  return key;
}
