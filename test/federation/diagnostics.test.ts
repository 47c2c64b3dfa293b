/**
 * `gqlgw check` on @lookup / @lookupBatch / @cache on types and on the federation directives
 * (docs/federation.md): every mistake at its file:line:col, with a "did you
 * mean" where a name is close.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { schemaProblems } from '../support/schema-problems.js';
import { runCli } from '../support/cli.js';

const LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@requires", "@provides", "@external"])';

test('@lookup: a key that is no field set of the type, a {key.F} outside the key, an unknown source', async () => {
  const problems = await schemaProblems(
    `type Query { me: User @fetch(source: "api", path: "/me") }
type User
  @lookup(key: "logn", source: "api", path: "/users/{key.logn}")
  @lookup(key: "login", source: "api", path: "/users/{key.name}")
  @lookup(key: "id", source: "apy", path: "/users/{key.id}") {
  id: ID!
  login: String!
  name: String
}`,
    ['api'],
  );
  assert.deepEqual(problems, [
    '3:3: @lookup on User: key "logn" names "logn", no field of User; did you mean "login"? (fields: id, login, name)',
    '4:3: @lookup on User: {key.name} is no field of its key "login"',
    '5:3: @lookup on User names unknown source "apy"; did you mean "api"? (sources: api)',
  ]);
});

test('@lookupBatch: no @lookup of its key, a key of several fields in a path, a match per key field; @cache without @lookup', async () => {
  const problems = await schemaProblems(
    `type Query { p: Product @fetch(source: "api", path: "/p") }
type Product
  @lookup(key: "sku package", source: "api", path: "/p/{key.sku}/{key.package}")
  @lookupBatch(key: "sku package", path: "/p?keys={keys}", match: "sku")
  @lookupBatch(key: "id", path: "/p?ids={keys}", match: "id") {
  id: ID!
  sku: String
  package: String
}
type Other @cache(ttl: 5) { id: ID! }`,
    ['api'],
  );
  assert.deepEqual(problems, [
    '4:3: @lookupBatch on Product: match needs one dotted item path per key field, space-separated in key order (sku package), found 1',
    '4:3: @lookupBatch on Product: key "sku package" has 2 fields, so its keys go in a body as a JSON array of objects shaped like the key: add method: "POST" and body: """{"keys": {keys}}"""',
    '5:3: @lookupBatch on Product with key "id" needs a @lookup with the same key: the single fetch each item is cached under',
    '10:12: @cache on type Other caches its lookups, and it has no @lookup; add one or remove @cache',
  ]);
});

test('federation: fields that are no selection on their type, at the argument', async () => {
  const problems = await schemaProblems(
    `${LINK}
type Query { p: Product @fetch(source: "api", path: "/p") }
type Product @key(fields: "idd") @key(fields: "owner") {
  id: ID!
  owner: User @provides(fields: "nme")
  weight: Int @external
  price: Int @requires(fields: "weight { x }") @fetch(source: "api", path: "/price/{parent.weight}")
  name: String @provides(fields: "x")
}
type User { id: ID! name: String }`,
    ['api'],
  );
  assert.deepEqual(problems, [
    '3:27: @key on Product: fields "idd" names "idd", no field of Product; did you mean "id"? (fields: id, owner, weight, price, name)',
    '3:47: @key on Product: fields "owner" names the User field Product.owner without its fields: write "owner { … }"',
    '5:33: @provides on Product.owner: fields "nme" names "nme", no field of User; did you mean "name"? (fields: id, name)',
    '7:32: @requires on Product.price: fields "weight { x }" gives fields to Product.weight, an Int, which has none',
    '8:16: @provides on Product.name: String has no fields to provide; put @provides on a field of an object type',
  ]);
});

test('federation: unknown imports and directive names get "did you mean"; without the @link nothing is federation', async () => {
  const problems = await schemaProblems(
    `extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@keyy"])
type Query { p: Product @fetch(source: "api", path: "/p") }
type Product @federation__keys(fields: "id") { id: ID! }`,
    ['api'],
  );
  assert.deepEqual(problems, [
    '1:79: @link import "@keyy" is not in the federation spec; did you mean "@key"? (it has @key, @requires, @provides, @external, @extends, @shareable, @inaccessible, @override, @tag, @interfaceObject, @composeDirective, @authenticated, @requiresScopes, @policy, FieldSet, Scope, Policy)',
  ]);
  const next = await schemaProblems(
    `extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@requires"])
type Query { p: Product @fetch(source: "api", path: "/p") }
type Product @federation__keys(fields: "id") { id: ID! }`,
    ['api'],
  );
  assert.deepEqual(next, ['3:14: Unknown directive "@federation__keys". Did you mean "@federation__key"?']);
  const plain = await schemaProblems(
    `type Query { p: Product @fetch(source: "api", path: "/p") }\ntype Product @key(fields: "id") { id: ID! }`,
    ['api'],
  );
  assert.deepEqual(plain, ['2:14: Unknown directive "@key".']);
});

test('federation: extend type without a base type is its definition; every version v2.0 to v2.3 links', async () => {
  for (const v of ['2.0', '2.1', '2.2', '2.3']) {
    const problems = await schemaProblems(
      `extend schema @link(url: "https://specs.apollo.dev/federation/v${v}", import: ["@key", "@external"])
extend type Query { p: Product @fetch(source: "api", path: "/p") }
extend type Product @key(fields: "id") { id: ID! @external name: String }`,
      ['api'],
    );
    assert.deepEqual(problems, [], `v${v}`);
  }
});

test('gqlgw check --strict passes examples/federation: the root fields subgraph mode adds are no warnings', async () => {
  const config = fileURLToPath(new URL('../../../examples/federation/gateway.toml', import.meta.url));
  const run = await runCli(['check', '--strict', '--config', config]);
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /gateway\.toml: ok\n$/);
});
