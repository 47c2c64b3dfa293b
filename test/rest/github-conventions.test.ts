/**
 * GitHub-class REST conventions end to end (docs/reference.md, "gateway.toml", the *new* parts;
 * issue 35's table): optional query parts, dot and empty path segments refused, URLs taken from
 * data (`url:`) and refused elsewhere, whole responses with parsed `Link` headers (`response:
 * true`), same-origin redirects followed and others not, the User-Agent, and NOT_FOUND's detail.
 * Every test reads the exact request lines a real upstream on 127.0.0.1 received.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { debugCounts, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startUpstream, type CountingUpstream } from '../support/upstream.js';
import { errorAt } from '../support/assert.js';
import { metricValue } from '../support/prom-text.js';
import { PACKAGE_VERSION } from '../../gateway/config/version.js';

const SCHEMA = `
type Query {
  searchIssues(repo: String!, label: String, state: String): SearchResult
    @fetch(source: "gh", path: "/search/issues?q=repo:{args.repo}[+label:{args.label}][+state:{args.state}]&per_page=2")
  user(login: String!): User @fetch(source: "gh", path: "/users/{args.login}")
  strictUser(login: String!): User! @fetch(source: "gh", path: "/users/{args.login}")
  repo(owner: String!, name: String!): Repo @fetch(source: "gh", path: "/repos/{args.owner}/{args.name}")
  optionalTail(owner: String!, name: String): [Repo] @fetch(source: "gh", path: "/orgs/{args.owner}[/{args.name}]/repos")
  issue(owner: String!, repo: String!, number: Int!): Issue @fetch(source: "gh", path: "/repos/{args.owner}/{args.repo}/issues/{args.number}")
  page(url: String): CommentPage @fetch(source: "gh", url: "{args.url}", response: true)
  other: Repo @fetch(source: "other", path: "/repos/o/r")
  cachedPage(url: String): CommentPage @fetch(source: "gh", url: "{args.url}", response: true) @cache(ttl: 60)
  cachedComments(n: Int!): CommentPage @fetch(source: "gh", path: "/repos/o/r/issues/{args.n}/comments", response: true) @cache(ttl: 60)
}
type Mutation {
  rename(name: String!): Repo @fetch(source: "gh", method: "PATCH", path: "/repos/o/{args.name}", body: """{"name": {args.name}}""")
}
type SearchResult { total: Int @from(key: "total_count") items: [Issue] }
type User { login: String }
type Repo { name: String ownerLogin: String @from(path: "owner.login") owner: User @fetch(source: "gh", path: "/users/{parent.ownerLogin}") }
type Issue {
  number: Int
  title: String
  commentsUrl: String @from(key: "comments_url")
  comments: CommentPage @fetch(source: "gh", url: "{parent.commentsUrl}", response: true)
}
type CommentPage {
  status: Int
  items: [Comment] @from(path: "body")
  next: String @from(path: "headers.link.next")
  last: String @from(path: "headers.link.last")
  total: Int @from(path: "headers.x-total-count")
  etag: String @from(path: "headers.etag")
  nextPage: CommentPage @fetch(source: "gh", url: "{parent.next}", response: true)
}
type Comment { id: ID body: String }
`;

describe('GitHub-class conventions', () => {
  let gh: CountingUpstream;
  let elsewhere: CountingUpstream;
  let gw: TestGateway;

  const comments = (n: number, page: number): { status: number; json: unknown; headers: Record<string, string> } => {
    const base = `${gh.url}/api/v3/repos/o/r/issues/${n}/comments`;
    const links = [page < 2 ? `<${base}?page=${page + 1}>; rel="next"` : '', `<${base}?page=2>; rel="last"`].filter(Boolean);
    return {
      status: 200,
      json: [{ id: `${n}-${page}`, body: `comment ${page}` }],
      headers: { link: links.join(', '), 'x-total-count': '2', etag: `"c${n}p${page}"` },
    };
  };

  before(async () => {
    elsewhere = await startUpstream({ 'GET /api/v3/repos/:o/:r': () => ({ json: { name: 'evil' } }) });
    gh = await startUpstream({
      'GET /api/v3/search/issues': ({ search }) => ({ json: { total_count: 1, items: [{ number: 1, title: search }] } }),
      'GET /api/v3/users/:login': ({ params }) =>
        params.login === 'ghost' ? { status: 404, json: { message: 'Not Found' } } : { json: { login: params.login } },
      'GET /api/v3/repos/:owner/:name': ({ params }) => {
        if (params.name === 'renamed')
          return { status: 301, json: { message: 'Moved Permanently' }, headers: { location: `${gh.url}/api/v3/repositories/42` } };
        if (params.name === 'relative') return { status: 307, json: {}, headers: { location: '/api/v3/repositories/42' } };
        if (params.name === 'away') return { status: 301, json: {}, headers: { location: `${elsewhere.url}/api/v3/repos/o/r` } };
        if (params.name === 'outside-base') return { status: 302, json: {}, headers: { location: `${gh.url}/repositories/42` } };
        if (params.name.startsWith('hop')) {
          const n = Number(params.name.slice(3));
          return n === 0
            ? { json: { name: 'landed', owner: { login: 'octocat' } } }
            : { status: 302, json: {}, headers: { location: `/api/v3/repos/o/hop${n - 1}` } };
        }
        return { json: { name: params.name, owner: { login: params.name === 'dots' ? '..' : params.owner } } };
      },
      'PATCH /api/v3/repos/o/:name': () => ({ status: 307, json: {}, headers: { location: `${gh.url}/api/v3/repositories/42` } }),
      'GET /api/v3/repositories/:id': () => ({ json: { name: 'new-name', owner: { login: 'octocat' } } }),
      'GET /api/v3/orgs/:owner/repos': ({ params }) => ({ json: [{ name: `${params.owner}-all` }] }),
      'GET /api/v3/orgs/:owner/:name/repos': ({ params }) => ({ json: [{ name: `${params.owner}-${params.name}` }] }),
      'GET /api/v3/repos/:o/:r/issues/:n': ({ params }) => ({
        json: { number: Number(params.n), title: 't', comments_url: `${gh.url}/api/v3/repos/o/r/issues/${params.n}/comments` },
      }),
      'GET /api/v3/repos/:o/:r/issues/:n/comments': ({ params, query }) => comments(Number(params.n), Number(query.get('page') ?? '1')),
    });
    gw = await startTestGateway({
      sources: {
        gh: { url: `${gh.url}/api/v3`, extra: 'follow_redirects = 3' },
        other: { url: `${elsewhere.url}/api/v3`, extra: 'user_agent = "octo-app/2.0"\nfollow_redirects = 0' },
      },
      schemas: { 'schema.graphqls': SCHEMA },
    });
  });
  after(async () => {
    await gw?.close();
    await gh?.close();
    await elsewhere?.close();
  });
  beforeEach(() => {
    gh.reset();
    elsewhere.reset();
  });

  const lines = (u: CountingUpstream): string[] => u.requests.map((r) => `${r.method} ${r.url}`);

  test('an optional query part is left out when its placeholder is null, and the parameter stays', async () => {
    const res = await gw.query(`{
      a: searchIssues(repo: "o/r", label: "bug") { total }
      b: searchIssues(repo: "o/r") { total }
      c: searchIssues(repo: "o/r", state: "open") { total }
    }`);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    assert.deepEqual(lines(gh).sort(), [
      'GET /api/v3/search/issues?q=repo:o%2Fr&per_page=2',
      'GET /api/v3/search/issues?q=repo:o%2Fr+label:bug&per_page=2',
      'GET /api/v3/search/issues?q=repo:o%2Fr+state:open&per_page=2',
    ]);
  });

  test('an optional path part is left out with its null placeholder', async () => {
    const res = await gw.query('{ a: optionalTail(owner: "o") { name } b: optionalTail(owner: "o", name: "x") { name } }');
    assert.deepEqual(res.body.data, { a: [{ name: 'o-all' }], b: [{ name: 'o-x' }] });
    assert.deepEqual(lines(gh).sort(), ['GET /api/v3/orgs/o/repos', 'GET /api/v3/orgs/o/x/repos']);
  });

  test('an argument making a path segment "..", "." or empty is BAD_USER_INPUT at its path, and nothing is sent', async () => {
    const res = await gw.query(
      '{ a: repo(owner: "..", name: "orgs") { name } b: repo(owner: "o", name: ".") { name } c: user(login: "") { login } d: repo(owner: "o", name: "..x") { name } }',
    );
    for (const key of ['a', 'b', 'c']) {
      const e = errorAt(res.body, [key]);
      assert.equal(e.extensions?.code, 'BAD_USER_INPUT');
      assert.doesNotMatch(e.message, /orgs/);
    }
    assert.deepEqual(res.body.data, { a: null, b: null, c: null, d: { name: '..x' } });
    assert.deepEqual(lines(gh), ['GET /api/v3/repos/o/..x']);
  });

  test('data making a path segment ".." is UPSTREAM_BAD_RESPONSE at its path, and nothing is sent', async () => {
    const res = await gw.query(
      '{ a: repo(owner: "o", name: "dots") { owner { login } } b: repo(owner: "o", name: "fine") { owner { login } } }',
    );
    assert.equal(errorAt(res.body, ['a', 'owner']).extensions?.code, 'UPSTREAM_BAD_RESPONSE');
    assert.deepEqual(res.body.data, { a: { owner: null }, b: { owner: { login: 'o' } } });
    assert.deepEqual(lines(gh).sort(), ['GET /api/v3/repos/o/dots', 'GET /api/v3/repos/o/fine', 'GET /api/v3/users/o']);
  });

  test('comments followed through comments_url, a page with next and total from Link and X-Total-Count, next fetched by url:', async () => {
    const res = await gw.query(
      '{ issue(owner: "o", repo: "r", number: 7) { comments { status total etag items { id } next last nextPage { items { id } next } } } }',
    );
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    const base = `${gh.url}/api/v3/repos/o/r/issues/7/comments`;
    assert.deepEqual(res.body.data, {
      issue: {
        comments: {
          status: 200,
          total: 2,
          etag: '"c7p1"',
          items: [{ id: '7-1' }],
          next: `${base}?page=2`,
          last: `${base}?page=2`,
          nextPage: { items: [{ id: '7-2' }], next: null },
        },
      },
    });
    assert.deepEqual(lines(gh), [
      'GET /api/v3/repos/o/r/issues/7',
      'GET /api/v3/repos/o/r/issues/7/comments',
      'GET /api/v3/repos/o/r/issues/7/comments?page=2',
    ]);
    assert.deepEqual(debugCounts(res), { rounds: 3, subrequests: 3, batches: 0 });
  });

  test('a response value: lower-case header names, repeated headers joined with ", ", link parsed by rel', async () => {
    gh.setRoute('GET /api/v3/repos/:o/:r/issues/:n/comments', () => ({
      json: [],
      headers: { 'X-Total-Count': '0', link: '<a>; rel="prev first", <b>; rel=next' },
    }));
    const schemaProbe = await gw.query(
      '{ page(url: "' + gh.url + '/api/v3/repos/o/r/issues/1/comments") { status next total items { id } } }',
    );
    assert.deepEqual(schemaProbe.body.data, { page: { status: 200, next: 'b', total: 0, items: [] } });
    gh.setRoute('GET /api/v3/repos/:o/:r/issues/:n/comments', ({ params, query }) =>
      comments(Number(params.n), Number(query.get('page') ?? '1')),
    );
  });

  test('a url: elsewhere (another origin, outside the base path, a dot-segment, userinfo) is UPSTREAM_URL_REFUSED and nothing is sent', async () => {
    const refused = [
      `${elsewhere.url}/api/v3/repos/o/r`,
      `${gh.url}/api/v3evil/repos/o/r`,
      `${gh.url}/repos/o/r`,
      `${gh.url}/api/v3/repos/../../admin`,
      `${gh.url}/api/v3/repos/%2e%2e/admin`,
      gh.url.replace('http://', 'http://me@') + '/api/v3/repos/o/r',
      gh.url.replace('http://', 'https://') + '/api/v3/repos/o/r',
      'not a url',
    ];
    const res = await gw.query(
      `{ ${refused.map((_, i) => `p${i}: page(url: ${JSON.stringify(refused[i])}) { status }`).join(' ')} none: page(url: null) { status } }`,
    );
    for (let i = 0; i < refused.length; i++)
      assert.equal(errorAt(res.body, [`p${i}`]).extensions?.code, 'UPSTREAM_URL_REFUSED', refused[i]);
    assert.equal(res.body.data?.none, null);
    assert.deepEqual(lines(gh), []);
    assert.deepEqual(lines(elsewhere), []);
    assert.equal(debugCounts(res).subrequests, 0);
  });

  test('a renamed repository (301, relative 307) is followed: one hop each, under the path asked', async () => {
    const followed = async (): Promise<number> =>
      metricValue((await gw.get('/metrics')).text, 'gqlgw_upstream_redirects_total', {
        coordinate: 'Query.repo',
        source: 'gh',
        result: 'followed',
      }) || 0;
    const followedBefore = await followed();
    const res = await gw.query('{ a: repo(owner: "o", name: "renamed") { name } b: repo(owner: "o", name: "relative") { name } }');
    assert.deepEqual(res.body.data, { a: { name: 'new-name' }, b: { name: 'new-name' } });
    assert.deepEqual(lines(gh).sort(), [
      'GET /api/v3/repos/o/relative',
      'GET /api/v3/repos/o/renamed',
      'GET /api/v3/repositories/42',
      'GET /api/v3/repositories/42',
    ]);
    assert.equal(debugCounts(res).subrequests, 4);
    assert.equal((await followed()) - followedBefore, 2);
  });

  test('follow_redirects = 3: three hops are followed, a fourth is UPSTREAM_HTTP_ERROR 302', async () => {
    const ok = await gw.query('{ repo(owner: "o", name: "hop3") { name } }');
    assert.deepEqual(ok.body.data, { repo: { name: 'landed' } });
    assert.deepEqual(lines(gh), [
      'GET /api/v3/repos/o/hop3',
      'GET /api/v3/repos/o/hop2',
      'GET /api/v3/repos/o/hop1',
      'GET /api/v3/repos/o/hop0',
    ]);
    gh.reset();
    const past = await gw.query('{ repo(owner: "o", name: "hop4") { name } }');
    const e = errorAt(past.body, ['repo']);
    assert.equal(e.extensions?.code, 'UPSTREAM_HTTP_ERROR');
    assert.equal(e.extensions?.status, 302);
    assert.equal(gh.count(), 4);
  });

  test('a redirect to another origin or outside the base path is never followed: UPSTREAM_HTTP_ERROR with its status', async () => {
    const res = await gw.query('{ a: repo(owner: "o", name: "away") { name } b: repo(owner: "o", name: "outside-base") { name } }');
    assert.equal(errorAt(res.body, ['a']).extensions?.status, 301);
    assert.equal(errorAt(res.body, ['b']).extensions?.status, 302);
    assert.deepEqual(lines(gh).sort(), ['GET /api/v3/repos/o/away', 'GET /api/v3/repos/o/outside-base']);
    assert.deepEqual(lines(elsewhere), []);
    const metrics = (await gw.get('/metrics')).text;
    assert.ok(metricValue(metrics, 'gqlgw_upstream_redirects_total', { coordinate: 'Query.repo', source: 'gh', result: 'refused' }) >= 2);
  });

  test('a mutation never follows a redirect: UPSTREAM_HTTP_ERROR with its status, one request', async () => {
    const res = await gw.query('mutation { rename(name: "x") { name } }');
    assert.equal(errorAt(res.body, ['rename']).extensions?.status, 307);
    assert.deepEqual(lines(gh), ['PATCH /api/v3/repos/o/x']);
  });

  test('a url: is cached under the path after the base: the same resource by path: is answered from the cache', async () => {
    const url = `${gh.url}/api/v3/repos/o/r/issues/3/comments`;
    const first = await gw.query(`{ cachedPage(url: ${JSON.stringify(url)}) { total items { id } } }`);
    assert.deepEqual(first.body.data, { cachedPage: { total: 2, items: [{ id: '3-1' }] } });
    const second = await gw.query('{ cachedComments(n: 3) { total items { id } } }');
    assert.deepEqual(second.body.data, { cachedComments: { total: 2, items: [{ id: '3-1' }] } });
    assert.deepEqual(lines(gh), ['GET /api/v3/repos/o/r/issues/3/comments']);
    assert.equal(debugCounts(second).subrequests, 0);
  });

  test("User-Agent: gqlgw/VERSION by default, the source's user_agent when set", async () => {
    await gw.query('{ user(login: "a") { login } other { name } }');
    assert.equal(gh.requests[0]?.headers['user-agent'], `gqlgw/${PACKAGE_VERSION}`);
    assert.equal(elsewhere.requests[0]?.headers['user-agent'], 'octo-app/2.0');
  });

  test('NOT_FOUND on a non-null field carries the detail (method, path, status) in debug mode', async () => {
    const res = await gw.query('{ strictUser(login: "ghost") { login } }');
    const e = errorAt(res.body, ['strictUser']);
    assert.equal(e.extensions?.code, 'NOT_FOUND');
    assert.match(String(e.extensions?.detail), /^GET \/users\/ghost → 404: /);
  });
});
