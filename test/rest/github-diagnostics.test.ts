/**
 * `gqlgw check` on the GitHub-class forms (issue 35): url: and path: together or neither, a url:
 * that is not one placeholder, response: true on a field that is not an object, @batch beside a
 * url: or response: fetch, unbalanced or empty `[ ]`, a prefix with a query; each at the
 * directive's file:line:col with the fix. And the config keys: follow_redirects, revalidate,
 * user_agent with their types.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'graphql';
import { loadConfig } from '../../gateway/config/load.js';
import { buildBlueprint } from '../../gateway/blueprint/build.js';
import { buildPlan } from '../../gateway/plan/build.js';
import { printPlan } from '../../gateway/plan/print.js';
import { GatewayConfigError } from '../../gateway/config/diagnostics.js';
import { writeGatewayFiles } from '../support/gateway.js';
import { schemaProblems } from '../support/schema-problems.js';
import { PACKAGE_VERSION } from '../../gateway/config/version.js';

const check = (sdl: string): Promise<string[]> => schemaProblems(sdl, ['gh']);

test('check refuses url:/path: misuse, response: true on a non-object, @batch beside them, and unbalanced [ ] (brackets around no placeholder are literal)', async () => {
  const problems = await check(`type Query {
  both(u: String): Page @fetch(source: "gh", path: "/x", url: "{args.u}")
  neither: Page @fetch(source: "gh")
  parts(u: String): Page @fetch(source: "gh", url: "{args.u}/comments")
  scalar: String @fetch(source: "gh", path: "/x", response: true)
  list: [Page] @fetch(source: "gh", path: "/x", response: true)
  open(q: String): Page @fetch(source: "gh", path: "/s?q=a[+b:{args.q}")
  close(q: String): Page @fetch(source: "gh", path: "/s?q=a+b:{args.q}]")
  empty: Page @fetch(source: "gh", path: "/s?q=a[b]&ids[]=1")
  literal: Page @fetch(source: "gh", path: "/s?q=a[[b]]")
}
type Page { status: Int next: String @from(path: "headers.link.next") user: User }
type User {
  id: ID
  linked: User @fetch(source: "gh", url: "{parent.id}") @batch(path: "/users?ids={keys}", match: "id")
}`);
  assert.deepEqual(problems, [
    '2:25: @fetch on Query.both has both path: and url:; keep path: for a path of the source, or url: for a URL taken from data',
    '3:17: @fetch on Query.neither needs path: (a path of the source, such as path: "/users/{args.id}") or url: (a URL from data, such as url: "{parent.url}")',
    '4:26: @fetch on Query.parts: url "{args.u}/comments" must be one placeholder holding a whole URL, such as url: "{parent.commentsUrl}"; write path: for a path with parts',
    '5:18: @fetch on Query.scalar: response: true makes the value {status, headers, body}, so Query.scalar needs an object type (a page type with items @from(path: "body")), not String',
    '6:16: @fetch on Query.list: response: true makes the value {status, headers, body}, so Query.list needs an object type (a page type with items @from(path: "body")), not [Page]',
    '7:25: @fetch on Query.open has a malformed path "/s?q=a[+b:{args.q}": unclosed "[" at offset 6 (write "[[" for a literal "[")',
    '8:26: @fetch on Query.close has a malformed path "/s?q=a+b:{args.q}]": unmatched "]" at offset 17 (write "]]" for a literal "]")',
    '15:57: @batch on User.linked: a @fetch with url: is one request per value and is never batched; remove @batch',
  ]);
});

test('check refuses a prefix invalidation with a query or an optional part', async () => {
  const problems = await check(`type Query { x: Int }
type Mutation {
  add(n: Int!): Boolean
    @fetch(source: "gh", method: "POST", path: "/issues/{args.n}/comments")
    @invalidate(source: "gh", path: "/issues/{args.n}/comments?page=1", prefix: true)
    @invalidate(source: "gh", path: "/issues/{args.n}/comments", prefix: true)
}`);
  assert.deepEqual(problems, [
    '5:5: @invalidate on Mutation.add: a prefix is a path of whole segments, without "?" or optional [ ] parts, such as path: "/repos/{args.owner}/{args.repo}/issues/{args.number}/comments", prefix: true',
  ]);
});

test('config: follow_redirects, revalidate and user_agent have their defaults and are checked with the key path', async () => {
  const ok = await writeGatewayFiles({
    schemas: { 's.graphqls': 'type Query { x: Int }' },
    sources: {
      gh: { url: 'http://127.0.0.1:1' },
      quiet: { url: 'http://127.0.0.1:2', extra: 'follow_redirects = 0\nrevalidate = false\nuser_agent = ""' },
    },
  });
  try {
    const config = loadConfig(ok.configPath);
    const { followRedirects, revalidate, userAgent } = config.sources.get('gh')!;
    assert.deepEqual(
      { followRedirects, revalidate, userAgent },
      { followRedirects: 3, revalidate: true, userAgent: `gqlgw/${PACKAGE_VERSION}` },
    );
    const quiet = config.sources.get('quiet')!;
    assert.deepEqual([quiet.followRedirects, quiet.revalidate, quiet.userAgent], [0, false, '']);
  } finally {
    await ok.cleanup();
  }
  const bad = await writeGatewayFiles({
    schemas: { 's.graphqls': 'type Query { x: Int }' },
    sources: { gh: { url: 'http://127.0.0.1:1', extra: 'follow_redirects = -1\nrevalidate = "yes"' } },
  });
  try {
    assert.throws(
      () => loadConfig(bad.configPath),
      (err: unknown) => {
        assert.ok(err instanceof GatewayConfigError);
        const text = err.diagnostics.map((d) => `${d.line}: ${d.message}`).join('\n');
        assert.match(text, /sources\.gh\.follow_redirects/);
        assert.match(text, /sources\.gh\.revalidate/);
        return true;
      },
    );
  } finally {
    await bad.cleanup();
  }
});

test('gqlgw plan shows a url: fetch and a whole response', async () => {
  const files = await writeGatewayFiles({
    schemas: {
      's.graphqls': `type Query { issue: Issue @fetch(source: "gh", path: "/issue") }
type Issue { commentsUrl: String @from(key: "comments_url") comments: Page @fetch(source: "gh", url: "{parent.commentsUrl}", response: true) }
type Page { next: String @from(path: "headers.link.next") }`,
    },
    sources: { gh: { url: 'http://127.0.0.1:1' } },
  });
  try {
    const blueprint = buildBlueprint(loadConfig(files.configPath));
    const plan = buildPlan(blueprint, parse('{ issue { comments { next } } }'));
    assert.ok(plan);
    assert.match(printPlan(plan), /issue\.comments {2}Issue\.comments {2}fetch gh url \{parent\.commentsUrl\} \(whole response\)\n/);
  } finally {
    await files.cleanup();
  }
});
