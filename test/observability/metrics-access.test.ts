/**
 * Who may read /metrics (docs/hardening.md "Metrics"): by default the GraphQL port serves it (the
 * quick start; with `introspection = false` only under a token, test/hardening/hidden-schema.test.ts),
 * `[metrics] token` asks for `Authorization: Bearer <token>`, and `[metrics] port`
 * moves it to a listener of its own, after which the GraphQL port answers it 404. The metrics name
 * fields, sources and operations: what an attacker should not read off the public port.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startGateway, type RunningGateway } from '../../gateway/server/start.js';
import { writeGatewayFiles, type GatewayFiles } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const SCHEMA = 'type Query { adminAuditLog: [String] @fetch(source: "billing_internal", path: "/audit") }';
const TOKEN = 'metrics-token-0123456789abcdef';

describe('metrics access: token and a port of their own', () => {
  let billing: CountingUpstream;
  const all: Array<{ files: GatewayFiles; gateway: RunningGateway }> = [];
  let plain: RunningGateway;
  let tokened: RunningGateway;
  let ported: RunningGateway;

  const start = async (metrics: string, introspection = false) => {
    const toml = `[gateway]\nhost = "127.0.0.1"\nport = 0\nschema = ["s.graphqls"]\nintrospection = ${introspection}\n\n[sources.billing_internal]\nurl = "${billing.url}"\n\n[metrics]\npath = "/metrics"\n${metrics}\n`;
    const files = await writeGatewayFiles({ schemas: { 's.graphqls': SCHEMA }, toml });
    const gateway = await startGateway({ configPath: files.configPath, port: 0 });
    all.push({ files, gateway });
    // One operation, so that the metrics name the field, the source and the operation.
    await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query AuditPage { adminAuditLog }' }),
    });
    return gateway;
  };

  before(async () => {
    billing = await startUpstream({ 'GET /audit': () => ({ json: ['a'] }) });
    plain = await start('', true);
    tokened = await start(`token = "${TOKEN}"`);
    ported = await start('port = 0\nhost = "127.0.0.1"');
  });
  after(async () => {
    for (const { files, gateway } of all) {
      await gateway.close();
      await files.cleanup();
    }
    await billing.close();
  });

  const origin = (g: RunningGateway) => new URL(g.url).origin;

  test('the default is unchanged: with introspection on, the GraphQL port serves /metrics to anyone', async () => {
    assert.equal(plain.metricsUrl, `${origin(plain)}/metrics`);
    const res = await fetch(`${origin(plain)}/metrics`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /gqlgw_subrequests_total\{coordinate="Query\.adminAuditLog",source="billing_internal"/);
  });

  test('[metrics] token: only "Authorization: Bearer <token>" reads them; 401 otherwise', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, TOKEN, `Basic ${TOKEN}`, `bearer  ${TOKEN}`]) {
      const res = await fetch(`${origin(tokened)}/metrics`, { headers: authorization ? { authorization } : {} });
      const text = await res.text();
      assert.equal(res.status, 401, String(authorization));
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      assert.doesNotMatch(text, /billing_internal|adminAuditLog|AuditPage/);
    }
    const ok = await fetch(`${origin(tokened)}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /gqlgw_operation_duration_seconds_count\{operation="AuditPage"\} 1/);
  });

  test('[metrics] port: the metrics on a listener of their own; the GraphQL port answers 404', async () => {
    const metricsUrl = new URL(ported.metricsUrl!);
    assert.equal(metricsUrl.hostname, '127.0.0.1');
    assert.notEqual(metricsUrl.port, new URL(ported.url).port);
    const onGraphQLPort = await fetch(`${origin(ported)}/metrics`);
    assert.equal(onGraphQLPort.status, 404);
    assert.doesNotMatch(await onGraphQLPort.text(), /billing_internal/);
    const res = await fetch(metricsUrl);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /source="billing_internal"/);
    assert.equal(
      (await fetch(`${metricsUrl.origin}/graphql?query=%7B__typename%7D`)).status,
      404,
      'the metrics listener serves no GraphQL',
    );
  });

  test('a bad token, port or path is a config error at its key', async () => {
    for (const [metrics, message] of [
      ['token = "short"', /metrics\.token must be at least 16 visible ASCII characters/],
      ['port = 70000', /metrics\.port/],
      ['path = "/graphql"', /metrics\.path must not be \/graphql, a path the gateway serves itself/],
    ] as const) {
      const files = await writeGatewayFiles({
        schemas: { 's.graphqls': SCHEMA },
        toml: `[gateway]\nschema = ["s.graphqls"]\n\n[sources.billing_internal]\nurl = "${billing.url}"\n\n[metrics]\n${metrics}\n`,
      });
      try {
        await assert.rejects(startGateway({ configPath: files.configPath, port: 0 }), (err: Error) => {
          assert.match(err.message, message);
          assert.match(err.message, /gateway\.toml:8:1/);
          return true;
        });
      } finally {
        await files.cleanup();
      }
    }
  });
});
