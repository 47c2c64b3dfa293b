/**
 * The writer's loop on the command line (issue 14): "did you mean" for every kind of name, warnings
 * with --strict, `gqlgw plan` validation, and no stack trace for a user's mistake. Every case runs
 * the real CLI; the runs are started together to keep the suite fast.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { writeGatewayFiles, type GatewayFiles } from '../support/gateway.js';
import { runCli, type CliRun } from '../support/cli.js';

const NO_STACK = /\n\s+at /;

const SCHEMA_TYPOS = `type Query {
  user(id: ID!): User @fetc(source: "users", path: "/users/{args.id}")
  users: [User] @fetch(source: "users", path: "/users") @cache(ttl: 5, stal: 10, miss: 1)
}
type User {
  id: ID!
  posts: [User] @fetch(source: "users", path: "/users/{parent.id}") @Batch(path: "/u?ids={keys}", match: "id")
}
`;

const NAME_TYPOS = `type Query {
  user(id: ID!): User @fetch(source: "userz", path: "/users/{args.idd}")
}
type User {
  authorId: ID
  author: User @fetch(source: "users", path: "/users/{parent.authorID}")
}
`;

const WARNINGS = `type Query {
  users: [User!]! @fetch(source: "users", path: "/users")
  user(id: ID!): User @fetch(source: "users", path: "/users/{args.id}")
  me: User @fetch(source: "private", path: "/me") @cache(ttl: 60)
  nothing: String
  admin: Admin
}
type Admin {
  audit: [String] @fetch(source: "users", path: "/audit")
}
type User {
  id: ID!
  friends: [User] @fetch(source: "users", path: "/users/{parent.id}/friends")
}
`;

const TOML_TYPOS = `[gateway]
port = 0
schema = ["s.graphqls"]
debug_header = true

[source.api]
url = "http://127.0.0.1:1"

[sources.users]
url = "http://127.0.0.1:1"
forward_header = ["authorization"]
`;

function lines(run: CliRun): string[] {
  return run.stderr.trim().split('\n');
}

test('did you mean, warnings, plan validation and user mistakes, through the real CLI', async (t) => {
  const users = { url: 'http://127.0.0.1:1' };
  const made: GatewayFiles[] = [];
  const files = async (schema: string, toml?: string) => {
    const f = await writeGatewayFiles({
      schemas: { 's.graphqls': schema },
      sources: { users, private: { ...users, forwardHeaders: ['authorization'] } },
      toml,
    });
    made.push(f);
    return f;
  };
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const taken = (blocker.address() as { port: number }).port;
  try {
    const [schemaTypos, nameTypos, warnings, tomlTypos] = await Promise.all([
      files(SCHEMA_TYPOS),
      files(NAME_TYPOS),
      files(WARNINGS),
      files('type Query { a: String }', TOML_TYPOS),
    ]);
    const [typoRun, nameRun, warnRun, strictRun, tomlRun, planRun, missingFile, listen, missingConfig, example] = await Promise.all([
      runCli(['check'], schemaTypos.dir),
      runCli(['check'], nameTypos.dir),
      runCli(['check', '--config', 'gateway.toml'], warnings.dir),
      runCli(['check', '--strict'], warnings.dir),
      runCli(['check', '--config', 'gateway.toml'], tomlTypos.dir),
      runCli(['plan', '{ users { idd friends(first: 2) { id } } nope user { id } }'], warnings.dir),
      runCli(['plan', '--config', warnings.configPath, '--file', 'missing.graphql'], warnings.dir),
      runCli(['serve', '--config', warnings.configPath, '--port', String(taken)]),
      runCli(['check', '--config', 'nowhere/gateway.toml'], warnings.dir),
      runCli(['check', '--strict'], fileURLToPath(new URL('../../../', import.meta.url))),
    ]);
    for (const run of [typoRun, nameRun, warnRun, strictRun, tomlRun, planRun, missingFile, listen, missingConfig]) {
      assert.doesNotMatch(run.stderr, NO_STACK, `no stack trace:\n${run.stderr}`);
    }

    await t.test('directive names and arguments', () => {
      assert.equal(typoRun.status, 1);
      assert.deepEqual(lines(typoRun), [
        's.graphqls:2:23: Unknown directive "@fetc". Did you mean "@fetch"?',
        's.graphqls:3:72: Unknown argument "stal" on directive "@cache". Did you mean "stale" or "ttl"?',
        's.graphqls:3:82: Unknown argument "miss" on directive "@cache". Did you mean "missing"?',
        's.graphqls:7:69: Unknown directive "@Batch". Did you mean "@batch"?',
        '4 problems in s.graphqls',
      ]);
    });

    await t.test('source names and {parent.F} / {args.A} names', () => {
      assert.equal(nameRun.status, 1);
      assert.deepEqual(lines(nameRun), [
        's.graphqls:2:23: @fetch on Query.user names unknown source "userz"; did you mean "users"? (sources: users, private)',
        's.graphqls:2:23: @fetch on Query.user: {args.idd} names no argument of Query.user; did you mean "{args.id}"? (arguments: id)',
        's.graphqls:6:16: @fetch on User.author: {parent.authorID} names no field of User; did you mean "{parent.authorId}"? (fields: authorId, author)',
        '3 problems in s.graphqls',
      ]);
    });

    await t.test('gateway.toml keys and sections, each at its own line', () => {
      assert.equal(tomlRun.status, 1);
      assert.deepEqual(lines(tomlRun), [
        'gateway.toml:4:1: unknown key gateway.debug_header; did you mean "debug_headers"?',
        'gateway.toml:6:1: unknown key source; did you mean "sources"?',
        'gateway.toml:11:1: unknown key sources.users.forward_header; did you mean "forward_headers"?',
        '3 problems in gateway.toml',
      ]);
    });

    await t.test('warnings with file:line:col: exit 0, and 1 with --strict', () => {
      const expected = [
        's.graphqls:4:51: warning: @cache on Query.me: source "private" forwards headers (authorization), so its entries are kept per caller and shared by no one else (README "Per-caller data") [per-caller-cache:Query.me]',
        's.graphqls:5:3: warning: Query.nothing has no @fetch, so it is always null; add @fetch(source: ..., path: ...), or give it an object type with @fetch fields to make it a namespace [always-null:Query.nothing]',
        's.graphqls:13:19: warning: @fetch on User.friends reads {parent.*} under the list Query.users without @batch: one request per item of Query.users (an N+1); add @batch to send them together [n-plus-one:User.friends]',
      ];
      assert.equal(warnRun.status, 0, warnRun.stderr);
      assert.deepEqual(lines(warnRun), expected, 'Query.admin is a namespace: no warning');
      assert.match(warnRun.stdout, /: ok, 3 warnings in s\.graphqls\n$/);
      assert.equal(strictRun.status, 1);
      assert.deepEqual(lines(strictRun), [...expected, '3 warnings in s.graphqls; --strict makes warnings fail']);
      assert.deepEqual(
        [example.status, example.stdout, example.stderr],
        [0, 'gateway.toml: ok\n', ''],
        'the bundled example passes --strict',
      );
    });

    await t.test('plan validates the query first: graphql-js errors at line:column, exit 1', () => {
      assert.equal(planRun.status, 1);
      assert.equal(planRun.stdout, '');
      assert.deepEqual(lines(planRun), [
        'gqlgw plan: query:1:11: Cannot query field "idd" on type "User". Did you mean "id"?',
        'gqlgw plan: query:1:23: Unknown argument "first" on field "User.friends".',
        'gqlgw plan: query:1:42: Cannot query field "nope" on type "Query".',
        'gqlgw plan: query:1:47: Field "user" argument "id" of type "ID!" is required, but it was not provided.',
        'gqlgw plan: the query is not valid against the schema of gateway.toml; nothing was planned',
      ]);
      assert.equal(missingFile.status, 1);
      assert.equal(missingFile.stderr, 'gqlgw plan: cannot read --file missing.graphql: no such file\n');
    });

    await t.test('an unavailable listen address names it and suggests --port 0; a missing config names its path', () => {
      assert.equal(listen.status, 1);
      assert.equal(listen.stdout, '');
      assert.equal(
        listen.stderr,
        `gqlgw: cannot listen on 127.0.0.1:${taken}: the address is already in use; stop what uses it, or pick another --port (--port 0 picks a free one)\n`,
      );
      assert.equal(missingConfig.status, 1);
      assert.match(missingConfig.stderr, /^nowhere\/gateway\.toml:1:1: cannot read config: ENOENT/);
    });
  } finally {
    blocker.close();
    await Promise.all(made.map((f) => f.cleanup()));
  }
});
