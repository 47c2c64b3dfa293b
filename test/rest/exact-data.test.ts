/**
 * Exact data in both directions (issue 45; docs/reference.md "Exact integers"), against a real
 * counting upstream whose request lines and bodies are asserted as received:
 * - a JSON number beyond 2^53 in `variables` reaches the URL and a mutation's PUT with its digits,
 *   through every entrance; `Int` and `Float` refuse it;
 * - an `Int64` literal keeps its digits, and `Int64` fields are JSON strings of digits in both
 *   writers (the fast path's data writer and yoga's shaper), small or large;
 * - a body member whose argument was not given is left out, `null` only when given null;
 * - `@from(key:)` on an input field is its wire name where its object renders (a @batch body too);
 * - brackets around no placeholder are literal in a path's query;
 * - a `{auth.sub}` that cannot be a header value is a BAD_USER_INPUT naming the header, nothing sent.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type GraphQLResult, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { sendThrough, type Entrance } from '../support/entrances.js';
import { keySet, makeKey, mintToken, type TestKey } from '../support/identity.js';

const ISSUER = 'https://id.test.invalid';
const AUDIENCE = 'gqlgw';
const BIG = '9007199254741001';

const SCHEMA = `
scalar Int64
type Query {
  ticket(id: ID!): Ticket @fetch(source: "zd", path: "/tickets/{args.id}.json")
  showTicket(ticket_id: Int64!): Ticket @fetch(source: "zd", path: "/tickets/{args.ticket_id}.json")
  sized(n: Int!): Ticket @fetch(source: "zd", path: "/sized/{args.n}")
  scored(x: Float!): Ticket @fetch(source: "zd", path: "/scored/{args.x}")
  tickets: [Ticket] @fetch(source: "zd", path: "/tickets.json")
  odd: Ticket @fetch(source: "zd", path: "/odd.json")
  foo: Foo @fetch(source: "zd", path: "/foo")
  me: Person @fetch(source: "people", path: "/me")
}
type Ticket { id: ID  big: Int64  small: Int64  assignee: Int64 }
type Foo {
  barId: ID
  bar: Bar @fetch(source: "zd", path: "/bar?baz=static_value&barId[]={parent.barId}&page[size]=25")
  barFor(patch: AssignPatch): Bar @fetch(source: "zd", path: "/bar/{parent.barId}")
    @batch(method: "POST", path: "/bars", body: """{"ids": {keys}, "patch": {args.patch}}""", match: "id")
}
type Bar { name: String }
type Person { name: String }
input TicketPatch { status: String  priority: String }
input AssignPatch { assigneeId: ID @from(key: "assignee_id")  status: String  tags: [TagInput!] }
input TagInput { tagName: String @from(key: "tag_name") }
type Mutation {
  link(ticket_id: Int64!): Ticket @fetch(source: "zd", method: "POST", path: "/links", body: """{"ticket_id": {args.ticket_id}}""")
  assignTicket(id: ID!, patch: AssignPatch!): Ticket
    @fetch(source: "zd", method: "PUT", path: "/tickets/{args.id}.json?assignee={args.patch.assigneeId}",
           body: """{"ticket": {args.patch}, "who": {args.patch.assigneeId}, "text": "{args.patch.tags}"}""")
  updateTicket(id: ID!, patch: TicketPatch!): Ticket
    @fetch(source: "zd", method: "PUT", path: "/tickets/{args.id}.json",
           body: """{"ticket": {"status": {args.patch.status}, "priority": {args.patch.priority}}}""")
}
`;

/** A ticket as the source writes it: ids as raw JSON digits, never through a double. */
const ticketJson = (id: string): string => `{"id": ${id}, "big": ${id}, "small": 1001, "assignee": "42"}`;

describe('exact data in both directions', () => {
  let zd: CountingUpstream;
  let people: CountingUpstream;
  let gw: TestGateway;
  let key: TestKey;
  let dir: string;

  before(async () => {
    key = await makeKey('ES256', 'ec-1');
    dir = await mkdtemp(path.join(tmpdir(), 'gqlgw-exact-'));
    const jwksFile = path.join(dir, 'jwks.json');
    await writeFile(jwksFile, JSON.stringify(keySet([key])));
    const raw = (text: string) => ({ body: text, headers: { 'content-type': 'application/json' } });
    zd = await startUpstream({
      'GET /tickets.json': () => raw(`[${ticketJson('9007199254740993')}, ${ticketJson('1001')}]`),
      'GET /tickets/:file': ({ params }) => raw(ticketJson(params.file.replace(/\.json$/, ''))),
      'PUT /tickets/:file': ({ params }) => raw(ticketJson(params.file.replace(/\.json$/, ''))),
      'POST /links': () => raw(ticketJson('5')),
      'GET /foo': () => ({ json: { barId: 'b7' } }),
      'GET /odd.json': () => raw('{"id": 3, "big": "12abc", "small": 123456789012345678901234567890, "assignee": 2}'),
      'GET /bar': () => ({ json: { name: 'bar' } }),
      'POST /bars': () => ({ json: [{ id: 'b7', name: 'bar b7' }] }),
    });
    people = await startUpstream({ 'GET /me': ({ headers }) => ({ json: { name: `person ${String(headers['x-user'])}` } }) });
    gw = await startTestGateway({
      sources: { zd: { url: zd.url }, people: { url: people.url, extra: 'headers = { "x-user" = "{auth.sub}" }' } },
      schemas: { 'schema.graphqls': SCHEMA },
      debugMode: false,
      extraToml: `[auth]\njwks = ${JSON.stringify(jwksFile)}\nissuer = "${ISSUER}"\naudience = "${AUDIENCE}"\n`,
    });
  });
  after(async () => {
    await gw?.close();
    await Promise.all([zd?.close(), people?.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  /** Sends `{"query": query, "variables": variablesText}` through an entrance, the variables as raw JSON text. */
  const send = async (entrance: Entrance, query: string, variablesText: string): Promise<GraphQLResult> => {
    const response =
      entrance === 'get'
        ? await fetch(`${gw.url}?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(variablesText)}`)
        : await sendThrough(entrance, gw.url, `{"query": ${JSON.stringify(query)}, "variables": ${variablesText}}`);
    return (await response.json()) as GraphQLResult;
  };

  it('a JSON number beyond 2^53 for an ID reaches the URL with its digits, through every entrance', async () => {
    for (const entrance of ['fast', 'yoga', 'get', 'graphqlResponse'] as const) {
      zd.reset();
      const body = await send(entrance, 'query($id: ID!) { ticket(id: $id) { id } }', `{"id": ${BIG}}`);
      assert.deepEqual(body.data, { ticket: { id: BIG } }, entrance);
      assert.deepEqual(
        zd.requests.map((r) => `${r.method} ${r.url}`),
        [`GET /tickets/${BIG}.json`],
        entrance,
      );
    }
  });

  it('a mutation PUTs to the exact id given as a JSON number', async () => {
    zd.reset();
    const query = 'mutation($id: ID!) { updateTicket(id: $id, patch: {status: "open"}) { id } }';
    // The fast path hands a mutation to yoga with the body it read; a chunked body goes to yoga directly.
    for (const entrance of ['fast', 'yoga'] as const) {
      const body = await send(entrance, query, `{"id": ${BIG}}`);
      assert.deepEqual(body.data, { updateTicket: { id: BIG } }, entrance);
    }
    const put = `PUT /tickets/${BIG}.json {"ticket": {"status": "open"}}`;
    assert.deepEqual(
      zd.requests.map((r) => `${r.method} ${r.url} ${r.body}`),
      [put, put],
    );
  });

  it('Int and Float refuse a number beyond 2^53 with BAD_USER_INPUT, on every entrance, and nothing is sent', async () => {
    zd.reset();
    for (const entrance of ['fast', 'yoga', 'get'] as const) {
      for (const [query, name] of [
        ['query($n: Int!) { sized(n: $n) { id } }', 'n'],
        ['query($x: Float!) { scored(x: $x) { id } }', 'x'],
      ] as const) {
        const body = await send(entrance, query, `{"${name}": ${BIG}}`);
        assert.equal(body.data, undefined, `${entrance} ${name}: ${JSON.stringify(body)}`);
        assert.equal(body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', `${entrance} ${name}: ${JSON.stringify(body)}`);
        assert.match(body.errors![0]!.message, new RegExp(`\\$${name}`));
      }
    }
    // Literals: a too large Int is graphql-js's validation error; a Float literal is refused, never rounded.
    const intLiteral = await gw.query(`{ sized(n: ${BIG}) { id } }`);
    assert.equal(intLiteral.body.errors?.[0]?.extensions?.code, 'GRAPHQL_VALIDATION_FAILED');
    const floatLiteral = await gw.query(`{ scored(x: ${BIG}) { id } }`);
    assert.equal(floatLiteral.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', JSON.stringify(floatLiteral.body));
    assert.match(floatLiteral.body.errors![0]!.message, /Float cannot represent exactly the integer 9007199254741001/);
    assert.equal(zd.count(), 0);
  });

  it('an Int64 argument keeps the digits of a literal, a JSON number and a string of digits', async () => {
    zd.reset();
    const literal = await gw.query(`{ showTicket(ticket_id: ${BIG}) { id } }`);
    assert.deepEqual(literal.body, { data: { showTicket: { id: BIG } } });
    const number = await send('fast', 'query($t: Int64!) { showTicket(ticket_id: $t) { id } }', `{"t": ${BIG}}`);
    assert.deepEqual(number, { data: { showTicket: { id: BIG } } });
    const text = await send('yoga', 'query($t: Int64!) { showTicket(ticket_id: $t) { id } }', `{"t": "${BIG}"}`);
    assert.deepEqual(text, { data: { showTicket: { id: BIG } } });
    assert.deepEqual(
      zd.requests.map((r) => r.url),
      [`/tickets/${BIG}.json`, `/tickets/${BIG}.json`, `/tickets/${BIG}.json`],
    );
    // In a body: a JSON number within 2^53, beyond it the string of its exact digits.
    zd.reset();
    await gw.query(`mutation { a: link(ticket_id: 77) { id } }`);
    await gw.query(`mutation { b: link(ticket_id: ${BIG}) { id } }`);
    assert.deepEqual(
      zd.requests.map((r) => r.body),
      ['{"ticket_id": 77}', `{"ticket_id": "${BIG}"}`],
    );
    zd.reset();
    const bad = await gw.query('{ showTicket(ticket_id: "12a") { id } }');
    assert.equal(bad.body.errors?.[0]?.extensions?.code, 'GRAPHQL_VALIDATION_FAILED', JSON.stringify(bad.body));
    assert.equal(zd.count(), 0, 'nothing sent for a value Int64 refuses');
  });

  it('Int64 fields are JSON strings of digits, small or large, and both writers write the same bytes', async () => {
    const query = '{ tickets { big small assignee } }';
    const fast = await sendThrough('fast', gw.url, { query });
    const yoga = await sendThrough('get', gw.url, { query });
    const fastText = await fast.text();
    assert.equal(fastText, await yoga.text());
    assert.equal(
      fastText,
      '{"data":{"tickets":[{"big":"9007199254740993","small":"1001","assignee":"42"},{"big":"1001","small":"1001","assignee":"42"}]}}',
    );
  });

  it('a source value that is no Int64 is UPSTREAM_BAD_RESPONSE at its path, its value not shown, alike on both writers', async () => {
    const query = '{ odd { id big small assignee } }';
    const texts = await Promise.all((['fast', 'get', 'yoga'] as const).map(async (e) => (await sendThrough(e, gw.url, { query })).text()));
    assert.equal(texts[1], texts[0]);
    assert.equal(texts[2], texts[0]);
    const body = JSON.parse(texts[0]!) as GraphQLResult;
    assert.deepEqual(body.data, { odd: { id: '3', big: null, small: null, assignee: '2' } });
    assert.deepEqual(
      body.errors?.map((e) => [e.path, e.extensions?.code, e.message]),
      [
        [['odd', 'big'], 'UPSTREAM_BAD_RESPONSE', 'the source answered a value that does not fit the type Int64'],
        [['odd', 'small'], 'UPSTREAM_BAD_RESPONSE', 'the source answered a value that does not fit the type Int64'],
      ],
    );
    assert.ok(!texts[0]!.includes('12abc'), 'the value stays out of a production answer');
  });

  it('a body member whose argument was not given is left out; given as null it is sent as null', async () => {
    zd.reset();
    const query = 'mutation($p: TicketPatch!) { updateTicket(id: "7", patch: $p) { id } }';
    await gw.query(query, { p: { status: 'solved' } });
    await gw.query(query, { p: { priority: null } });
    await gw.query('mutation { updateTicket(id: "7", patch: {}) { id } }');
    assert.deepEqual(
      zd.requests.map((r) => r.body),
      ['{"ticket": {"status": "solved"}}', '{"ticket": {"priority": null}}', '{"ticket": {}}'],
    );
  });

  it('@from(key:) on an input field is its wire name where its object renders; placeholders use the schema name', async () => {
    zd.reset();
    const res = await gw.query('mutation($p: AssignPatch!) { assignTicket(id: "7", patch: $p) { id } }', {
      p: { assigneeId: '42', tags: [{ tagName: 'vip' }] },
    });
    assert.deepEqual(res.body, { data: { assignTicket: { id: '7' } } });
    assert.deepEqual(
      zd.requests.map((r) => `${r.method} ${r.url} ${r.body}`),
      [
        'PUT /tickets/7.json?assignee=42 {"ticket": {"assignee_id":"42","tags":[{"tag_name":"vip"}]}, "who": "42", "text": "[{\\"tag_name\\":\\"vip\\"}]"}',
      ],
    );
  });

  it('a @batch body renders an input object with its wire names too', async () => {
    zd.reset();
    const res = await gw.query('query($p: AssignPatch) { foo { barFor(patch: $p) { name } } }', {
      p: { assigneeId: '42', tags: [{ tagName: 'vip' }] },
    });
    assert.deepEqual(res.body, { data: { foo: { barFor: { name: 'bar b7' } } } });
    assert.deepEqual(
      zd.requests.map((r) => `${r.method} ${r.url} ${r.body}`),
      ['GET /foo ', 'POST /bars {"ids": ["b7"], "patch": {"assignee_id":"42","tags":[{"tag_name":"vip"}]}}'],
    );
  });

  it('brackets around no placeholder are literal: barId[]= and page[size]= are sent as written', async () => {
    zd.reset();
    const res = await gw.query('{ foo { bar { name } } }');
    assert.deepEqual(res.body, { data: { foo: { bar: { name: 'bar' } } } });
    assert.deepEqual(
      zd.requests.map((r) => r.url),
      ['/foo', '/bar?baz=static_value&barId[]=b7&page[size]=25'],
    );
  });

  it('a {auth.sub} that cannot be a header value is BAD_USER_INPUT naming the header, and nothing is sent', async () => {
    people.reset();
    const token = async (sub: string) => ({
      authorization: `Bearer ${await mintToken(key, { sub }, { issuer: ISSUER, audience: AUDIENCE })}`,
    });
    const fine = await gw.query('{ me { name } }', undefined, await token('alice'));
    assert.deepEqual(fine.body, { data: { me: { name: 'person alice' } } });
    for (const sub of ['🦄', 'a\r\nx-admin: 1']) {
      const res = await gw.query('{ me { name } ticket(id: "1") { id } }', undefined, await token(sub));
      assert.deepEqual(res.body.data, { me: null, ticket: { id: '1' } });
      assert.equal(res.body.errors?.length, 1, JSON.stringify(res.body.errors));
      const error = res.body.errors![0]!;
      assert.deepEqual(error.path, ['me']);
      assert.equal(error.extensions?.code, 'BAD_USER_INPUT');
      assert.match(error.message, /header "x-user" of source "people"/);
      assert.doesNotMatch(error.message, /reached|unreachable/i);
    }
    assert.equal(people.count(), 1, 'only the valid subject was sent');
  });
});
