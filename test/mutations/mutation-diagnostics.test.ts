/**
 * What `gqlgw check` refuses about mutations and request methods (docs/mutations.md, "@fetch",
 * "@invalidate"), each with its exact message at file:line:col and the fix.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { schemaProblems } from '../support/schema-problems.js';

const problemsOf = (sdl: string): Promise<string[]> => schemaProblems(sdl, ['posts']);

const BASE =
  'type Post { id: ID! title: String authorId: ID @from(key: "author_id") }\ntype Query { post(id: ID!): Post @fetch(source: "posts", path: "/posts/{args.id}") }\n';

const CASES: ReadonlyArray<[string, string, string[]]> = [
  [
    'GET on a Mutation field',
    'type Mutation {\n  touch(id: ID!): Boolean @fetch(source: "posts", path: "/posts/{args.id}/touch")\n}\n',
    [
      '4:27: @fetch on Mutation.touch sends GET, but a Mutation field writes: add method: "POST" (or "PUT", "PATCH", "DELETE") to its @fetch',
    ],
  ],
  [
    '@batch on a Mutation field',
    'type Mutation {\n  create(id: ID!): Post @fetch(source: "posts", path: "/posts/{args.id}", method: "POST") @batch(path: "/posts?ids={keys}", match: "id")\n}\n',
    ['4:91: @batch on Mutation.create: a Mutation field sends one request of its own and is never batched; remove @batch'],
  ],
  [
    'an unknown method',
    'type Mutation {\n  create: Post @fetch(source: "posts", path: "/posts", method: "post")\n}\n',
    ['4:16: @fetch on Mutation.create: method "post" is not one of GET, POST, PUT, PATCH, DELETE; did you mean "POST"?'],
  ],
  [
    'body placeholders that name nothing, {keys} and {result.*}',
    'type Mutation {\n  create(title: String): Post @fetch(source: "posts", path: "/posts", method: "POST", body: """{"t": {args.titel}, "k": {keys}, "r": {result.id}}""")\n}\n',
    [
      '4:31: @fetch on Mutation.create: {args.titel} names no argument of Mutation.create; did you mean "{args.title}"? (arguments: title)',
      '4:31: @fetch on Mutation.create: {keys} belongs in a @batch body, not in @fetch',
      '4:31: @fetch on Mutation.create: {result.id} is only known after the request; read the result in @invalidate, and send {args.…} or {parent.…} in the body',
    ],
  ],
  [
    'a body on a GET',
    'type Query2 { x: Int }\nextend type Query {\n  search(q: String): [Post] @fetch(source: "posts", path: "/search", body: """{"q": {args.q}}""")\n}\n',
    ['5:29: @fetch on Query.search: a GET sends no body; add method: "POST" (or another method) or remove body'],
  ],
  [
    '@cache on a POST read',
    'extend type Query {\n  search(q: String): [Post] @fetch(source: "posts", path: "/search", method: "POST", body: """{"q": {args.q}}""") @cache(ttl: 60)\n}\n',
    ['4:115: @cache on Query.search: only GET answers are cached, and this @fetch sends POST; remove @cache'],
  ],
  [
    '@invalidate misuse: on a Query field, {parent.*}, an unknown {result.*}, an unknown source',
    `extend type Query {\n  cached(id: ID!): Post @fetch(source: "posts", path: "/posts/{args.id}") @invalidate(source: "posts", path: "/posts/{args.id}")\n}
type Mutation {
  a(id: ID!): Post @fetch(source: "posts", path: "/posts/{args.id}", method: "PUT") @invalidate(source: "posts", path: "/posts/{parent.id}")
  b(id: ID!): Post @fetch(source: "posts", path: "/posts/{args.id}", method: "PUT") @invalidate(source: "posts", path: "/users/{result.author}")
  c(id: ID!): Post @fetch(source: "posts", path: "/posts/{args.id}", method: "PUT") @invalidate(source: "postz", path: "/posts/{result.id}")
}\n`,
    [
      '4:75: @invalidate on Query.cached: only Mutation fields invalidate cache entries; move it to the Mutation field that writes',
      '7:85: @invalidate on Mutation.a: {parent.…} means nothing on a Mutation field; use {args.…} or {result.…} in "/posts/{parent.id}"',
      '8:85: @invalidate on Mutation.b: {result.author} names no field of Post; did you mean "{result.authorId}"? (fields: id, title, authorId)',
      '9:85: @invalidate on Mutation.c names unknown source "postz"; did you mean "posts"? (sources: posts)',
    ],
  ],
];

for (const [name, sdl, expected] of CASES) {
  test(`check refuses ${name}`, async () => assert.deepEqual(await problemsOf(BASE + sdl), expected));
}

test('check refuses a body that is not a valid JSON template, and says how to write one', async () => {
  const problems = await problemsOf(
    `${BASE}type Mutation {\n  create(title: String): Post @fetch(source: "posts", path: "/posts", method: "POST", body: """{"title": {args.title}""")\n}\n`,
  );
  assert.equal(problems.length, 1);
  assert.match(
    problems[0]!,
    /^4:31: @fetch on Mutation\.create has a body that is not a valid JSON template: not valid JSON once its placeholders are filled in \(.+\); write JSON with \{args\.…\} or \{parent\.…\} where values go, e\.g\. body: """\{"title": \{args\.title\}\}"""$/,
  );
});

test('check accepts a POST search on a Query field without @cache, and repeated @invalidate', async () => {
  const sdl = `extend type Query {\n  search(q: String): [Post] @fetch(source: "posts", path: "/search", method: "POST", body: """{"q": {args.q}}""")\n}
type Mutation {
  del(id: ID!): Boolean @fetch(source: "posts", path: "/posts/{args.id}", method: "DELETE") @invalidate(source: "posts", path: "/posts/{args.id}") @invalidate(source: "posts", path: "/posts")
}\n`;
  assert.deepEqual(await problemsOf(BASE + sdl), []);
});

/** A body's {parent.…} walks like a path's (directives/placeholders.ts), but may end at an object or a list. */
const META = `interface Named { name: String }
type Tag implements Named { name: String }
type Meta { tags: [Tag] owner: Named }
extend type Post { meta: Meta }
`;

test('a body {parent.…} may step through an interface and end at an object or a list (sent as JSON)', async () => {
  const sdl = `${META}extend type Post {\n  related: [Post] @fetch(source: "posts", path: "/related", method: "POST", body: """{"o": {parent.meta.owner.name}, "m": {parent.meta}, "t": {parent.meta.tags}}""")\n}\n`;
  assert.deepEqual(await problemsOf(BASE + sdl), []);
});

test("a body {parent.…} may not step through a list, and a misspelt one gets the path placeholders' suggestion", async () => {
  const sdl = `${META}extend type Post {\n  related: [Post] @fetch(source: "posts", path: "/related", method: "POST", body: """{"t": {parent.meta.tags.name}, "x": {parent.metta}}""")\n}\n`;
  const problems = await problemsOf(BASE + sdl);
  assert.equal(problems.length, 2, problems.join('\n'));
  assert.match(
    problems[0]!,
    /@fetch on Post\.related: \{parent\.meta\.tags\.name\} steps through the list field Meta\.tags; a placeholder can only step through single objects$/,
  );
  assert.match(
    problems[1]!,
    /@fetch on Post\.related: \{parent\.metta\} names no field of Post; did you mean "\{parent\.meta\}"\? \(fields: /,
  );
});
