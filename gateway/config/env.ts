import type { Diagnostic } from './diagnostics.js';

/**
 * Environment variables in gateway.toml (docs/reference.md): in every string value (not in
 * keys), `${NAME}` is the variable NAME, `${NAME:-default}` its value or `default` when NAME is
 * unset or empty, and `$$` a literal `$`. A `$` before anything else stays as it is. A set but
 * empty variable is the empty string. An unset variable without a default, a malformed `${`, or a
 * name that is not `[A-Za-z_][A-Za-z0-9_]*` is a diagnostic at its place in the file.
 */
export function expandEnvironment(
  doc: Record<string, unknown>,
  source: { readonly file: string; readonly text: string },
  env: NodeJS.ProcessEnv,
  diagnostics: Diagnostic[],
): Record<string, unknown> {
  const expander = new Expander(source, env, diagnostics);
  return expander.table(doc);
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

class Expander {
  /** Where the next search for a `${NAME` of the text starts, per name: occurrences are met in order. */
  private readonly cursor = new Map<string, number>();

  constructor(
    private readonly source: { readonly file: string; readonly text: string },
    private readonly env: NodeJS.ProcessEnv,
    private readonly diagnostics: Diagnostic[],
  ) {}

  table(t: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(t)) out[k] = this.value(v);
    return out;
  }

  private value(v: unknown): unknown {
    if (typeof v === 'string') return v.includes('$') ? this.string(v) : v;
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) return this.table(v as Record<string, unknown>);
    return v;
  }

  private string(s: string): string {
    let out = '';
    let i = 0;
    while (i < s.length) {
      const dollar = s.indexOf('$', i);
      if (dollar < 0) {
        out += s.slice(i);
        break;
      }
      out += s.slice(i, dollar);
      const next = s[dollar + 1];
      if (next === '$') {
        out += '$';
        i = dollar + 2;
        continue;
      }
      if (next !== '{') {
        out += '$';
        i = dollar + 1;
        continue;
      }
      const close = s.indexOf('}', dollar);
      if (close < 0) {
        this.problem(s.slice(dollar), `unclosed "\${" in "${s}": write \${NAME}, \${NAME:-default}, or $$ for a literal $`);
        return s;
      }
      const inner = s.slice(dollar + 2, close);
      const sep = inner.indexOf(':-');
      const name = sep < 0 ? inner : inner.slice(0, sep);
      if (!NAME.test(name)) {
        this.problem(
          `\${${inner}}`,
          `"\${${inner}}" does not name an environment variable: write \${NAME} or \${NAME:-default} (letters, digits, _), or $$ for a literal $`,
        );
        return s;
      }
      const value = this.env[name];
      if (sep >= 0) {
        out += value === undefined || value === '' ? inner.slice(sep + 2) : value;
        this.advance(name);
      } else if (value === undefined) {
        this.problem(`\${${name}`, `environment variable ${name} is not set: set it, or give a default with \${${name}:-default}`, name);
      } else {
        out += value;
        this.advance(name);
      }
      i = close + 1;
    }
    return out;
  }

  /** Skips this name's next occurrence in the text (it expanded fine). */
  private advance(name: string): void {
    this.find(`\${${name}`, name);
  }

  private find(token: string, name: string | undefined): number {
    const { text } = this.source;
    const from = name === undefined ? 0 : (this.cursor.get(name) ?? 0);
    let at = text.indexOf(token, from);
    while (at > 0 && text[at - 1] === '$') at = text.indexOf(token, at + 1);
    if (name !== undefined && at >= 0) this.cursor.set(name, at + token.length);
    return at;
  }

  private problem(token: string, message: string, name?: string): void {
    const at = this.find(token, name);
    let line = 1;
    let column = 1;
    if (at >= 0) {
      const before = this.source.text.slice(0, at);
      line = before.split('\n').length;
      column = at - before.lastIndexOf('\n');
    }
    this.diagnostics.push({ file: this.source.file, line, column, message });
  }
}
