/**
 * A real gateway for end-to-end tests: writes a gateway.toml and .graphqls files (given as strings)
 * into a fresh temporary folder, starts it with `startGateway({ configPath, port: 0 })`, and talks
 * to it over real HTTP with the global fetch.
 *
 *   const users = await startUpstream({ ... });
 *   const gw = await startTestGateway({
 *     sources: { users: { url: users.url } },
 *     schemas: { 'schema.graphqls': 'type Query { user(id: ID!): User @fetch(...) } ...' },
 *   });
 *   const res = await gw.query('{ user(id: 1) { name } }');
 *   res.status; res.body.data; debugCounts(res); // { rounds, subrequests, batches }
 *   await gw.close(); await users.close();
 *
 * By default the rendered gateway.toml has `debug_headers = true` so the X-GQL-* headers are there.
 * Pass `toml` to write a config verbatim instead (it must list the schema files itself), or
 * `extraToml` to append tables such as `[cache.memcached]` or limits to the rendered one.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startGateway, type RunningGateway } from '../../gateway/server/start.js';
import type { PlanMode } from '../../gateway/config/types.js';

export interface TestSource {
  /** Base URL, usually a CountingUpstream's `url`. */
  readonly url: string;
  /** `timeout_ms`; left out of the file (gateway default) when absent. */
  readonly timeoutMs?: number;
  /** `forward_headers`; left out when absent. */
  readonly forwardHeaders?: readonly string[];
  /** Further `key = value` lines for this [sources.NAME] table, written verbatim. */
  readonly extra?: string;
}

export interface GatewayFilesOptions {
  /** Schema files by path relative to the config folder, e.g. `{ 'schema/blog.graphqls': sdl }`. */
  readonly schemas: Readonly<Record<string, string>>;
  /** The whole gateway.toml, written verbatim; when given, the options below are ignored. */
  readonly toml?: string;
  /** One [sources.NAME] table each. */
  readonly sources?: Readonly<Record<string, TestSource>>;
  /** [gateway] debug_headers; default true. */
  readonly debugMode?: boolean;
  /** [cache] l2_max_entries; left out (gateway default) when absent. */
  readonly l2MaxEntries?: number;
  /** TOML appended after the rendered config, e.g. "[cache.memcached]\nservers = [...]". */
  readonly extraToml?: string;
}

export interface GatewayFiles {
  /** The temporary folder holding gateway.toml and the schema files. */
  readonly dir: string;
  /** Absolute path of the written gateway.toml. */
  readonly configPath: string;
  /** Deletes the folder. */
  cleanup(): Promise<void>;
}

/** The parsed answer of one GraphQL request. */
export interface GraphQLResult {
  readonly data?: Record<string, unknown> | null;
  readonly errors?: ReadonlyArray<{
    readonly message: string;
    readonly path?: ReadonlyArray<string | number>;
    readonly locations?: ReadonlyArray<{ readonly line: number; readonly column: number }>;
    readonly extensions?: Record<string, unknown>;
  }>;
  readonly extensions?: Record<string, unknown>;
}

export interface HttpResult<Body> {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body; undefined when the body is not JSON (see `text`). */
  readonly body: Body;
  /** The raw body text. */
  readonly text: string;
}

export interface TestGateway {
  /** e.g. http://127.0.0.1:53129/graphql */
  readonly url: string;
  /** e.g. http://127.0.0.1:53129, for other paths such as /metrics. */
  readonly origin: string;
  readonly port: number;
  readonly files: GatewayFiles;
  /** POSTs `{ query, variables, operationName }` as JSON to the GraphQL endpoint. */
  query(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
    operationName?: string,
  ): Promise<HttpResult<GraphQLResult>>;
  /** POSTs a raw body (e.g. malformed JSON) to the GraphQL endpoint; content-type defaults to JSON. */
  post(body: string, headers?: Record<string, string>): Promise<HttpResult<unknown>>;
  /** GETs a path on the gateway's origin, e.g. `/metrics` or `/graphql?query=...`. */
  get(pathAndQuery: string, headers?: Record<string, string>): Promise<HttpResult<unknown>>;
  /** Stops the gateway and deletes its temporary folder. */
  close(): Promise<void>;
}

/** The X-GQL-* debug headers as numbers (NaN when a header is missing). */
export interface DebugCounts {
  readonly rounds: number;
  readonly subrequests: number;
  readonly batches: number;
}

const toTomlString = (value: string): string => JSON.stringify(value);
const toTomlArray = (values: readonly string[]): string => `[${values.map(toTomlString).join(', ')}]`;

/** Renders a gateway.toml from the options (port 0, host 127.0.0.1, schema = the schema files). */
export function renderGatewayToml(options: GatewayFilesOptions): string {
  const lines = [
    '[gateway]',
    'host = "127.0.0.1"',
    'port = 0',
    `schema = ${toTomlArray(Object.keys(options.schemas))}`,
    `debug_headers = ${options.debugMode ?? true}`,
    '',
  ];
  for (const [name, source] of Object.entries(options.sources ?? {})) {
    lines.push(`[sources.${name}]`, `url = ${toTomlString(source.url)}`);
    if (source.timeoutMs !== undefined) lines.push(`timeout_ms = ${source.timeoutMs}`);
    if (source.forwardHeaders !== undefined) lines.push(`forward_headers = ${toTomlArray(source.forwardHeaders)}`);
    if (source.extra !== undefined) lines.push(source.extra);
    lines.push('');
  }
  if (options.l2MaxEntries !== undefined) lines.push('[cache]', `l2_max_entries = ${options.l2MaxEntries}`, '');
  if (options.extraToml !== undefined) lines.push(options.extraToml, '');
  return lines.join('\n');
}

/**
 * `GQLGW_TEST_PLAN=interpreted` (`npm run test:interpreter`): every gateway the tests start runs the
 * interpreter (`StartOptions.plan` over `[gateway] plan`, docs/performance.md), so the same
 * assertions check both ways of running an operation. Unset: the config as written.
 */
function testPlan(): PlanMode | undefined {
  const plan = process.env.GQLGW_TEST_PLAN;
  if (plan === undefined || plan === '') return undefined;
  if (plan !== 'compiled' && plan !== 'interpreted') throw new Error(`GQLGW_TEST_PLAN must be compiled or interpreted, not ${plan}`);
  return plan;
}

/** Writes gateway.toml and the schema files into a new temporary folder, without starting anything. */
export async function writeGatewayFiles(options: GatewayFilesOptions): Promise<GatewayFiles> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-test-'));
  for (const [relative, sdl] of Object.entries(options.schemas)) {
    const file = path.join(dir, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, sdl);
  }
  const configPath = path.join(dir, 'gateway.toml');
  await writeFile(configPath, options.toml ?? renderGatewayToml(options));
  return { dir, configPath, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

async function readResult<Body>(response: Response): Promise<HttpResult<Body>> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body: body as Body, text };
}

/** Writes the files, starts the gateway on a free port, and returns HTTP helpers bound to it. */
export async function startTestGateway(options: GatewayFilesOptions): Promise<TestGateway> {
  const files = await writeGatewayFiles(options);
  let running: RunningGateway;
  try {
    running = await startGateway({ configPath: files.configPath, port: 0, host: '127.0.0.1', plan: testPlan() });
  } catch (error) {
    await files.cleanup();
    throw error;
  }
  const origin = new URL(running.url).origin;
  const post = async (body: string, headers: Record<string, string> = {}): Promise<HttpResult<unknown>> =>
    readResult(
      await fetch(running.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body,
      }),
    );
  return {
    url: running.url,
    origin,
    port: running.port,
    files,
    query: async (query, variables, headers, operationName) =>
      (await post(JSON.stringify({ query, variables, operationName }), headers)) as HttpResult<GraphQLResult>,
    post,
    get: async (pathAndQuery, headers = {}) => readResult(await fetch(origin + pathAndQuery, { headers })),
    close: async () => {
      try {
        await running.close();
      } finally {
        await files.cleanup();
      }
    },
  };
}

/** Reads X-GQL-Rounds / X-GQL-Subrequests / X-GQL-Batches from a response. */
export function debugCounts(result: { readonly headers: Headers }): DebugCounts {
  const read = (name: string): number => {
    const value = result.headers.get(name);
    return value === null ? Number.NaN : Number(value);
  };
  return { rounds: read('x-gql-rounds'), subrequests: read('x-gql-subrequests'), batches: read('x-gql-batches') };
}
