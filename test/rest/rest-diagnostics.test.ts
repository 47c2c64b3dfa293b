/**
 * `gqlgw check` refuses what would be silently wrong with real REST shapes (issue 10), each with
 * file:line:col and the fix; and `gqlgw plan` shows method, body, repeat and which select applies.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'graphql';
import { buildBlueprint } from '../../gateway/blueprint/build.js';
import { loadConfig } from '../../gateway/config/load.js';
import { buildPlan } from '../../gateway/plan/build.js';
import { printPlan } from '../../gateway/plan/print.js';
import { collectWarnings } from '../../gateway/blueprint/warnings.js';
import { writeGatewayFiles } from '../support/gateway.js';
import { schemaProblems } from '../support/schema-problems.js';

const check = (sdl: string): Promise<string[]> => schemaProblems(sdl, ['gh']);

const TYPES = `
type Repo {
  id: ID!
  owner: Account!
  topicIds: [ID!]! @from(key: "topic_ids")
  city: String @from(path: "owner.address..city")
}
type Account { id: ID! login: String! profile: User @fetch(source: "gh", path: "/users/{parent.login}") }
type User { id: ID! name: String }
type Topic { slug: String! }
input Filter { state: String, labels: [String!] }
`;

test('check refuses list keys on a single field, unknown or fetched steps, objects in URLs, and names that are not dotted', async () => {
  const sdl = `type Query {
  repos(filter: Filter): [Repo] @fetch(source: "gh", path: "/repos?state={args.filter.status}&f={args.filter}")
}
type Post {
  repo: Repo
  topic: Topic @fetch(source: "gh", path: "/topics/{parent.repo.topicIds}") @batch(path: "/topics?slugs={keys}", match: "slug")
  login: String @fetch(source: "gh", path: "/u/{parent.repo.owner.name}")
  name: String @fetch(source: "gh", path: "/u/{parent.repo.owner.profile.name}")
  owner: User @fetch(source: "gh", path: "/u/{parent.repo.owner}", select: "data[0]")
  other: User @fetch(source: "gh", path: "/u/{parent.repo.id}") @batch(path: "/u?ids={keys}", match: "$.id")
}
${TYPES}`;
  assert.deepEqual(await check(sdl), [
    '2:33: @fetch on Query.repos: {args.filter.status}: "status" is no field of the input type Filter; did you mean "state"? (fields: state, labels)',
    '2:33: @fetch on Query.repos: {args.filter} ends at the input type Filter: name one of its fields, such as {args.filter.state}',
    '6:77: @batch on Post.topic: {parent.repo.topicIds} is a list, so each element is a key and the value is the list of matched items; declare Post.topic as a list ([Topic])',
    '7:17: @fetch on Post.login: {parent.repo.owner.name}: "name" is no field of Account (fields: id, login, profile)',
    "8:16: @fetch on Post.name: {parent.repo.owner.profile.name} names a field that is itself fetched; placeholders read the parent's own data",
    '9:15: @fetch on Post.owner: select "data[0]" is not a dotted name; write JSON keys (letters, digits, "_" or "-") joined by ".", such as "data.items"',
    '9:15: @fetch on Post.owner: {parent.repo.owner} ends at Account, which has fields: name one of them, such as {parent.repo.owner.id}',
    '10:65: @batch on Post.other: match "$.id" is not a dotted name; write JSON keys (letters, digits, "_" or "-") joined by ".", such as "owner.id"',
    '17:16: @from on Repo.city: path "owner.address..city" is not a dotted name; write JSON keys (letters, digits, "_" or "-") joined by ".", such as "address.city"',
  ]);
});

test('check refuses a malformed POST batch and @from misuse on fields and unions', async () => {
  const sdl = `type Query { repos: [Repo] @fetch(source: "gh", path: "/repos") }
type Post { id: ID! }
extend type Repo {
  a: User @fetch(source: "gh", path: "/u/{parent.id}") @batch(path: "/u", method: "POST", match: "id")
  b: User @fetch(source: "gh", path: "/u/{parent.id}") @batch(path: "/u", method: "POST", body: """{"ids": {parent.id}}""", match: "id")
  c: User @fetch(source: "gh", path: "/u/{parent.id}") @batch(path: "/u?ids={keys}", body: """{"ids": {keys}}""", match: "id")
  d: String @from(key: "d", path: "x.d")
  e: User @fetch(source: "gh", path: "/u/{parent.id}") @batch(path: "/u", method: "PUT", match: "id")
}
union Thing @from(path: "kind.name") = User | Topic
${TYPES}`;
  assert.deepEqual(await check(sdl), [
    '4:56: @batch on Repo.a: a POST batch needs a body holding {keys}, such as body: """{"ids": {keys}}"""',
    '4:56: @batch on Repo.a needs exactly one {keys} placeholder in its path or body, found 0',
    "5:56: @batch on Repo.b: its body takes the parents' keys through {keys}; {parent.id} has no single value in a batch",
    '5:56: @batch on Repo.b needs exactly one {keys} placeholder in its path or body, found 0',
    '6:56: @batch on Repo.c: a GET batch sends no body; add method: "POST" or remove body',
    '7:13: @from on Repo.d needs exactly one of key (a JSON key: @from(key: "author_id")) and path (dotted: @from(path: "address.city"))',
    '8:56: @batch on Repo.e: method must be GET or POST, found "PUT"',
    '8:56: @batch on Repo.e needs exactly one {keys} placeholder in its path, found 0',
    `10:13: @from on Thing takes key (the JSON key naming each item's type, such as @from(key: "kind")), not path`,
    '16:16: @from on Repo.city: path "owner.address..city" is not a dotted name; write JSON keys (letters, digits, "_" or "-") joined by ".", such as "address.city"',
  ]);
});

test('check warns about @from(key:) with a dot: one JSON key of that name, rarely what is meant', async () => {
  const files = await writeGatewayFiles({
    sources: { gh: { url: 'http://127.0.0.1:1' } },
    schemas: {
      's.graphqls':
        'type Query { u: U @fetch(source: "gh", path: "/u") }\ntype U {\n  city: String @from(key: "address.city")\n  town: String @from(path: "address.town")\n}',
    },
  });
  try {
    const warnings = collectWarnings(buildBlueprint(loadConfig(files.configPath))).map((w) => `${w.line}:${w.column}: ${w.message}`);
    assert.deepEqual(warnings, [
      '3:16: @from on U.city: key "address.city" reads one JSON key with "." in its name; for the nested value write @from(path: "address.city")',
    ]);
  } finally {
    await files.cleanup();
  }
});

test('plan shows the method, body, repeat and which select applies', async () => {
  const sdl = `type Query { repos: [Repo] @fetch(source: "gh", path: "/repos", select: "data.items") }
type Repo {
  id: ID!
  owner: Account!
  contributorIds: [ID!]! @from(key: "contributor_ids")
  profile: User @fetch(source: "gh", path: "/users/{parent.owner.id}", select: "data") @batch(path: "/users?id={keys}", repeat: true, select: "data.users", match: "id")
  contributors: [User] @fetch(source: "gh", path: "/users/{parent.contributorIds}", select: "data") @batch(path: "/users/lookup", method: "POST", body: """{"ids": {keys}}""", match: "id", max: 50)
}
type Account { id: ID! }
type User { id: ID! }`;
  const files = await writeGatewayFiles({ sources: { gh: { url: 'http://127.0.0.1:1' } }, schemas: { 's.graphqls': sdl } });
  try {
    const blueprint = buildBlueprint(loadConfig(files.configPath));
    const plan = buildPlan(blueprint, parse('{ repos { profile { id } contributors { id } } }'));
    assert.ok(plan);
    assert.equal(
      printPlan(plan),
      [
        'query anonymous: 2 rounds when every field is reached',
        'round 1:',
        '  repos  Query.repos  fetch gh /repos select data.items',
        'round 2:',
        '  repos.profile  Repo.profile  batch gh /users?id={keys} repeat (match id, max 100, select data.users; single /users/{parent.owner.id} select data)',
        '  repos.contributors  Repo.contributors  batch gh POST /users/lookup body {"ids": {keys}} (match id, max 50, a key per list element; single /users/{parent.contributorIds} select data)',
        'X-GQL-Subrequests counts only what this operation sends: a lookup of gh (coalesce = true) that another request already has in flight waits for that call and is counted in gqlgw_coalesced_total instead',
        "@batch chunks of gh (batch_across_requests = true) also carry the keys of concurrent requests: X-GQL-Subrequests and X-GQL-Batches count every call that carried one of this operation's keys",
        '',
      ].join('\n'),
    );
  } finally {
    await files.cleanup();
  }
});
