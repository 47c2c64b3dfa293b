/**
 * The importer on an API in Zendesk's style (docs/openapi.md "Envelopes"; fixtures/zendesk-style.json):
 * GET-by-id paths with a suffix (`/users/{user_id}.json`), answers in one-key envelopes
 * (`{"user": {...}}` → `select: "user"`), and a `show_many.json?ids=` operation answering
 * `{"users": [...], "next_page": null, "count": 2}` (→ `@batch(select: "users")`). The import passes
 * `gqlgw check --strict`, and the served result answers a page of tickets with their users in 2
 * calls to a real counting upstream. An envelope with several lists is reported, not guessed.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { importOpenApi } from '../../gateway/import/import-openapi.js';
import { debugCounts } from '../support/gateway.js';
import { splitIds, startUpstream } from '../support/upstream.js';
import { FIXTURES, importSpec, startChecked } from './support.js';

const FIXTURE = path.join(FIXTURES, 'zendesk-style.json');
const TICKETS = Array.from({ length: 30 }, (_, i) => ({
  id: 9000 + i,
  subject: `ticket ${i}`,
  requester_id: (i % 7) + 1,
  user_id: (i % 5) + 1,
}));
const userOf = (id: number) => ({ id, name: `user ${id}` });

describe('gqlgw import openapi on enveloped answers', () => {
  test('suffixed by-id paths and one-key envelopes become links with select, show_many a @batch with select', async () => {
    const result = await importOpenApi(FIXTURE, 'zd');
    const types = [...result.files.values()].join('\n');
    assert.match(
      types,
      /showUser\(user_id: Int64!\): User @fetch\(source: "zd", path: "\/users\/\{args\.user_id\}\.json", select: "user"\)/,
    );
    assert.match(
      types,
      /showTicket\(ticket_id: Int64!\): Ticket @fetch\(source: "zd", path: "\/tickets\/\{args\.ticket_id\}\.json", select: "ticket"\)/,
    );
    assert.match(
      types,
      /\buser: User @fetch\(source: "zd", path: "\/users\/\{parent\.user_id\}\.json", select: "user"\) @batch\(path: "\/users\/show_many\.json\?ids=\{keys\}", match: "id", select: "users"\)/,
    );
    // The list answer with other keys beside its list keeps its envelope type.
    assert.match(types, /listTickets: TicketsResponse @fetch\(source: "zd", path: "\/tickets\.json"\)/);
  });

  test('the served import answers a page of tickets with their users in 2 calls', async () => {
    const imported = await importSpec(FIXTURE, 'zd');
    const upstream = await startUpstream({
      'GET /api/v2/tickets.json': () => ({ json: { tickets: TICKETS, next_page: null, count: TICKETS.length } }),
      'GET /api/v2/users/show_many.json': (r) => ({
        json: { users: splitIds(r.query.get('ids')).map((id) => userOf(Number(id))), next_page: null, count: 5 },
      }),
      'GET /api/v2/users/:file': (r) => ({ json: { user: userOf(Number(r.params.file.replace('.json', ''))) } }),
    });
    const gateway = await startChecked(imported, upstream.url);
    try {
      const res = await gateway.query('{ listTickets { tickets { subject user { name } } } }');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data, {
        listTickets: { tickets: TICKETS.map((t) => ({ subject: t.subject, user: { name: `user ${t.user_id}` } })) },
      });
      assert.deepEqual(debugCounts(res), { rounds: 2, subrequests: 2, batches: 1 });
      assert.equal(upstream.count('GET /api/v2/users/show_many.json'), 1);
      assert.deepEqual(splitIds(upstream.requests.at(-1)!.query.get('ids')).sort(), ['1', '2', '3', '4', '5']);
      const one = await gateway.query('{ showUser(user_id: 3) { name } }');
      assert.deepEqual(one.body.data, { showUser: { name: 'user 3' } });
    } finally {
      await gateway.close();
      await upstream.close();
      await rm(imported.dir, { recursive: true, force: true });
    }
  });

  test('a many-by-ids answer with several lists is reported, not guessed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-envelope-'));
    try {
      const doc = JSON.parse(await readFile(FIXTURE, 'utf8')) as {
        components: { schemas: Record<string, { properties: Record<string, unknown> }> };
      };
      doc.components.schemas.UsersResponse!.properties.groups = { type: 'array', items: { type: 'string' } };
      (doc as unknown as { paths: Record<string, unknown> }).paths['/limits.json'] = {
        get: {
          operationId: 'Limits',
          responses: {
            200: {
              description: 'ok',
              content: {
                'application/json': { schema: { type: 'object', properties: { public_ips: { $ref: '#/components/schemas/User' } } } },
              },
            },
          },
        },
      };
      const file = path.join(dir, 'api.json');
      await writeFile(file, JSON.stringify(doc));
      const result = await importOpenApi(file, 'zd');
      const types = [...result.files.values()].join('\n');
      assert.doesNotMatch(types, /@batch/);
      assert.match(types, /limits: LimitsResponse @fetch\(source: "zd", path: "\/limits\.json"\)\n/);
      const warning = result.warnings.find((w) => /several lists/.test(w.message));
      assert.ok(warning, result.warnings.map((w) => w.message).join('\n'));
      assert.match(warning.message, /\("users", "groups"\)/);
      // A one-key object whose key the path does not name is a domain type, not an envelope.
      assert.match(types, /showManyUsers\(ids: \[Int64\]!\): UsersResponse @fetch\(source: "zd", path: "[^"]+"\)\n/);
      assert.match(types, /showTicket\(ticket_id: Int64!\): Ticket @fetch\([^)]*select: "ticket"\)/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
