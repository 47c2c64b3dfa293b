/** gateway/blueprint/warnings.ts: which schemas get which warning, through abstract types too. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeGatewayFiles } from '../support/gateway.js';
import { loadConfig } from '../../gateway/config/load.js';
import { buildBlueprint } from '../../gateway/blueprint/build.js';
import { collectWarnings } from '../../gateway/blueprint/warnings.js';

async function warningsOf(sdl: string): Promise<string[]> {
  const files = await writeGatewayFiles({ schemas: { 's.graphqls': sdl }, sources: { api: { url: 'http://127.0.0.1:1' } } });
  try {
    return collectWarnings(buildBlueprint(loadConfig(files.configPath))).map((w) => `${w.line}:${w.column}: ${w.message.split(':')[0]}`);
  } finally {
    await files.cleanup();
  }
}

test('an N+1 is found through a list of a union, and named by the nearest list', async () => {
  assert.deepEqual(
    await warningsOf(`type Query {
  search: [Result] @fetch(source: "api", path: "/search")
  me: Me @fetch(source: "api", path: "/me")
}
union Result = Post | Person
type Post { id: ID }
type Person { id: ID, avatar: String @fetch(source: "api", path: "/avatars/{parent.id}") }
type Me { id: ID, name: String @fetch(source: "api", path: "/names/{parent.id}"), friends: [Friend] @fetch(source: "api", path: "/me/friends") }
type Friend { id: ID, mood: String @fetch(source: "api", path: "/moods/{parent.id}") }
`),
    [
      '7:38: @fetch on Person.avatar reads {parent.*} under the list Query.search without @batch',
      '9:36: @fetch on Friend.mood reads {parent.*} under the list Me.friends without @batch',
    ],
    'Me.name is fetched once per request: no warning',
  );
});

test('root fields: a namespace is fine, a plain field is always null', async () => {
  assert.deepEqual(
    await warningsOf(`type Query {
  admin: Admin!
  version: String
}
type Mutation { noop: Boolean }
type Admin { audit: [String] @fetch(source: "api", path: "/audit") }
`),
    [
      '3:3: Query.version has no @fetch, so it is always null; add @fetch(source',
      '5:17: Mutation.noop has no @fetch, so it is always null; add @fetch(source',
    ],
  );
});
