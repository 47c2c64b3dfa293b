/**
 * Finds the line and column of a key in TOML text, so that a type error after parsing can still
 * point at the place to fix. Handles `[table]` headers and `key =` lines, which is how gateway.toml
 * is written; falls back to the table header, then to 1:1.
 */
export function locateKey(text: string, tablePath: readonly string[], key: string | undefined): { line: number; column: number } {
  const lines = text.split(/\r?\n/);
  const header = tablePath.join('.');
  let inTable = tablePath.length === 0;
  let tableLine: { line: number; column: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const trimmed = raw.trim();
    const h = /^\[\s*([^\]]+?)\s*\]/.exec(trimmed);
    if (h && !trimmed.startsWith('[[')) {
      const name = h[1]!.replace(/\s*\.\s*/g, '.').replace(/"/g, '');
      inTable = name === header;
      if (inTable) tableLine = { line: i + 1, column: raw.indexOf('[') + 1 };
      continue;
    }
    if (inTable && key !== undefined) {
      const m = new RegExp(`^\\s*"?${escape(key)}"?\\s*=`).exec(raw);
      if (m) return { line: i + 1, column: raw.search(/\S/) + 1 };
    }
  }
  if (key !== undefined) {
    // A key that is itself a table: point at its `[path.key]` header, or the first `[path.key.sub]`.
    const sub = [...tablePath, key].join('.');
    for (let i = 0; i < lines.length; i++) {
      const h = /^\s*\[\s*([^\]]+?)\s*\]/.exec(lines[i]!);
      const name = h?.[1]!.replace(/\s*\.\s*/g, '.').replace(/"/g, '');
      if (name === sub || name?.startsWith(`${sub}.`)) return { line: i + 1, column: lines[i]!.indexOf('[') + 1 };
    }
  }
  return tableLine ?? { line: 1, column: 1 };
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
