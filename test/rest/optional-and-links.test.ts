/**
 * The pure parts of issue 35, table-driven: optional `[ ]` parts and the dot/empty segment rule of
 * directives/template.ts, the URL admission of directives/url-link.ts, the Link header parser and
 * the prefix rules of @invalidate(prefix: true).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NO_KEY, compilePathTemplate, resolvePathTemplate, type PathRefusal } from '../../directives/template.js';
import { pathOfUrl } from '../../directives/url-link.js';
import { parseLinkHeader } from '../../gateway/upstream/response-value.js';
import { compilePrefixRule, prefixesOf } from '../../directives/prefix-rule.js';

const resolve = (template: string, args: Record<string, unknown>, parent: unknown = {}): string | null | PathRefusal => {
  const compiled = compilePathTemplate(template);
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.error);
  return resolvePathTemplate(compiled.template, { parent, args, keys: undefined, key: NO_KEY });
};

test('optional parts: left out with a null placeholder, literal [[ ]], nested groups, in paths and query values', () => {
  const rows: Array<[string, Record<string, unknown>, string | null]> = [
    ['/s?q=repo:{args.r}[+label:{args.l}]', { r: 'o/r', l: 'bug' }, '/s?q=repo:o%2Fr+label:bug'],
    ['/s?q=repo:{args.r}[+label:{args.l}]', { r: 'o/r' }, '/s?q=repo:o%2Fr'],
    ['/s?q=repo:{args.r}[+label:{args.l}]', { r: 'o/r', l: [] }, '/s?q=repo:o%2Fr'],
    ['/s?q=[a:{args.a}][b:{args.b}]', {}, '/s'],
    // Nested: "]]" is a literal bracket, so a group inside a group closes apart from it.
    ['/s?q=x[+a:{args.a}[+b:{args.b}]+]', { a: 1 }, '/s?q=x+a:1+'],
    ['/s?q=x[+a:{args.a}[+b:{args.b}]+]', { a: 1, b: 2 }, '/s?q=x+a:1+b:2+'],
    ['/s?q=x[+a:{args.a}[+b:{args.b}]+]', { b: 2 }, '/s?q=x'],
    ['/s?filter[[state]]={args.s}', { s: 'open' }, '/s?filter[state]=open'],
    ['/orgs/{args.o}[/teams/{args.t}]/members', { o: 'gh' }, '/orgs/gh/members'],
    ['/orgs/{args.o}[/teams/{args.t}]/members', { o: 'gh', t: 'core' }, '/orgs/gh/teams/core/members'],
    ['/orgs/{args.o}/members', {}, null],
  ];
  for (const [template, args, want] of rows) assert.equal(resolve(template, args), want, `${template} ${JSON.stringify(args)}`);
});

test('segments: a value making a whole segment ".", ".." or empty is refused, saying whose value it was', () => {
  const args: Array<[string, Record<string, unknown>, unknown, string | PathRefusal | null]> = [
    ['/users/{args.id}', { id: '..' }, {}, { from: 'args' }],
    ['/users/{args.id}', { id: '.' }, {}, { from: 'args' }],
    ['/users/{args.id}', { id: '' }, {}, { from: 'args' }],
    ['/users/{args.id}/posts', { id: '' }, {}, { from: 'args' }],
    ['/users/{parent.id}', {}, { id: '..' }, { from: 'data' }],
    ['/users/{parent.a}{args.b}', { b: '.' }, { a: '.' }, { from: 'args' }],
    ['/tags/{args.ids}', { ids: ['..'] }, {}, { from: 'args' }],
    ['/users/{args.id}', { id: '...' }, {}, '/users/...'],
    ['/users/{args.id}.json', { id: '.' }, {}, '/users/..json'],
    ['/users/{args.id}', { id: '%2e%2e' }, {}, '/users/%252e%252e'],
    ['/users/x[/{args.id}]', { id: '..' }, {}, { from: 'args' }],
    ['/users/x[/{args.id}{args.n}]', { id: '..' }, {}, '/users/x'],
    ['/users?id={args.id}', { id: '..' }, {}, '/users?id=..'],
  ];
  for (const [template, a, parent, want] of args) assert.deepEqual(resolve(template, a, parent), want, `${template} ${JSON.stringify(a)}`);
});

test('url: admits URLs of the source only: origin, base path as whole segments, no dot or empty segment', () => {
  const base = { origin: 'http://127.0.0.1:4001', basePath: '/api/v3' };
  const rows: Array<[unknown, string | null | PathRefusal]> = [
    ['http://127.0.0.1:4001/api/v3/repos/o/r/issues/1/comments', '/repos/o/r/issues/1/comments'],
    ['http://127.0.0.1:4001/api/v3/repos/o/r?page=2&per_page=30', '/repos/o/r?page=2&per_page=30'],
    ['HTTP://127.0.0.1:4001/api/v3/x', '/x'],
    ['http://127.0.0.1:4001/api/v3', '/'],
    [null, null],
    [undefined, null],
    ['http://127.0.0.1:4002/api/v3/x', { from: 'url' }],
    ['https://127.0.0.1:4001/api/v3/x', { from: 'url' }],
    ['http://localhost:4001/api/v3/x', { from: 'url' }],
    ['http://127.0.0.1:4001/api/v3evil/x', { from: 'url' }],
    ['http://127.0.0.1:4001/x', { from: 'url' }],
    ['http://127.0.0.1:4001/api/v3/a/../../x', { from: 'url' }],
    ['http://127.0.0.1:4001/api/v3/a/%2E%2e/x', { from: 'url' }],
    ['http://127.0.0.1:4001/api/v3/a//x', { from: 'url' }],
    ['http://u:p@127.0.0.1:4001/api/v3/x', { from: 'url' }],
    ['http://127.0.0.1:4001\\@evil/api/v3/x', { from: 'url' }],
    ['http://127.0.0.1:4001/api/v3/x#frag', { from: 'url' }],
    ['http://127.0.0.1:4001/api/v3/a b', { from: 'url' }],
    ['/api/v3/x', { from: 'url' }],
    [42, { from: 'url' }],
  ];
  for (const [value, want] of rows) assert.deepEqual(pathOfUrl(value, base), want, String(value));
  assert.equal(pathOfUrl('http://127.0.0.1:80/x', { origin: 'http://127.0.0.1', basePath: '' }), '/x');
});

test('Link headers parse into rel → URL; several rels, unquoted rels, the first of a rel wins', () => {
  assert.deepEqual(parseLinkHeader('<https://h/x?page=2>; rel="next", <https://h/x?page=5>; rel="last"'), {
    next: 'https://h/x?page=2',
    last: 'https://h/x?page=5',
  });
  assert.deepEqual(parseLinkHeader('<a>; rel="prev first", <b>; title="t"; rel=next, <c>; rel="next", <d>'), {
    prev: 'a',
    first: 'a',
    next: 'b',
  });
  assert.deepEqual(parseLinkHeader('garbage'), {});
  assert.deepEqual(Object.getPrototypeOf(parseLinkHeader('<x>; rel="__proto__"')), Object.prototype);
});

test('prefix rules find whole-segment prefixes only', () => {
  const compiled = compilePathTemplate('/repos/{args.o}/{args.r}/issues/{args.n}/comments');
  assert.ok(compiled.ok);
  const rules = [compilePrefixRule(compiled.template)];
  assert.deepEqual(prefixesOf('/repos/a/b/issues/1/comments?page=2', rules), ['/repos/a/b/issues/1/comments']);
  assert.deepEqual(prefixesOf('/repos/a/b/issues/1/comments/9', rules), ['/repos/a/b/issues/1/comments']);
  assert.deepEqual(prefixesOf('/repos/a/b/issues/1/commentsX', rules), []);
  assert.deepEqual(prefixesOf('/repos/a/b/issues/1', rules), []);
  assert.deepEqual(prefixesOf('/repos/a/b/pulls/1/comments', rules), []);
});
