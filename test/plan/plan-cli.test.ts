/** `gqlgw plan` shows, without running anything, which fields run in which round and how. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parse } from 'graphql';
import { loadConfig } from '../../gateway/config/load.js';
import { buildBlueprint } from '../../gateway/blueprint/build.js';
import { buildPlan } from '../../gateway/plan/build.js';
import { printPlan } from '../../gateway/plan/print.js';

const CLI = fileURLToPath(new URL('../../gateway/cli.js', import.meta.url));
const ROOT_CONFIG = fileURLToPath(new URL('../../../gateway.toml', import.meta.url));

test('the blog query plans into three rounds, batched and cached fields named', () => {
  const run = spawnSync(
    process.execPath,
    [
      CLI,
      'plan',
      '--config',
      ROOT_CONFIG,
      'query Feed($c: Boolean = true) { posts(limit: 3) { id author { name posts { id } } comments @include(if: $c) { body author { name } } } }',
    ],
    { encoding: 'utf8', timeout: 20_000 },
  );
  assert.equal(run.status, 0, run.stderr);
  assert.equal(
    run.stdout,
    [
      'query Feed: 3 rounds when every field is reached',
      'round 1:',
      '  posts  Query.posts  fetch posts /posts?limit={args.limit}&author_id={args.authorId}, cache 30s',
      'round 2:',
      '  posts.author  Post.author  batch users /users?ids={keys} (match id, max 100; single /users/{parent.authorId}), cache 300s',
      '  posts.comments  Post.comments  batch comments /comments?post_ids={keys} (match post_id, max 50; single /posts/{parent.id}/comments), cache 30s, when @include(if: $c)',
      'round 3:',
      '  posts.author.posts  User.posts  batch posts /posts?author_ids={keys} (match author_id, max 50; single /users/{parent.id}/posts), cache 30s',
      '  posts.comments.author  Comment.author  batch users /users?ids={keys} (match id, max 100; single /users/{parent.authorId}), cache 300s',
      'X-GQL-Subrequests counts only what this operation sends: a lookup of comments, posts, users (coalesce = true) that another request already has in flight waits for that call and is counted in gqlgw_coalesced_total instead',
      "@batch chunks of comments, posts, users (batch_across_requests = true) also carry the keys of concurrent requests: X-GQL-Subrequests and X-GQL-Batches count every call that carried one of this operation's keys",
      // posts(limit: 3): 1; 3 authors and 3 posts' comments in one chunk each; 3 authors' posts in one, 300 comment authors in 3.
      'planned bound: 7 subrequests (X-GQL-Cost), every list at its assumed size',
      '  round 1: 1',
      '  round 2: 2',
      '  round 3: 4',
      "  on top, only what answers cause: a redirect's hops, the re-send of a reset GET, a failed chunk's halves (counted by max_subrequests)",
      '',
    ].join('\n'),
  );
});

test('fields that only read fetched data cost no round; fragments are flattened', () => {
  const blueprint = buildBlueprint(loadConfig(ROOT_CONFIG));
  const doc = parse('{ post(id: 1) { ...P ... on Post { authorId } } } fragment P on Post { title createdAt }');
  const plan = buildPlan(blueprint, doc)!;
  assert.equal(plan.maxRound, 1);
  assert.equal(
    printPlan(plan),
    'query anonymous: 1 round when every field is reached\nround 1:\n  post  Query.post  fetch posts /posts/{args.id}, cache 60s\n' +
      'X-GQL-Subrequests counts only what this operation sends: a lookup of posts (coalesce = true) that another request already has in flight waits for that call and is counted in gqlgw_coalesced_total instead\n',
  );
});

test('a mutation plans as serial steps: each request, what it invalidates, then the rounds under it', () => {
  const blueprint = buildBlueprint(loadConfig(ROOT_CONFIG));
  const doc = parse('mutation M { a: updateUser(id: 1, input: { name: "x" }) { name posts { id } } deletePost(id: 2) }');
  assert.equal(
    printPlan(buildPlan(blueprint, doc)!),
    [
      'mutation M: 2 serial steps, one after another in document order; each runs its rounds before the next starts',
      'step 1: a  Mutation.updateUser  PATCH users /users/{args.id} with a JSON body, then invalidate users:/users/{args.id}',
      '  round 2:',
      '    a.posts  User.posts  batch posts /posts?author_ids={keys} (match author_id, max 50; single /users/{parent.id}/posts), cache 30s',
      'step 2: deletePost  Mutation.deletePost  DELETE posts /posts/{args.id}, then invalidate posts:/posts/{args.id}',
      '',
    ].join('\n'),
  );
});

test('plan with an unknown operation name or a syntax error exits 1 with a message', () => {
  const unknown = spawnSync(process.execPath, [CLI, 'plan', '--config', ROOT_CONFIG, '--operation', 'Nope', 'query A { users { id } }'], {
    encoding: 'utf8',
  });
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /no operation named "Nope"/);
  const syntax = spawnSync(process.execPath, [CLI, 'plan', '--config', ROOT_CONFIG, '{ users { id }'], { encoding: 'utf8' });
  assert.equal(syntax.status, 1);
  assert.match(syntax.stderr, /Syntax Error/);
});
