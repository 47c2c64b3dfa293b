/**
 * What a feature alone needs is imported when the feature is first used (docs/testing.md "Start-up
 * cost"): a real `gqlgw serve` child process, preloaded with the resolution hook that records every
 * module it resolves (test/support/module-probe.ts), answers a fast-path query without resolving
 * graphql-yoga, the live transports, graphql-jit or the federated trace's protobuf; its first GET
 * (yoga) and its first SSE request then answer correctly, and only then are their modules resolved.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { writeGatewayFiles, type GatewayFiles } from '../support/gateway.js';
import { serveCli, type ServeProcess } from '../support/cli.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const PROBE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../support/module-probe.js');
const SCHEMA = 'type Query { user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}") }\ntype User { id: ID! }';
const LAZY = ['graphql-yoga', 'graphql-sse', 'graphql-ws', 'ws', 'graphql-jit', '@apollo/usage-reporting-protobuf'];

describe('features import their modules on first use', () => {
  let users: CountingUpstream;
  let files: GatewayFiles;
  let proc: ServeProcess;
  let probeFile: string;
  before(async () => {
    users = await startUpstream({ 'GET /users/:id': ({ params }) => ({ json: { id: params.id } }) });
    files = await writeGatewayFiles({ sources: { users: { url: users.url } }, schemas: { 's.graphqls': SCHEMA }, debugMode: false });
    probeFile = path.join(files.dir, 'modules.txt');
    process.env.MODULE_PROBE_FILE = probeFile;
    try {
      proc = await serveCli(files.configPath, [], ['--import', PROBE]);
    } finally {
      delete process.env.MODULE_PROBE_FILE;
    }
  });
  after(async () => {
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    await files?.cleanup();
    await users?.close();
  });

  const resolved = async () => new Set((await readFile(probeFile, 'utf8')).split('\n'));

  it('serves the fast path without them, then yoga and SSE on their first request', async () => {
    const posted = await fetch(proc.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ user(id: 1) { id } }' }),
    });
    assert.deepEqual(await posted.json(), { data: { user: { id: '1' } } });
    const atFirst = await resolved();
    assert.ok(atFirst.has('graphql'), 'the probe records the modules of the process');
    assert.deepEqual(
      LAZY.filter((m) => atFirst.has(m)),
      [],
    );

    const got = await fetch(`${proc.url}?query=${encodeURIComponent('{ user(id: 2) { id } }')}`, {
      headers: { accept: 'application/json' },
    });
    assert.equal(got.status, 200);
    assert.deepEqual(await got.json(), { data: { user: { id: '2' } } });
    assert.ok((await resolved()).has('graphql-yoga'));

    const streamed = await fetch(proc.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: '{ user(id: 3) { id } }' }),
    });
    assert.equal(streamed.status, 200);
    assert.match(await streamed.text(), /\nevent: next\ndata: \{"data":\{"user":\{"id":"3"\}\}\}\n\n/);
    assert.ok((await resolved()).has('graphql-sse'));
    assert.equal(users.requests.length, 3);
  });
});
