/**
 * Programmatic entry point: load a gateway.toml, compile its schema, and serve it over HTTP.
 * Used by the CLI, by `npm start`, by the tests and by the benchmark.
 */
export interface StartOptions {
  readonly configPath: string;
  /** Overrides [gateway] port; 0 picks a free port. */
  readonly port?: number;
  readonly host?: string;
}

export interface RunningGateway {
  /** e.g. http://127.0.0.1:4000/graphql */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startGateway(_options: StartOptions): Promise<RunningGateway> {
  throw new Error('not built yet');
}
