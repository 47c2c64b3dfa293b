/**
 * Without [tracing] no OpenTelemetry module is loaded (docs/observability.md): a real `gqlgw serve`
 * child process, preloaded with a resolution hook that records every module it resolves, serves
 * a query; none of its modules is an @opentelemetry package. With [tracing] the same probe sees
 * them, so the probe can fail.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { writeGatewayFiles, type GatewayFiles } from '../support/gateway.js';
import { serveCli } from '../support/cli.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const PROBE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../support/module-probe.js');
const SCHEMA = 'type Query { user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}") }\ntype User { id: ID! }';

describe('[tracing] absent: nothing of OpenTelemetry is loaded', () => {
  let users: CountingUpstream;
  before(async () => {
    users = await startUpstream({ 'GET /users/:id': ({ params }) => ({ json: { id: params.id } }) });
  });
  after(async () => {
    await users?.close();
  });

  async function modulesLoaded(extraToml: string): Promise<string[]> {
    const files: GatewayFiles = await writeGatewayFiles({
      sources: { users: { url: users.url } },
      schemas: { 's.graphqls': SCHEMA },
      extraToml,
    });
    const probeFile = path.join(files.dir, 'modules.txt');
    process.env.MODULE_PROBE_FILE = probeFile;
    try {
      const proc = await serveCli(files.configPath, [], ['--import', PROBE]);
      try {
        const res = await fetch(proc.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` },
          body: JSON.stringify({ query: '{ user(id: 1) { id } }' }),
        });
        assert.deepEqual(((await res.json()) as { data: unknown }).data, { user: { id: '1' } });
        assert.equal(users.requests.at(-1)?.headers.traceparent === undefined, !extraToml.includes('[tracing]'));
      } finally {
        proc.child.kill('SIGTERM');
        await proc.exited;
      }
      return (await readFile(probeFile, 'utf8')).split('\n').filter(Boolean);
    } finally {
      delete process.env.MODULE_PROBE_FILE;
      await files.cleanup();
    }
  }

  it('serves without resolving any @opentelemetry module, and does with [tracing]', async () => {
    const off = await modulesLoaded('');
    assert.ok(
      off.some((m) => m === 'graphql'),
      'the probe records the modules of the process',
    );
    assert.deepEqual(
      off.filter((m) => m.includes('opentelemetry') || m.includes('observability/tracing')),
      [],
    );
    // A short export timeout: the exit's flush to the closed port waits no longer than that.
    const on = await modulesLoaded('[tracing]\notlp_endpoint = "http://127.0.0.1:9/v1/traces"\nexport_timeout_ms = 200\n');
    assert.ok(
      on.some((m) => m.startsWith('@opentelemetry/')),
      'with [tracing] the probe sees OpenTelemetry',
    );
    assert.ok(on.includes('../observability/tracing.js'));
  });
});
