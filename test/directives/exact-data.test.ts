/**
 * Issue 45, the pure template rows: brackets around no placeholder are literal in paths and queries
 * (directives/template.ts), and in a body an object member whose `{args.…}` the caller did not give
 * is left out, while one given as null is sent as `null` (directives/body-template.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileBodyTemplate, renderBodyTemplate, type BodyPlaceholder } from '../../directives/body-template.js';
import { NO_KEY, compilePathTemplate, resolvePathTemplate } from '../../directives/template.js';
import { readDotted } from '../../directives/dotted.js';
import { schemaProblems } from '../support/schema-problems.js';

test('brackets around no placeholder are literal text; only brackets holding a placeholder are optional', () => {
  const rows: Array<[string, Record<string, unknown>, unknown, string | null]> = [
    ['/bar?baz=static_value&barId[]={parent.barId}', {}, { barId: 7 }, '/bar?baz=static_value&barId[]=7'],
    ['/t?page[size]=25&filter[status]={args.s}', { s: 'open' }, {}, '/t?page[size]=25&filter[status]=open'],
    ['/t?page[size]=25&filter[status]={args.s}', {}, {}, '/t?page[size]=25'],
    ['/t/[x]/{args.s}', { s: 'a' }, {}, '/t/[x]/a'],
    ['/t?q=[a[b]:{args.s}]', {}, {}, '/t'],
    ['/t?q=[a[b]:{args.s}]', { s: 1 }, {}, '/t?q=a[b]:1'],
    ['/t?ids[]={args.ids}', { ids: [1, 2] }, {}, '/t?ids[]=1,2'],
    ['/t?q=[[{args.s}]]', { s: 'x' }, {}, '/t?q=[x]'],
  ];
  for (const [text, args, parent, want] of rows) {
    const compiled = compilePathTemplate(text);
    assert.ok(compiled.ok, compiled.ok ? '' : `${text}: ${compiled.error}`);
    assert.equal(resolvePathTemplate(compiled.template, { parent, args, keys: undefined, key: NO_KEY }), want, text);
  }
  const repeated = compilePathTemplate('/t?ids[]={args.ids}', { repeat: true });
  assert.ok(repeated.ok);
  assert.equal(
    resolvePathTemplate(repeated.template, { parent: {}, args: { ids: [1, 2] }, keys: undefined, key: NO_KEY }),
    '/t?ids[]=1&ids[]=2',
  );
  assert.deepEqual(compilePathTemplate('/t?q=a]'), { ok: false, error: 'unmatched "]" at offset 6 (write "]]" for a literal "]")' });
});

test('a body member whose argument was not given is left out; given as null it is null', () => {
  const render = (text: string, args: Record<string, unknown>): string => {
    const compiled = compileBodyTemplate(text);
    assert.ok(compiled.ok, compiled.ok ? '' : compiled.error);
    return renderBodyTemplate(compiled.template, (p: BodyPlaceholder) => (p.kind === 'args' ? readDotted(args, p.path) : 'P'));
  };
  const ticket = '{"ticket": {"status": {args.patch.status}, "priority": {args.patch.priority}}}';
  assert.equal(render(ticket, { patch: { status: 'open' } }), '{"ticket": {"status": "open"}}');
  assert.equal(render(ticket, { patch: { priority: 'low' } }), '{"ticket": {"priority": "low"}}');
  assert.equal(render(ticket, { patch: { priority: null } }), '{"ticket": {"priority": null}}');
  assert.equal(render(ticket, { patch: {} }), '{"ticket": {}}');
  const three = '{ "a" : {args.a} ,"b":{args.b}, "c": {args.c}, "p": {parent.x} }';
  assert.equal(render(three, {}), '{ "p": "P" }');
  assert.equal(render(three, { b: 2 }), '{ "b":2, "p": "P" }');
  assert.equal(render(three, { a: null, c: 3 }), '{ "a" : null, "c": 3, "p": "P" }');
  assert.equal(render('{"a": {args.a}, "b": {args.b}}', { b: 1 }), '{"b": 1}');
  assert.equal(render('{"a": {args.a}, "b": {args.b}}', { a: 1 }), '{"a": 1}');
  // Not a member's whole value: rendered as before (a list element, inside a string, a parent value).
  assert.equal(render('{"l": [{args.a}], "s": "x{args.a}", "p": {parent.q}}', {}), '{"l": [null], "s": "x", "p": "P"}');
  for (const args of [{}, { a: 1 }, { b: [1] }, { a: null, b: null }]) {
    JSON.parse(render('{"x": {"a": {args.a}}, "y": [{"b": {args.b}}], "z": {args.a}}', args));
  }
});

test('@from on an input field takes only a key, one wire name per field', async () => {
  const problems = await schemaProblems(
    `type Query { x(f: F): Int @fetch(source: "s", path: "/x?a={args.f.a}") }
input F {
  a: ID @from(key: "a_id")
  b: ID @from(path: "b.c")
  c: ID @from(key: "a_id")
}`,
    ['s'],
  );
  assert.deepEqual(problems, [
    '4:9: @from on input field F.b takes only key: its name on the wire, such as @from(key: "assignee_id")',
    '5:9: input F: c and a have the same wire name "a_id"',
  ]);
});
