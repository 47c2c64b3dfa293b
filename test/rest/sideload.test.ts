/**
 * `@sideload` end to end (docs/rest-shapes.md "Sideloads", SPEC "Real APIs' manners") against
 * counting upstreams: a Zendesk-shaped API whose ticket page carries `users` and `organizations`
 * beside `tickets`, and a JSON:API one whose `included` mixes types. Each test counts what reached
 * the upstreams and reads X-GQL-Subrequests; one gateway serves every end-to-end test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'graphql';
import { buildBlueprint } from '../../gateway/blueprint/build.js';
import { loadConfig } from '../../gateway/config/load.js';
import { buildPlan } from '../../gateway/plan/build.js';
import { printPlan } from '../../gateway/plan/print.js';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { schemaProblems } from '../support/schema-problems.js';
import { until } from '../support/wait.js';

const USERS: Record<string, { id: number; name: string }> = {
  '1': { id: 1, name: 'Ann' },
  '2': { id: 2, name: 'Bo' },
  '3': { id: 3, name: 'Cy' },
  '7': { id: 7, name: 'Dee' },
};
const ORGS: Record<string, { id: number; name: string }> = { '10': { id: 10, name: 'Acme' } };
const TICKETS = [
  { id: 100, subject: 'Printer', requester_id: 1, assignee_id: 2, organization_id: 10 },
  { id: 101, subject: 'Login', requester_id: 3, assignee_id: 2, organization_id: 10 },
];

/** `{ids}` of a show_many request, as the ids asked. */
const idsOf = (query: URLSearchParams): string[] => (query.get('ids') ?? '').split(',').filter((s) => s !== '');
/** `5.json` → `5`. */
const idOfFile = (file: string): string => file.replace(/\.json$/, '');

function startZendesk(): Promise<CountingUpstream> {
  return startUpstream({
    'GET /api/v2/tickets.json': ({ query }) => {
      const include = (query.get('include') ?? '').split(',');
      return {
        json: {
          tickets: TICKETS,
          ...(include.includes('users') ? { users: [USERS['1'], USERS['2'], USERS['3'], { name: 'no id' }] } : {}),
          ...(include.includes('organizations') ? { organizations: Object.values(ORGS) } : {}),
        },
      };
    },
    // The requester of this page (7) is not in its sideload: it is fetched.
    'GET /api/v2/tickets/open.json': () => ({
      json: { tickets: [{ id: 102, subject: 'Open', requester_id: 7, assignee_id: 2, organization_id: 10 }], users: [USERS['2']] },
    }),
    // Answered late, so that a second request joins the call in flight.
    'GET /api/v2/tickets/slow.json': () => ({ json: { tickets: TICKETS, users: Object.values(USERS) }, delayMs: 600 }),
    'GET /api/v2/users/show_many.json': ({ query }) => ({ json: { users: idsOf(query).flatMap((id) => USERS[id] ?? []) } }),
    'GET /api/v2/organizations/show_many.json': ({ query }) => ({
      json: { organizations: idsOf(query).flatMap((id) => ORGS[id] ?? []) },
    }),
    'GET /api/v2/users/:file': ({ params }) => {
      const user = USERS[idOfFile(params.file)];
      return user ? { json: { user } } : { status: 404, json: { error: 'RecordNotFound' } };
    },
  });
}

const person = (id: string, name: string): object => ({ type: 'people', id, attributes: { name } });
const comment = (id: string, body: string): object => ({ type: 'comments', id, attributes: { body } });

function startJsonApi(): Promise<CountingUpstream> {
  return startUpstream({
    'GET /articles': () => ({
      json: {
        data: [
          {
            type: 'articles',
            id: '1',
            attributes: { title: 'Sideloads' },
            relationships: { author: { data: { type: 'people', id: '9' } }, lastComment: { data: { type: 'comments', id: '9' } } },
          },
        ],
        // A person and a comment with the same id: `when` tells them apart.
        included: [comment('9', 'First!'), person('9', 'Dan')],
      },
    }),
    'GET /people/:id': ({ params }) => ({ json: { data: person(params.id, `person ${params.id}`) } }),
    'GET /comments/:id': ({ params }) => ({ json: { data: comment(params.id, `comment ${params.id}`) } }),
  });
}

const USER_BATCH = '@batch(path: "/api/v2/users/show_many.json?ids={keys}", match: "id", select: "users")';
const SCHEMA = `
type Query {
  tickets: [Ticket!]! @fetch(source: "zd", path: "/api/v2/tickets.json?include=users,organizations", select: "tickets")
    @sideload(select: "users", path: "/api/v2/users/{key}.json")
    @sideload(select: "organizations", path: "/api/v2/organizations/{key}.json")
  plainTickets: [Ticket!]! @fetch(source: "zd", path: "/api/v2/tickets.json", select: "tickets")
  openTickets: [Ticket!]! @fetch(source: "zd", path: "/api/v2/tickets/open.json", select: "tickets")
    @sideload(select: "users", path: "/api/v2/users/{key}.json")
  slowTickets: [Ticket!]! @fetch(source: "zd", path: "/api/v2/tickets/slow.json", select: "tickets")
    @sideload(select: "users", path: "/api/v2/users/{key}.json")
  user(id: ID!): User @fetch(source: "zd", path: "/api/v2/users/{args.id}.json", select: "user") @cache(ttl: 60)
  articles: [Article!]! @fetch(source: "api", path: "/articles?include=author,lastComment", select: "data")
    @sideload(select: "included", path: "/people/{key}", when: "type=people")
    @sideload(select: "included", path: "/comments/{key}", when: "type=comments")
}
type Ticket {
  id: ID!
  subject: String!
  requesterId: ID @from(key: "requester_id")
  assigneeId: ID @from(key: "assignee_id")
  organizationId: ID @from(key: "organization_id")
  requester: User @fetch(source: "zd", path: "/api/v2/users/{parent.requesterId}.json", select: "user") ${USER_BATCH} @cache(ttl: 60)
  assignee: User @fetch(source: "zd", path: "/api/v2/users/{parent.assigneeId}.json", select: "user") ${USER_BATCH}
  organization: Organization
    @fetch(source: "zd", path: "/api/v2/organizations/{parent.organizationId}.json", select: "organization")
    @batch(path: "/api/v2/organizations/show_many.json?ids={keys}", match: "id", select: "organizations")
}
type User { id: ID! name: String! }
type Organization { id: ID! name: String! }
type Article {
  id: ID!
  title: String @from(path: "attributes.title")
  authorId: ID @from(path: "relationships.author.data.id")
  lastCommentId: ID @from(path: "relationships.lastComment.data.id")
  author: Person @fetch(source: "api", path: "/people/{parent.authorId}", select: "data")
  lastComment: Comment @fetch(source: "api", path: "/comments/{parent.lastCommentId}", select: "data")
}
type Person { id: ID! name: String @from(path: "attributes.name") }
type Comment { id: ID! body: String @from(path: "attributes.body") }
`;

const PAGE = '{ requester { name } assignee { name } organization { name } }';

describe('@sideload', () => {
  let zd: CountingUpstream;
  let api: CountingUpstream;
  let gw: TestGateway;

  before(async () => {
    [zd, api] = await Promise.all([startZendesk(), startJsonApi()]);
    gw = await startTestGateway({
      sources: { zd: { url: zd.url, forwardHeaders: ['authorization'] }, api: { url: api.url } },
      schemas: { 'schema.graphqls': SCHEMA },
    });
  });
  after(async () => {
    await gw?.close();
    await Promise.all([zd?.close(), api?.close()]);
  });

  test('a Zendesk ticket page with requester, assignee and organization costs 1 call with sideloads, 3 without', async () => {
    zd.reset();
    const without = await gw.query(`{ plainTickets ${PAGE} }`, undefined, { authorization: 'Bearer plain' });
    assert.deepEqual(without.body.errors, undefined);
    assert.equal(debugCounts(without).subrequests, 3);
    assert.deepEqual(
      zd.requests.map((r) => r.route),
      ['GET /api/v2/tickets.json', 'GET /api/v2/users/show_many.json', 'GET /api/v2/organizations/show_many.json'],
    );

    zd.reset();
    const withSideloads = await gw.query(`{ tickets ${PAGE} }`, undefined, { authorization: 'Bearer page' });
    assert.deepEqual(withSideloads.body.errors, undefined);
    assert.deepEqual(withSideloads.body.data?.tickets, without.body.data?.plainTickets);
    assert.deepEqual(
      withSideloads.body.data?.tickets,
      TICKETS.map((t) => ({
        requester: { name: USERS[t.requester_id]!.name },
        assignee: { name: USERS[t.assignee_id]!.name },
        organization: { name: 'Acme' },
      })),
    );
    assert.equal(debugCounts(withSideloads).subrequests, 1);
    assert.equal(debugCounts(withSideloads).batches, 0);
    assert.deepEqual(
      zd.requests.map((r) => r.url),
      ['/api/v2/tickets.json?include=users,organizations'],
    );
  });

  test('a key the sideload lacks is fetched as usual; one it holds is not', async () => {
    zd.reset();
    const res = await gw.query(`{ openTickets { requester { name } assignee { name } } }`);
    assert.deepEqual(res.body.data, { openTickets: [{ requester: { name: 'Dee' }, assignee: { name: 'Bo' } }] });
    assert.equal(debugCounts(res).subrequests, 2);
    assert.deepEqual(
      zd.requests.map((r) => r.url),
      ['/api/v2/tickets/open.json', '/api/v2/users/show_many.json?ids=7'],
    );
  });

  test('a request that joined the page call in flight takes its sideloads too', async () => {
    zd.reset();
    const query = '{ slowTickets { requester { name } assignee { name } } }';
    const leader = gw.query(query, undefined, { authorization: 'Bearer same' });
    await until(() => zd.count('GET /api/v2/tickets/slow.json') === 1, 'the first request reached the page');
    const [first, second] = await Promise.all([leader, gw.query(query, undefined, { authorization: 'Bearer same' })]);
    assert.deepEqual(second.body.data, first.body.data);
    assert.deepEqual(first.body.data?.slowTickets, [
      { requester: { name: 'Ann' }, assignee: { name: 'Bo' } },
      { requester: { name: 'Cy' }, assignee: { name: 'Bo' } },
    ]);
    assert.deepEqual([debugCounts(first).subrequests, debugCounts(second).subrequests], [1, 0]);
    assert.deepEqual(
      zd.requests.map((r) => r.url),
      ['/api/v2/tickets/slow.json'],
    );
  });

  test('JSON:API included answers its type/id lookups, each only of its `when` type', async () => {
    api.reset();
    const res = await gw.query('{ articles { title author { id name } lastComment { id body } } }');
    assert.deepEqual(res.body.data, {
      articles: [{ title: 'Sideloads', author: { id: '9', name: 'Dan' }, lastComment: { id: '9', body: 'First!' } }],
    });
    assert.equal(debugCounts(res).subrequests, 1);
    assert.deepEqual(
      api.requests.map((r) => r.url),
      ['/articles?include=author,lastComment'],
    );
  });

  test('a sideloaded object of a @cache field is a 0-call hit later, for its own caller only', async () => {
    const alice = { authorization: 'Bearer alice' };
    const bob = { authorization: 'Bearer bob' };
    zd.reset();
    const page = await gw.query(`{ tickets { requester { name } } }`, undefined, alice);
    assert.equal(debugCounts(page).subrequests, 1);
    // User 1 was a requester (a @cache field): kept under alice's partition, with user(id:)'s very key.
    const hit = await gw.query('{ user(id: "1") { name } }', undefined, alice);
    assert.deepEqual(hit.body.data, { user: { name: 'Ann' } });
    assert.equal(debugCounts(hit).subrequests, 0);
    const other = await gw.query('{ user(id: "1") { name } }', undefined, bob);
    assert.deepEqual(other.body.data, { user: { name: 'Ann' } });
    assert.equal(debugCounts(other).subrequests, 1);
    // User 2 was only an assignee (no @cache): nothing kept, so it is fetched.
    const assignee = await gw.query('{ user(id: "2") { name } }', undefined, alice);
    assert.equal(debugCounts(assignee).subrequests, 1);
    assert.deepEqual(
      zd.requests.map((r) => [r.url, r.headers.authorization]),
      [
        ['/api/v2/tickets.json?include=users,organizations', 'Bearer alice'],
        ['/api/v2/users/1.json', 'Bearer bob'],
        ['/api/v2/users/2.json', 'Bearer alice'],
      ],
    );
  });

  test('gqlgw plan shows what each sideload answers', () => {
    const blueprint = buildBlueprint(loadConfig(gw.files.configPath));
    const text = printPlan(buildPlan(blueprint, parse(`{ tickets ${PAGE} }`))!);
    const lines = text.split('\n');
    const line = (start: string): string =>
      lines.find((l) => l.trimStart().startsWith(start)) ?? assert.fail(`no line ${start} in\n${text}`);
    assert.match(
      line('tickets '),
      /, sideload users as \/api\/v2\/users\/\{key\}\.json \(match id\), sideload organizations as \/api\/v2\/organizations\/\{key\}\.json \(match id\)$/,
    );
    assert.match(line('tickets.requester '), /, no call for a key the sideload users of tickets holds$/);
    assert.match(line('tickets.organization '), /, no call for a key the sideload organizations of tickets holds$/);
    // Without a sideloading field before it, the same lookup is batched as usual.
    assert.doesNotMatch(printPlan(buildPlan(blueprint, parse(`{ plainTickets ${PAGE} }`))!), /sideload/);
  });
});

test('@sideload is checked when the schema compiles, with file:line:col', async () => {
  const sdl = (directives: string, fieldExtra = ''): string => `type Query {
  users: [User] @fetch(source: "zd", path: "/users.json", select: "users")${fieldExtra}
    ${directives}
  user(id: ID!): User @fetch(source: "zd", path: "/users/{args.id}.json", select: "user")
}
type User { id: ID! }`;
  const problems = async (directives: string, fieldExtra?: string): Promise<string[]> =>
    schemaProblems(sdl(directives, fieldExtra), ['zd']);
  assert.deepEqual(await problems('@sideload(select: "users", path: "/users/{key}.json")'), []);
  assert.deepEqual(await problems('@sideload(select: "users", path: "/users/{key}/{key}.json")'), [
    '3:5: @sideload on Query.users: path "/users/{key}/{key}.json" must hold {key} exactly once (found 2), where the match value goes, such as path: "/api/v2/users/{key}.json"',
  ]);
  assert.deepEqual(await problems('@sideload(select: "users", path: "/users/{args.id}.json")'), [
    '3:5: @sideload on Query.users: path "/users/{args.id}.json" must hold {key} exactly once (found 0), where the match value goes, such as path: "/api/v2/users/{key}.json"',
  ]);
  assert.deepEqual(await problems('@sideload(select: "users", path: "/users/{key}.json", when: "type")'), [
    '3:5: @sideload on Query.users: when "type" must be KEY=VALUE, a dotted key of the object and the value it must have, such as when: "type=people"',
  ]);
  assert.deepEqual(await problems('@sideload(selct: "users", path: "/users/{key}.json")'), [
    '3:15: Unknown argument "selct" on directive "@sideload". Did you mean "select"?',
    '3:5: Directive "@sideload" argument "select" of type "String!" is required, but it was not provided.',
  ]);
  assert.deepEqual(await problems('@sideload(select: "users", path: "/user/{key}.json")'), [
    '3:5: @sideload on Query.users: no field of source "zd" has a single GET @fetch path that reads "/user/{key}.json" with its one placeholder as {key}, so it would answer nothing; did you mean "/users/{key}.json"?',
  ]);
  const besideBatch = await problems(
    '@sideload(select: "users", path: "/users/{key}.json")',
    ' @batch(path: "/users?ids={keys}", match: "id")',
  );
  assert.ok(
    besideBatch.includes('3:5: @sideload on Query.users: a @batch answer is split per key; put @sideload on a field with a single @fetch'),
    besideBatch.join('\n'),
  );
});
