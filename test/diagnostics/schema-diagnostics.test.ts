/**
 * Every directive misuse is reported at start-up with its exact message, file, line and
 * column, all problems at once, and `gqlgw check` / `gqlgw serve` exit 1 without a stack trace.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { writeGatewayFiles } from '../support/gateway.js';
import { loadConfig } from '../../gateway/config/load.js';
import { buildBlueprint } from '../../gateway/blueprint/build.js';
import { GatewayConfigError, type Diagnostic } from '../../gateway/config/diagnostics.js';

const CLI = fileURLToPath(new URL('../../gateway/cli.js', import.meta.url));

/** Compiles one schema file against sources users/posts; returns the diagnostics as `line:col: message`. */
async function problemsOf(sdl: string): Promise<string[]> {
  const files = await writeGatewayFiles({
    schemas: { 'schema/s.graphqls': sdl },
    sources: { users: { url: 'http://127.0.0.1:1' }, posts: { url: 'http://127.0.0.1:1' } },
  });
  try {
    buildBlueprint(loadConfig(files.configPath));
    return [];
  } catch (err) {
    assert.ok(err instanceof GatewayConfigError, `expected GatewayConfigError, got ${String(err)}`);
    for (const d of err.diagnostics) assert.match(d.file, /schema[\\/]s\.graphqls$/, `diagnostic names the schema file: ${d.file}`);
    return err.diagnostics.map((d: Diagnostic) => `${d.line}:${d.column}: ${d.message}`);
  } finally {
    await files.cleanup();
  }
}

const BASE = `type User { id: ID! name: String }\n`;

test('unknown source', async () => {
  assert.deepEqual(await problemsOf(`${BASE}type Query {\n  user(id: ID!): User @fetch(source: "userz", path: "/users/{args.id}")\n}\n`), [
    '3:23: @fetch on Query.user names unknown source "userz"; did you mean "users"? (sources: users, posts)',
  ]);
});

test('@batch without @fetch', async () => {
  assert.deepEqual(
    await problemsOf(
      `${BASE}type Query { posts: [Post] @fetch(source: "posts", path: "/posts") }\ntype Post {\n  authorId: ID\n  author: User @batch(path: "/users?ids={keys}", match: "id")\n}\n`,
    ),
    ['5:16: @batch on Post.author needs a @fetch beside it: the single fetch whose key each item is cached under'],
  );
});

test('@batch whose @fetch path has zero or several {parent.*}', async () => {
  const sdl = `${BASE}type Query { posts: [Post] @fetch(source: "posts", path: "/posts") }
type Post {
  id: ID!
  authorId: ID! @from(key: "author_id")
  author: User
    @fetch(source: "users", path: "/users/{parent.authorId}/{parent.id}")
    @batch(path: "/users?ids={keys}", match: "id")
  editor: User
    @fetch(source: "users", path: "/users/1")
    @batch(path: "/users?ids={keys}", match: "id")
}
`;
  assert.deepEqual(await problemsOf(sdl), [
    '8:5: @batch on Post.author needs exactly one {parent.*} placeholder in its @fetch path, found 2',
    '11:5: @batch on Post.editor needs exactly one {parent.*} placeholder in its @fetch path, found 0',
  ]);
});

test('@batch beside an {args.*} fetch: its one placeholder, and a list field for a list argument', async () => {
  const sdl = `${BASE}type Query {
  user(id: ID!, x: Int): User @fetch(source: "users", path: "/users/{args.id}?x={args.x}") @batch(path: "/users?ids={keys}", match: "id")
  many(ids: [ID!]!): User @fetch(source: "users", path: "/users/{args.ids}") @batch(path: "/users?ids={keys}", match: "id")
  fine(id: ID!): User @fetch(source: "users", path: "/users/{args.id}") @batch(path: "/users?ids={keys}", match: "id")
}
`;
  assert.deepEqual(await problemsOf(sdl), [
    '3:92: @batch on Query.user needs exactly one {parent.*} placeholder in its @fetch path, or one {args.*} as its only placeholder, found 2 {args.*}',
    '4:78: @batch on Query.many: {args.ids} is a list, so each element is a key and the value is the list of matched items; declare Query.many as a list ([User])',
  ]);
});

test('@batch path without exactly one {keys}', async () => {
  const sdl = `${BASE}type Query { posts: [Post] @fetch(source: "posts", path: "/posts") }
type Post {
  authorId: ID
  a: User @fetch(source: "users", path: "/users/{parent.authorId}") @batch(path: "/users", match: "id")
  b: User @fetch(source: "users", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}&again={keys}", match: "id")
}
`;
  assert.deepEqual(await problemsOf(sdl), [
    '5:69: @batch on Post.a needs exactly one {keys} placeholder in its path, found 0',
    '6:69: @batch on Post.b needs exactly one {keys} placeholder in its path, found 2',
  ]);
});

test('placeholders naming an unknown parent field or argument', async () => {
  const sdl = `${BASE}type Query {
  posts(limit: Int = 10): [Post] @fetch(source: "posts", path: "/posts?limit={args.limt}")
}
type Post {
  authorId: ID
  author: User @fetch(source: "users", path: "/users/{parent.authorID}")
}
`;
  assert.deepEqual(await problemsOf(sdl), [
    '3:34: @fetch on Query.posts: {args.limt} names no argument of Query.posts; did you mean "{args.limit}"? (arguments: limit)',
    '7:16: @fetch on Post.author: {parent.authorID} names no field of Post; did you mean "{parent.authorId}"? (fields: authorId, author)',
  ]);
});

test('max < 1 and ttl < 0', async () => {
  const sdl = `${BASE}type Query { posts: [Post] @fetch(source: "posts", path: "/posts") @cache(ttl: -5) }
type Post {
  authorId: ID
  author: User @fetch(source: "users", path: "/users/{parent.authorId}") @batch(path: "/users?ids={keys}", match: "id", max: 0)
}
`;
  assert.deepEqual(await problemsOf(sdl), [
    '2:68: @cache on Query.posts: ttl must be 0 or more seconds, found -5',
    '5:74: @batch on Post.author: max must be at least 1, found 0',
  ]);
});

test('@cache stale and missing: seconds from 0 to 30 days, stale only beside a ttl', async () => {
  const sdl = `${BASE}type Query {
  a: User @fetch(source: "users", path: "/a") @cache(ttl: 0, stale: 10)
  b: User @fetch(source: "users", path: "/b") @cache(ttl: 5, missing: -1)
  c: User @fetch(source: "users", path: "/c") @cache(ttl: 5, stale: 2592001)
  d: User @fetch(source: "users", path: "/d") @cache(ttl: 0, missing: 30)
}
`;
  assert.deepEqual(await problemsOf(sdl), [
    '3:47: @cache on Query.a: stale needs a ttl above 0 (an entry is served stale only after it was fresh); set ttl or drop stale',
    '4:47: @cache on Query.b: missing must be 0 or more seconds, found -1',
    '5:47: @cache on Query.c: stale must be at most 2592000 seconds (30 days), found 2592001',
  ]);
});

test('@fetch and @from together', async () => {
  const sdl = `${BASE}type Query { user: User @from(key: "u") @fetch(source: "users", path: "/users/1") }\n`;
  assert.deepEqual(await problemsOf(sdl), [
    "2:25: @from on Query.user cannot stand beside @fetch: a field either reads its parent's key or fetches",
  ]);
});

test('malformed templates', async () => {
  const sdl = `${BASE}type Query {
  a(id: ID): User @fetch(source: "users", path: "/users/{args.id")
  b(id: ID): User @fetch(source: "users", path: "users/{args.id}")
  c(id: ID): User @fetch(source: "users", path: "/users/{what.id}")
  d(id: ID): User @fetch(source: "users", path: "/users/args.id}")
  e(id: ID): User @fetch(source: "users", path: "/users?{args.id}=1")
}
`;
  assert.deepEqual(await problemsOf(sdl), [
    '3:19: @fetch on Query.a has a malformed path "/users/{args.id": unclosed "{" at offset 7',
    '4:19: @fetch on Query.b has a malformed path "users/{args.id}": must start with "/"',
    '5:19: @fetch on Query.c has a malformed path "/users/{what.id}": unknown placeholder "{what.id}" (use {parent.FIELD}, {args.NAME} or {keys}) at offset 7',
    '6:19: @fetch on Query.d has a malformed path "/users/args.id}": unmatched "}" at offset 14',
    '7:19: @fetch on Query.e has a malformed path "/users?{args.id}=1": placeholder in a query parameter name at offset 7',
  ]);
});

test('every problem of a file is reported at once, with SDL errors located too', async () => {
  const problems = await problemsOf(`type Query {\n  a: Nope\n  b: User @fetch(source: "x", path: "/b")\n}\ntype User { id: ID }\n`);
  assert.deepEqual(problems, ['2:6: Unknown type "Nope".']);
  const syntax = await problemsOf(`type Query {\n  a: String @fetch(source: "users" path: )\n}\n`);
  assert.equal(syntax.length, 1);
  assert.match(syntax[0]!, /^2:42: syntax error: Unexpected "\)"\.$/);
});

test('gqlgw check prints every problem with file:line:col and exits 1; serve refuses to start', async () => {
  const files = await writeGatewayFiles({
    schemas: {
      'schema/s.graphqls': `type User { id: ID }\ntype Query {\n  a: User @fetch(source: "nope", path: "/a")\n  b: User @cache(ttl: -1)\n}\n`,
    },
    sources: { users: { url: 'http://127.0.0.1:1' } },
  });
  try {
    for (const command of ['check', 'serve']) {
      const run = spawnSync(process.execPath, [CLI, command, '--config', files.configPath, '--port', '0'], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.equal(run.status, 1, `${command} exits 1: ${run.stderr}`);
      const lines = run.stderr.trim().split('\n');
      assert.match(lines[0]!, /s\.graphqls:3:11: @fetch on Query\.a names unknown source "nope" \(sources: users\)$/);
      assert.match(lines[1]!, /s\.graphqls:4:11: @cache on Query\.b: ttl must be 0 or more seconds, found -1$/);
      assert.match(lines[2]!, /s\.graphqls:4:11: @cache on Query\.b needs a @fetch beside it/);
      // The summary names the file the problems are in (the schema file, not gateway.toml); only serve "starts".
      assert.match(
        lines[3]!,
        new RegExp(`^3 problems in \\S*schema[\\\\/]s\\.graphqls${command === 'serve' ? '; nothing was started' : ''}$`),
      );
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(run.stdout, '', `${command} prints no ready line`);
    }
  } finally {
    await files.cleanup();
  }
});
