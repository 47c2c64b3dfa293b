/**
 * `introspection = false` hides the schema everywhere (SPEC "One caller cannot change another's
 * answer", docs/hardening.md "Metrics"): even with debug_headers on, no error carries a "did you
 * mean" suggestion (graphql-js validation, variable coercion, gqlgw's own messages), and the GraphQL
 * port answers the metrics path 404 when no `[metrics] token` guards it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const SCHEMA = `
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Query { adminAuditLog(kind: AuditKind): [String] @fetch(source: "billing_internal", path: "/audit") }
enum AuditKind { PAYMENTS REFUNDS }
type Invoice @key(fields: "id") { id: ID! total: Int }
`;

describe('introspection = false hides the schema from errors and metrics', () => {
  let billing: CountingUpstream;
  let gw: TestGateway;
  before(async () => {
    billing = await startUpstream({ 'GET /audit': () => ({ json: ['a'] }) });
    gw = await startTestGateway({
      schemas: { 's.graphqls': SCHEMA },
      toml: `[gateway]\nhost = "127.0.0.1"\nport = 0\nschema = ["s.graphqls"]\ndebug_headers = true\nintrospection = false\n\n[sources.billing_internal]\nurl = "${billing.url}"\n\n[metrics]\npath = "/metrics"\n`,
    });
    await gw.query('query AuditPage { adminAuditLog }');
  });
  after(async () => {
    await gw?.close();
    await billing?.close();
  });

  test('no error names what it suggests, even in debug mode', async () => {
    const cases: Array<[string, Record<string, unknown> | undefined]> = [
      ['{ adminAuditLo }', undefined],
      ['{ adminAuditLog(kin: PAYMENTS) }', undefined],
      ['{ adminAuditLog(kind: PAYMENT) }', undefined],
      ['query ($k: AuditKnd) { adminAuditLog(kind: $k) }', undefined],
      ['query ($k: AuditKind) { adminAuditLog(kind: $k) }', { k: 'PAYMENT' }],
      ['{ _entities(representations: [{__typename: "Invoic", id: "1"}]) { __typename } }', undefined],
    ];
    for (const [query, variables] of cases) {
      const res = await gw.query(query, variables);
      assert.ok((res.body.errors?.length ?? 0) > 0, query);
      assert.doesNotMatch(res.text, /did you mean|adminAuditLog\b.*\?|"AuditKind"|PAYMENTS|"Invoice"/i, `${query}: ${res.text}`);
    }
  });

  test('the metrics path on the GraphQL port answers 404 without [metrics] token', async () => {
    const res = await gw.get('/metrics');
    assert.equal(res.status, 404);
    assert.doesNotMatch(res.text, /billing_internal|adminAuditLog|AuditPage/);
  });
});
