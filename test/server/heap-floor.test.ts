/**
 * The production launch line's heap floor (README "Running in production", docs/performance.md
 * "The heap floor"): `node --initial-old-space-size=128 …/cli.js serve`. What it does to the tail
 * is measured by `npm run bench`, which starts every server with it; here, that the line is the
 * same everywhere it is written, and that it reaches every process that serves: a real
 * `gqlgw serve --workers 2` started with it answers, and each of its workers (read from /proc)
 * runs with the flag too, because node:cluster gives workers the primary's node flags.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { NODE_FLAGS } from '../../bench/rows.js';
import { serveCli, type ServeProcess } from '../support/cli.js';
import { writeGatewayFiles, type GatewayFiles } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { pollUntil } from '../support/wait.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FLOOR_FLAG = '--initial-old-space-size=128';

/** The node flags of a running process and the pids of its children, from /proc. */
function nodeFlagsOf(pid: number): string[] {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  return argv.slice(
    1,
    argv.findIndex((a) => a.endsWith('.js')),
  );
}
function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

describe('the heap floor of the production launch line', () => {
  let users: CountingUpstream;
  let files: GatewayFiles;
  let gateway: ServeProcess;

  before(async () => {
    users = await startUpstream({ 'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: `u${params.id}` } }) });
    files = await writeGatewayFiles({
      sources: { users: { url: users.url } },
      schemas: {
        's.graphqls':
          'type Query { user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}") }\ntype User { id: ID! name: String }',
      },
    });
    gateway = await serveCli(files.configPath, ['--workers', '2'], [FLOOR_FLAG]);
  });

  after(async () => {
    if (gateway !== undefined) {
      gateway.child.kill('SIGTERM');
      await gateway.exited;
    }
    await users?.close();
    await files?.cleanup();
  });

  test('started with it, gqlgw serve --workers 2 answers, and both workers run with the floor', async () => {
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ user(id: 7) { name } }"}',
    });
    assert.deepEqual(((await res.json()) as { data: unknown }).data, { user: { name: 'u7' } });
    assert.equal(users.count('GET /users/:id'), 1);
    const pid = gateway.child.pid!;
    assert.deepEqual(nodeFlagsOf(pid), [FLOOR_FLAG]);
    const workers = await pollUntil(
      () => childrenOf(pid),
      (found) => found.length === 2,
    );
    assert.equal(workers.length, 2, `the primary's children: ${workers.join(' ')}`);
    for (const worker of workers) assert.ok(nodeFlagsOf(worker).includes(FLOOR_FLAG), `worker ${worker}: ${nodeFlagsOf(worker).join(' ')}`);
  });

  test('the bench starts every server with it, npm start runs the example with it, and the README shows it', () => {
    assert.ok(NODE_FLAGS.includes(FLOOR_FLAG), `bench/rows.ts NODE_FLAGS: ${NODE_FLAGS.join(' ')}`);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    assert.match(pkg.scripts.start ?? '', new RegExp(`node ${FLOOR_FLAG} dist/examples/start\\.js`));
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    assert.ok(
      readme.includes(`node ${FLOOR_FLAG} node_modules/gqlgw/dist/gateway/cli.js serve`),
      'README shows the production launch line',
    );
  });
});
