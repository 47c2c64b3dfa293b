/**
 * A user's mistake in gateway.toml or a schema file, reported as `file:line:col: message`.
 * Start-up collects all of them and stops with the whole list; never a stack trace.
 */
export interface Diagnostic {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.message}`;
}

/** Thrown by start-up when config or schema has problems; `message` lists them, one a line. */
export class GatewayConfigError extends Error {
  readonly diagnostics: readonly Diagnostic[];
  constructor(diagnostics: readonly Diagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join('\n'));
    this.name = 'GatewayConfigError';
    this.diagnostics = diagnostics;
  }
}
