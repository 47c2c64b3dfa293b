import type { RootField } from './root-fields.js';
import type { SdlField, SdlType } from './sdl-model.js';
import { quote } from './schema-types.js';

/**
 * The `.graphqls` text of the import: root fields in document order, types by name, every line
 * built from the model alone (no dates, no absolute paths), so the same document prints the same
 * bytes.
 */
export function printRootType(name: 'Query' | 'Mutation', fields: readonly RootField[]): string {
  return `type ${name} {\n${fields.map((f) => printField(f.field)).join('')}}\n`;
}

export function printTypes(types: readonly SdlType[]): string {
  return [...types]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(printType)
    .join('\n');
}

function printType(t: SdlType): string {
  switch (t.kind) {
    case 'scalar':
      return `${quote(t.description)}\nscalar ${t.name}\n`;
    case 'enum':
      return `enum ${t.name} {\n${t.values.map((v) => `  ${v.name}${v.name === v.wire ? '' : ` @from(value: ${quote(v.wire)})`}\n`).join('')}}\n`;
    case 'union':
      return `union ${t.name} @from(key: ${quote(t.key)}, types: [${t.types.map(quote).join(', ')}]) = ${t.members.join(' | ')}\n`;
    case 'object':
      return `type ${t.name} {\n${t.fields.map(printField).join('')}}\n`;
    case 'input':
      return `input ${t.name} {\n${t.fields.map(printField).join('')}}\n`;
  }
}

function printField(f: SdlField): string {
  const description = f.description ? `  ${quote(oneLine(f.description))}\n` : '';
  const args = f.args.length ? `(${f.args.map((a) => `${a.name}: ${a.type}`).join(', ')})` : '';
  const directives = f.directives.length ? ` ${f.directives.join(' ')}` : '';
  return `${description}  ${f.name}${args}: ${f.type}${directives}\n`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
