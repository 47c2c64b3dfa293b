/**
 * Issue 12, every core: `gqlgw serve --workers 2` (or `[gateway] workers = 2`) serves one
 * port from two processes; /metrics is the sum over both, whichever worker answers the scrape;
 * SIGHUP reaches both; SIGTERM to the primary drains both, so every request in flight is answered.
 * Real CLI processes over real HTTP; each request below opens its own connection, so node:cluster
 * hands them to the workers in turn. The primary is started with the production launch line's
 * heap floor, which node:cluster passes on to each worker (read from /proc).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseConfig } from '../../gateway/config/load.js';
import { GatewayConfigError } from '../../gateway/config/diagnostics.js';
import { writeGatewayFiles, type GatewayFiles, type GraphQLResult } from '../support/gateway.js';
import { startFaultyUpstream, type FaultyUpstream } from '../support/faulty-upstream.js';
import { canConnect } from '../support/listen.js';
import { serveCli, type ServeProcess } from '../support/cli.js';
import { eventually, pollUntil } from '../support/wait.js';
import { metricValue } from '../support/prom-text.js';
import { NODE_FLAGS } from '../../bench/rows.js';

const SCHEMA = `
type Query { user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}") }
type User { id: ID! name: String }
`;

interface Answer {
  readonly status: number;
  readonly worker: string | undefined;
  readonly body: string;
}

/** One request on a connection of its own. */
function request(url: string, method: 'GET' | 'POST', body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const agent = new http.Agent({ keepAlive: false });
    const req = http.request(url, { method, agent, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        agent.destroy();
        const worker = res.headers['x-gql-worker'];
        resolve({ status: res.statusCode ?? 0, worker: typeof worker === 'string' ? worker : undefined, body: text });
      });
    });
    req.on('error', (err) => {
      agent.destroy();
      reject(err);
    });
    req.end(body);
  });
}

/** The node flags a running process was started with (its argv before the script), from /proc. */
function nodeFlagsOf(pid: number): string[] {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  return argv.slice(
    1,
    argv.findIndex((a) => a.endsWith('.js')),
  );
}
/** The pids of a process's children, from /proc. */
function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

const query = (url: string, id: number, field = 'name'): Promise<Answer> =>
  request(url, 'POST', JSON.stringify({ query: `{ user(id: ${id}) { ${field} } }` }));

describe('gqlgw serve with two workers', () => {
  let users: FaultyUpstream;
  let files: GatewayFiles;
  let proc: ServeProcess;

  before(async () => {
    users = await startFaultyUpstream({
      'GET /users/:id': ({ params }) => ({
        kind: 'json',
        body: { id: params.id, name: `u${params.id}` },
        delayMs: Number(params.id) >= 500 ? 500 : 0,
      }),
    });
    files = await writeGatewayFiles({
      schemas: { 's.graphqls': SCHEMA },
      toml: [
        '[gateway]',
        'host = "127.0.0.1"',
        'port = 0',
        'schema = ["s.graphqls"]',
        'debug_headers = true',
        'workers = 3',
        'shutdown_grace_ms = 5000',
        '',
        '[sources.users]',
        `url = "${users.url}"`,
        '',
      ].join('\n'),
    });
    // Started the way README "Running in production" says (the bench's NODE_FLAGS are that line's flags).
    proc = await serveCli(files.configPath, ['--workers', '2'], NODE_FLAGS); // the flag wins over the file's 3
  });
  after(async () => {
    if (proc?.child.exitCode === null) proc.child.kill('SIGKILL');
    await files?.cleanup();
    await users?.close();
  });

  test('both workers answer on the one port, and /metrics sums over both whichever worker serves it', async () => {
    assert.equal(proc.stdout().match(/gqlgw listening on /g)?.length, 1, 'one listening line for the whole group');
    const answers: Answer[] = [];
    for (let i = 1; i <= 6; i++) answers.push(await query(proc.url, i));
    answers.forEach((a, i) => {
      assert.equal(a.status, 200);
      assert.deepEqual((JSON.parse(a.body) as GraphQLResult).data, { user: { name: `u${i + 1}` } });
    });
    const workers = new Set(answers.map((a) => a.worker));
    assert.equal(workers.size, 2, `answered by workers ${[...workers].join(', ')}`);
    assert.ok(!workers.has(undefined), 'every answer names its worker');

    const metricsUrl = new URL('/metrics', proc.url).href;
    const scrapes = [await request(metricsUrl, 'GET'), await request(metricsUrl, 'GET')];
    assert.equal(new Set(scrapes.map((s) => s.worker)).size, 2, 'each worker served one scrape');
    for (const scrape of scrapes) {
      assert.equal(scrape.status, 200);
      assert.equal(metricValue(scrape.body, 'gqlgw_operation_duration_seconds_count'), 6, 'operations of both workers');
      assert.equal(metricValue(scrape.body, 'gqlgw_subrequests_total', { coordinate: 'Query.user', source: 'users' }), 6);
    }
    assert.equal(users.count(), 6);
  });

  test('the node flags of the launch line (the heap floor) reach both workers', async () => {
    const pid = proc.child.pid!;
    assert.deepEqual(nodeFlagsOf(pid), NODE_FLAGS);
    const workers = await pollUntil(
      () => childrenOf(pid),
      (found) => found.length === 2,
    );
    assert.equal(workers.length, 2, `the primary's children: ${workers.join(' ')}`);
    for (const worker of workers) assert.deepEqual(nodeFlagsOf(worker), NODE_FLAGS, `worker ${worker}`);
  });

  test('SIGHUP to the primary reloads both workers', async () => {
    const unknownField = await query(proc.url, 7, 'nick');
    assert.equal(unknownField.status, 400, 'User.nick is not in the schema yet');
    await writeFile(path.join(files.dir, 's.graphqls'), SCHEMA.replace('name: String', 'name: String\n  nick: String @from(key: "name")'));
    proc.child.kill('SIGHUP');
    assert.ok(
      await eventually(() => (proc.stdout().match(/gqlgw reloaded/g)?.length ?? 0) === 2, 10_000),
      `each worker reloaded: ${proc.stdout()}${proc.stderr()}`,
    );
    const answers: Answer[] = [];
    for (let i = 0; i < 4; i++) answers.push(await query(proc.url, 7, 'nick'));
    for (const a of answers) assert.deepEqual((JSON.parse(a.body) as GraphQLResult).data, { user: { nick: 'u7' } });
    assert.equal(new Set(answers.map((a) => a.worker)).size, 2, 'both workers serve the new schema');
  });

  test('SIGTERM to the primary drains both workers: every request in flight is answered, then exit 0', async () => {
    users.reset();
    const inFlight = Array.from({ length: 6 }, (_, i) => query(proc.url, 500 + i));
    assert.ok(await eventually(() => users.inFlight === 6, 5000), `all six reached the source (in flight: ${users.inFlight})`);
    proc.child.kill('SIGTERM');
    const answers = await Promise.all(inFlight);
    answers.forEach((a, i) => {
      assert.equal(a.status, 200);
      assert.deepEqual((JSON.parse(a.body) as GraphQLResult).data, { user: { name: `u${500 + i}` } });
    });
    assert.equal(new Set(answers.map((a) => a.worker)).size, 2, 'both workers had requests in flight');
    const { code } = await proc.exited;
    assert.equal(code, 0, proc.stderr());
    assert.equal(await canConnect(proc.port), false, 'the port is closed');
    assert.match(proc.stderr(), /SIGTERM: draining 2 workers/);
    assert.match(proc.stderr(), /gqlgw: stopped\n/);
    assert.doesNotMatch(proc.stderr(), /\n\s+at /, 'no stack trace');
  });
});

describe('the workers setting', () => {
  test('[gateway] workers must be 1 to 256, named with its place', () => {
    assert.equal(parseConfig('[gateway]\n', '/x/gateway.toml').workers, 1);
    assert.equal(parseConfig('[gateway]\nworkers = 4\n', '/x/gateway.toml').workers, 4);
    assert.throws(
      () => parseConfig('[gateway]\nworkers = 0\n', '/x/gateway.toml', 'gateway.toml'),
      (err: unknown) =>
        err instanceof GatewayConfigError && /^gateway\.toml:2:1: gateway\.workers must be between 1 and 256, found 0/.test(err.message),
    );
  });
});
