/**
 * The `operation` label cannot be used up (docs/hardening.md "Metrics"): after a client sends a
 * hundred junk operation names, a trusted document's name, a name in regular use and a new real
 * name all still show under their own label on /metrics. Over real HTTP against a real gateway;
 * the decay itself is checked on OperationLabels with a clock the test moves.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MAX_OPERATION_LABELS } from '../../gateway/observability/metrics.js';
import { OperationLabels } from '../../gateway/observability/operation-labels.js';
import { startGateway, type RunningGateway } from '../../gateway/server/start.js';
import { writeGatewayFiles, type GatewayFiles } from '../support/gateway.js';
import { parsePromText } from '../support/prom-text.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';

const SCHEMA = 'type Query { user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}") } type User { id: ID! name: String }';
const CHECKOUT = 'query CheckoutPage { user(id: "1") { name } }';

describe('operation labels over HTTP', () => {
  let users: CountingUpstream;
  let files: GatewayFiles;
  let gateway: RunningGateway;

  before(async () => {
    users = await startUpstream({ 'GET /users/:id': ({ params }) => ({ json: { id: params.id, name: 'A' } }) });
    files = await writeGatewayFiles({
      schemas: { 's.graphqls': SCHEMA },
      toml: `[gateway]\nhost = "127.0.0.1"\nport = 0\nschema = ["s.graphqls"]\npersisted_documents = "docs.json"\n\n[sources.users]\nurl = "${users.url}"\n`,
    });
    await writeFile(path.join(files.dir, 'docs.json'), JSON.stringify({ [createHash('sha256').update(CHECKOUT).digest('hex')]: CHECKOUT }));
    gateway = await startGateway({ configPath: files.configPath, port: 0 });
  });
  after(async () => {
    await gateway.close();
    await users.close();
    await files.cleanup();
  });

  const run = async (query: string) => {
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    assert.equal(res.status, 200, await res.text());
  };
  const counted = async () => {
    const text = parsePromText(await (await fetch(gateway.metricsUrl!)).text());
    const byName = new Map<string, number>();
    for (const s of text.samples) if (s.name === 'gqlgw_operation_rounds_count') byName.set(s.labels.operation!, s.value);
    return byName;
  };

  test('100+ junk names do not take the label from CheckoutPage, a page in use, or a new page', async () => {
    for (let i = 0; i < 3; i++) await run('query ProductPage { user(id: "2") { name } }');
    const junk = Array.from({ length: MAX_OPERATION_LABELS + 20 }, (_, i) => `query Junk${i} { user(id: "3") { name } }`);
    for (let i = 0; i < junk.length; i += 10) await Promise.all(junk.slice(i, i + 10).map(run));
    await run(CHECKOUT);
    await run('query ProductPage { user(id: "2") { name } }');
    await run('query SearchPage { user(id: "4") { name } }');
    const byName = await counted();
    assert.equal(byName.get('CheckoutPage'), 1);
    assert.equal(byName.get('ProductPage'), 4);
    assert.equal(byName.get('SearchPage'), 1);
    assert.equal(byName.get('other'), undefined);
    assert.ok(byName.size <= MAX_OPERATION_LABELS + 1, `${byName.size} operation label values`);
  });
});

describe('OperationLabels: decaying slots', () => {
  test('a name in use keeps its slot until it cools down; when every slot is in use a new name is "other"', () => {
    let now = 0;
    const evicted: string[] = [];
    const labels = new OperationLabels(
      2,
      1000,
      (name) => evicted.push(name),
      () => now,
    );
    assert.equal(labels.value('A'), 'A');
    assert.equal(labels.value('A'), 'A');
    assert.equal(labels.value('B'), 'B');
    assert.equal(labels.value('B'), 'B');
    assert.equal(labels.value('C'), 'other', 'A and B are in use (score 2)');
    now = 1500; // both halved below 1: a new name may take the colder one
    assert.equal(labels.value('C'), 'C');
    assert.deepEqual(evicted, ['A']);
    assert.equal(labels.value('not a name'), 'other');
    labels.pin(['A']);
    assert.equal(labels.value('A'), 'A', 'pinned: no slot needed');
    labels.pin([]);
    assert.deepEqual(evicted, ['A', 'A'], 'unpinned: its series go');
  });
});
