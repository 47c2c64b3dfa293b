/**
 * The JSON body template language (directives/body-template.ts): what compiles, what is refused
 * and why, and what each placeholder renders to inside and outside JSON strings.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileBodyTemplate, renderBodyTemplate, type BodyPlaceholder } from '../../directives/body-template.js';

const ARGS: Record<string, unknown> = {
  id: 42,
  sid: '7',
  title: 'He said "hi"\n\\o/',
  input: { title: 'T', tags: ['a', 'b'], nested: { n: null } },
  tags: ['x', 'y'],
  none: null,
  flag: true,
};
const PARENT: Record<string, unknown> = { id: 'p1', owner: { login: 'ann' } };
const RESULT: Record<string, unknown> = { id: 9 };
const KEYS = [1, '2', 3];

/** Reads a dotted placeholder from the fixtures above, as the executor would. */
function values(p: BodyPlaceholder): unknown {
  if (p.kind === 'keys') return KEYS;
  let v: unknown = p.kind === 'args' ? ARGS : p.kind === 'parent' ? PARENT : RESULT;
  for (const step of p.path) v = v === null || typeof v !== 'object' ? undefined : (v as Record<string, unknown>)[step];
  return v;
}

function render(text: string): unknown {
  const compiled = compileBodyTemplate(text);
  assert.ok(compiled.ok, `${text}: ${compiled.ok ? '' : compiled.error}`);
  const out = renderBodyTemplate(compiled.template, values);
  return JSON.parse(out);
}

describe('body templates: rendering', () => {
  const cases: Array<[string, string, unknown]> = [
    ['whole body is one object placeholder', '{args.input}', ARGS.input],
    ['number outside a string', '{"id": {args.id}}', { id: 42 }],
    ['string outside a string is quoted and escaped', '{"t": {args.title}}', { t: ARGS.title }],
    ['list outside a string is an array', '{"tags": {args.tags}}', { tags: ['x', 'y'] }],
    ['null outside a string is null', '{"n": {args.none}}', { n: null }],
    ['missing value outside a string is null', '[{args.nope}]', [null]],
    ['a member whose argument was not given is left out', '{"n": {args.nope}}', {}],
    ['boolean outside a string', '[{args.flag}]', [true]],
    ['dotted args path', '{"title": {args.input.title}, "n": {args.input.nested.n}}', { title: 'T', n: null }],
    ['dotted parent path', '{"who": {parent.owner.login}}', { who: 'ann' }],
    ['result placeholder', '{"id": {result.id}}', { id: 9 }],
    ['keys keep their JSON types', '{"ids": {keys}}', { ids: [1, '2', 3] }],
    ['number inside a string is its string form', '{"s": "post-{args.id}"}', { s: 'post-42' }],
    ['string inside a string is escaped content', '{"s": "<{args.title}>"}', { s: `<${ARGS.title as string}>` }],
    ['null inside a string is nothing', '{"s": "a{args.none}b"}', { s: 'ab' }],
    ['object inside a string is its JSON text', '{"s": "{args.input.nested}"}', { s: '{"n":null}' }],
    ['list inside a string is its JSON text', '{"s": "{args.tags}"}', { s: '["x","y"]' }],
    ['placeholder as a key', '{"{args.sid}": 1}', { '7': 1 }],
    ['other braces inside a string are literal', '{"s": "{name} {a.b} {}"}', { s: '{name} {a.b} {}' }],
    ['escaped quote does not end the string', '{"s": "\\"{args.id}\\""}', { s: '"42"' }],
    ['escaped backslash before the closing quote', '{"s": "\\\\", "id": {args.id}}', { s: '\\', id: 42 }],
    ['literal JSON with no placeholder', '{"a": [1, {"b": null}], "c": "x"}', { a: [1, { b: null }], c: 'x' }],
    ['nested objects around placeholders', '{"data": {"post": {args.input}, "by": {parent.id}}}', { data: { post: ARGS.input, by: 'p1' } }],
  ];
  for (const [name, text, expected] of cases) {
    test(name, () => assert.deepEqual(render(text), expected));
  }

  test('placeholders are listed in order with their dotted paths', () => {
    const compiled = compileBodyTemplate('{"a": {args.input.title}, "b": "{parent.id}", "c": {keys}, "d": {result.x.y}}');
    assert.ok(compiled.ok);
    assert.deepEqual(
      compiled.template.placeholders.map((p) => [p.kind, p.path.join('.')]),
      [
        ['args', 'input.title'],
        ['parent', 'id'],
        ['keys', ''],
        ['result', 'x.y'],
      ],
    );
    assert.deepEqual(
      compiled.template.parts.filter((p) => p.kind === 'slot').map((p) => p.kind === 'slot' && p.inString),
      [false, true, false, false],
    );
  });
});

describe('body templates: compile errors', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['not JSON at all', 'title={args.title}', /not valid JSON once its placeholders are filled in/],
    ['unclosed object', '{"a": {args.id}', /not valid JSON/],
    ['placeholder glued to a literal', '{"a": 1{args.id}}', /not valid JSON/],
    ['two placeholders glued together', '[{args.id}{args.sid}]', /not valid JSON/],
    ['placeholder as a key outside a string', '{{args.sid}: 1}', /not valid JSON/],
    ['unknown namespace outside a string', '{"a": {arg.id}}', /unknown placeholder "\{arg\.id\}" \(use \{args\.NAME\}.*\) at offset 6/],
    ['bare word outside a string', '{"a": {id}}', /unknown placeholder "\{id\}"/],
    ['namespace without a name', '{"a": {args}}', /placeholder "\{args\}" needs names after "args\."/],
    ['namespace without a name inside a string', '{"a": "{parent}"}', /placeholder "\{parent\}" needs names/],
    ['bad step in a path', '{"a": {args.a-b}}', /placeholder "\{args\.a-b\}" needs names/],
    ['empty step in a path', '{"a": {args.a..b}}', /needs names/],
    ['keys with a path', '{"a": {keys.id}}', /"\{keys\.id\}": \{keys\} takes no path/],
    ['unterminated string', '{"a": "{args.id}}', /not valid JSON/],
    ['empty body', '', /not valid JSON/],
  ];
  for (const [name, text, expected] of cases) {
    test(name, () => {
      const compiled = compileBodyTemplate(text);
      assert.equal(compiled.ok, false, `${text} compiled`);
      assert.match(compiled.ok ? '' : compiled.error, expected);
    });
  }
});
