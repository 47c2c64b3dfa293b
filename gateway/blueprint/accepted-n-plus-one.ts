import { didYouMean } from '../../directives/suggest.js';
import type { Diagnostic } from '../config/diagnostics.js';
import { locateKey } from '../config/locate.js';
import type { FieldBlueprint } from './types.js';
import { WARNING_KINDS } from './warnings.js';

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
      ...entryPlace(config.text, 'accept_n_plus_one', coordinate),
      message: `check.accept_n_plus_one entry "${coordinate}" is no field of the schema${shape}${didYouMean(coordinate, fields.keys())}`,
    });
  }
  return out;
}

/**
 * `[check] accept = ["per-caller-cache:Query.me"]` (docs/reference.md, *new*): each entry is a
 * warning kind `gqlgw check` prints (blueprint/warnings.ts WARNING_KINDS), `:`, and the
 * `Type.field` coordinate of a field of the schema. Anything else is an error at the entry, with
 * "did you mean" over the kinds or the coordinates.
 */
export function unknownAcceptedWarnings(
  accepted: readonly string[],
  fields: ReadonlyMap<string, FieldBlueprint>,
  config: { readonly file: string; readonly text: string },
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const entry of accepted) {
    const colon = entry.indexOf(':');
    const kind = colon < 0 ? '' : entry.slice(0, colon);
    const coordinate = entry.slice(colon + 1);
    let why: string | undefined;
    if (!(WARNING_KINDS as readonly string[]).includes(kind)) {
      why = `names no warning kind: write "<kind>:<Type.field>" with a kind of ${WARNING_KINDS.join(', ')}${didYouMean(kind, WARNING_KINDS)}`;
    } else if (!fields.has(coordinate)) {
      why = `names no field of the schema: "${coordinate}"${didYouMean(coordinate, fields.keys())}`;
    }
    if (why) out.push({ file: config.file, ...entryPlace(config.text, 'accept', entry), message: `check.accept entry "${entry}" ${why}` });
  }
  return out;
}

/** The line and column of the entry's string in the list `key` of [check], else of the key. */
function entryPlace(text: string, listKey: string, entry: string): { line: number; column: number } {
  const key = locateKey(text, ['check'], listKey);
  const lines = text.split(/\r?\n/);
  for (let i = key.line - 1; i < lines.length; i++) {
    const column = lines[i]!.indexOf(JSON.stringify(entry));
    if (column >= 0) return { line: i + 1, column: column + 1 };
    if (i > key.line - 1 && /^\s*(\[|[A-Za-z_"]+\s*=)/.test(lines[i]!)) break;
  }
  return key;
}
