import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';

/**
 * Expands schema entries of gateway.toml (files or globs with `*`, `?` and `**`, relative to
 * `baseDir`) to absolute file paths, sorted so that schema order is stable. Returns, per entry,
 * the files it matched, so that an entry that matches nothing can be reported.
 */
export function expandSchemaGlobs(entries: readonly string[], baseDir: string): Array<{ entry: string; files: string[] }> {
  return entries.map((entry) => {
    const abs = isAbsolute(entry) ? entry : resolve(baseDir, entry);
    if (!/[*?]/.test(entry)) return { entry, files: isFile(abs) ? [abs] : [] };
    const segments = abs.split(sep);
    const firstGlob = segments.findIndex((s) => /[*?]/.test(s));
    const root = segments.slice(0, firstGlob).join(sep) || sep;
    const pattern = globToRegExp(segments.slice(firstGlob).join('/'));
    const files = walk(root)
      .filter((f) =>
        pattern.test(
          f
            .slice(root.length + 1)
            .split(sep)
            .join('/'),
        ),
      )
      .sort();
    return { entry, files };
  });
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function walk(dir: string, depth = 0): string[] {
  if (depth > 20) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    let st;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) out.push(...walk(p, depth + 1));
    else if (st.isFile()) out.push(p);
  }
  return out;
}

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}
