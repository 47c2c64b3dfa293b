/**
 * The path-template module (directives/template.ts), table-driven: parsing, dotted placeholders,
 * list values (comma-joined, repeated, left out when empty), nulls, objects never in a URL.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NO_KEY, compilePathTemplate, keyString, resolvePathTemplate, type TemplateInput } from '../../directives/template.js';
import { dottedReader, parseDottedName, readDotted } from '../../directives/dotted.js';

interface Row {
  readonly name: string;
  readonly template: string;
  readonly repeat?: boolean;
  readonly parent?: unknown;
  readonly args?: Record<string, unknown>;
  readonly keys?: readonly unknown[];
  readonly key?: unknown;
  readonly want: string | null;
}

const rows: Row[] = [
  { name: 'scalar parent', template: '/users/{parent.id}', parent: { id: 42 }, want: '/users/42' },
  { name: 'URL-encoded', template: '/s/{args.q}', args: { q: 'a b/c&d' }, want: '/s/a%20b%2Fc%26d' },
  { name: 'dotted parent', template: '/users/{parent.owner.login}', parent: { owner: { login: 'oct cat' } }, want: '/users/oct%20cat' },
  { name: 'dotted parent, missing step', template: '/users/{parent.owner.login}', parent: { owner: null }, want: null },
  { name: 'dotted parent through a list is null', template: '/u/{parent.owner.login}', parent: { owner: [{ login: 'x' }] }, want: null },
  { name: 'dotted args', template: '/issues?state={args.filter.state}', args: { filter: { state: 'open' } }, want: '/issues?state=open' },
  { name: 'null query parameter left out', template: '/issues?state={args.filter.state}&x=1', args: { filter: {} }, want: '/issues?x=1' },
  { name: 'null path part: no request', template: '/users/{parent.id}', parent: {}, want: null },
  {
    name: 'list in query, comma-joined',
    template: '/tags?slugs={parent.tagIds}',
    parent: { tagIds: ['graphql', 'rest'] },
    want: '/tags?slugs=graphql,rest',
  },
  { name: 'list elements encoded one by one', template: '/tags?s={args.s}', args: { s: ['a,b', 'c d'] }, want: '/tags?s=a%2Cb,c%20d' },
  { name: 'list in path, comma-joined', template: '/tags/{parent.tagIds}', parent: { tagIds: ['a', 'b'] }, want: '/tags/a,b' },
  {
    name: 'empty list in query: parameter left out',
    template: '/tags?slugs={parent.tagIds}&limit=2',
    parent: { tagIds: [] },
    want: '/tags?limit=2',
  },
  { name: 'empty list in path: no request', template: '/tags/{parent.tagIds}', parent: { tagIds: [] }, want: null },
  { name: 'null elements skipped', template: '/t?ids={args.ids}', args: { ids: [1, null, 3] }, want: '/t?ids=1,3' },
  { name: 'only nulls: left out', template: '/t?ids={args.ids}', args: { ids: [null] }, want: '/t' },
  {
    name: 'repeat: one parameter per element',
    template: '/t?id={args.ids}',
    repeat: true,
    args: { ids: [1, 2, 'a b'] },
    want: '/t?id=1&id=2&id=a%20b',
  },
  { name: 'repeat: empty list left out', template: '/t?id={args.ids}&x=y', repeat: true, args: { ids: [] }, want: '/t?x=y' },
  { name: 'repeat: a scalar stays one parameter', template: '/t?id={args.ids}', repeat: true, args: { ids: 7 }, want: '/t?id=7' },
  {
    name: 'repeat: not a whole value, comma-joined',
    template: '/t?q=id:{args.ids}',
    repeat: true,
    args: { ids: [1, 2] },
    want: '/t?q=id:1,2',
  },
  { name: 'repeat: list in the path still comma-joined', template: '/t/{args.ids}', repeat: true, args: { ids: [1, 2] }, want: '/t/1,2' },
  { name: 'an object is never rendered (query)', template: '/t?f={args.f}&x=1', args: { f: { a: 1 } }, want: '/t?x=1' },
  { name: 'an object is never rendered (path)', template: '/t/{args.f}', args: { f: { a: 1 } }, want: null },
  { name: 'objects inside a list are skipped', template: '/t?ids={args.ids}', args: { ids: [{ a: 1 }, 2] }, want: '/t?ids=2' },
  { name: 'keys comma-joined', template: '/users?ids={keys}', keys: [1, '2', 'x y'], want: '/users?ids=1,2,x%20y' },
  { name: 'keys repeated', template: '/users?id={keys}&v=1', repeat: true, keys: [1, 2], want: '/users?id=1&id=2&v=1' },
  {
    name: 'a single key replaces {parent.*}',
    template: '/tags/{parent.tagIds}',
    parent: { tagIds: ['a', 'b'] },
    key: 'b',
    want: '/tags/b',
  },
  { name: 'booleans and numbers', template: '/t?a={args.a}&b={args.b}', args: { a: false, b: 1.5 }, want: '/t?a=false&b=1.5' },
];

for (const row of rows) {
  test(`template: ${row.name}`, () => {
    const compiled = compilePathTemplate(row.template, { repeat: row.repeat });
    assert.ok(compiled.ok, compiled.ok ? '' : compiled.error);
    const input: TemplateInput = { parent: row.parent, args: row.args ?? {}, keys: row.keys, key: 'key' in row ? row.key : NO_KEY };
    assert.equal(resolvePathTemplate(compiled.template, input), row.want);
  });
}

test('template: one input object can be reused for many resolutions', () => {
  const compiled = compilePathTemplate('/u/{parent.id}?v={args.v}');
  assert.ok(compiled.ok);
  const input = { parent: { id: 1 } as unknown, args: { v: 'a' } as Record<string, unknown>, keys: undefined, key: NO_KEY as unknown };
  assert.equal(resolvePathTemplate(compiled.template, input), '/u/1?v=a');
  input.parent = { id: 2 };
  input.args = {};
  assert.equal(resolvePathTemplate(compiled.template, input), '/u/2');
});

const parseRows: Array<[string, string]> = [
  ['users/{parent.id}', 'must start with "/"'],
  [
    '/u/{parent.}',
    'placeholder "{parent.}" needs field or argument names after "parent.", joined by "." (such as {parent.a.b}) at offset 3',
  ],
  [
    '/u/{parent.a..b}',
    'placeholder "{parent.a..b}" needs field or argument names after "parent.", joined by "." (such as {parent.a.b}) at offset 3',
  ],
  ['/u/{other.a}', 'unknown placeholder "{other.a}" (use {parent.FIELD}, {args.NAME} or {keys}) at offset 3'],
  ['/u/{parent.a', 'unclosed "{" at offset 3'],
  ['/u/parent.a}', 'unmatched "}" at offset 11'],
  ['/u?{args.a}=1', 'placeholder in a query parameter name at offset 3'],
];

for (const [text, error] of parseRows) {
  test(`template refuses ${text}`, () => {
    assert.deepEqual(compilePathTemplate(text), { ok: false, error });
  });
}

test('template: dotted placeholders parse into steps; whole-value parameters are marked', () => {
  const compiled = compilePathTemplate('/r/{parent.owner.login}?id={args.f.ids}&q=x{args.q}', { repeat: true });
  assert.ok(compiled.ok);
  const [owner, ids, q] = compiled.template.placeholders;
  assert.deepEqual(owner, { kind: 'parent', name: 'owner.login', steps: ['owner', 'login'], read: ['owner', 'login'] });
  assert.deepEqual(ids, { kind: 'args', name: 'f.ids', steps: ['f', 'ids'], read: ['f', 'ids'] });
  assert.equal(compiled.template.query[0]!.whole?.placeholder, ids);
  assert.equal(compiled.template.query[1]!.whole, undefined, 'q=x{args.q} is not a whole value');
  assert.equal(q?.kind, 'args');
  assert.equal(compiled.template.repeat, true);
});

test('keyString: scalars by String(), never objects, lists or null', () => {
  assert.equal(keyString('7'), '7');
  assert.equal(keyString(7), '7');
  assert.equal(keyString(true), 'true');
  assert.equal(keyString(null), undefined);
  assert.equal(keyString(undefined), undefined);
  assert.equal(keyString(['a']), undefined);
  assert.equal(keyString({ id: 1 }), undefined);
});

test('dotted names: parse and read', () => {
  assert.deepEqual(parseDottedName('data.items'), ['data', 'items']);
  assert.deepEqual(parseDottedName('author_id'), ['author_id']);
  assert.deepEqual(parseDottedName('x-total'), ['x-total']);
  for (const bad of ['', 'data.', '.data', 'data..items', 'data[0]', '$.data', 'a b', '{keys}', 'data/items']) {
    assert.equal(parseDottedName(bad), undefined, bad);
  }
  assert.equal(readDotted({ data: { items: [1] } }, ['data', 'items']) instanceof Array, true);
  assert.equal(readDotted({ data: null }, ['data', 'items']), undefined);
  assert.equal(readDotted({ data: [{ items: 1 }] }, ['data', 'items']), undefined);
  assert.equal(readDotted('text', ['length']), undefined);
});

test('a compiled dotted reader reads exactly what readDotted reads', () => {
  const values: unknown[] = [
    { data: { items: [1] } },
    { data: null },
    { data: [{ items: 1 }] },
    { data: { items: 0 } },
    { data: { items: '' } },
    { data: {} },
    { 'x-total': 7, author_id: 3, data: { items: false } },
    { '0': { '1': 'numeric keys' } },
    Object.create({ data: { items: 'inherited' } }) as unknown,
    [{ data: 1 }],
    'text',
    42,
    null,
    undefined,
  ];
  const names = ['data.items', 'data', 'author_id', 'x-total', '0.1', 'length', 'constructor', '__proto__', 'toString.name'];
  for (const name of names) {
    const steps = parseDottedName(name)!;
    const read = dottedReader(steps);
    for (const v of values) assert.equal(read(v), readDotted(v, steps), `${name} of ${JSON.stringify(v)}`);
  }
  assert.equal(dottedReader(['a"b\\c'])({ 'a"b\\c': 'quoted' }), 'quoted', 'a step is only ever a string literal in the code');
});
