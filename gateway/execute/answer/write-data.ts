import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLString,
  Kind,
  getNamedType,
  getOperationAST,
  isAbstractType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  visit,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { collectFields, collectSubfields } from 'graphql/execution/collectFields.js';
import type { Blueprint, FieldBlueprint } from '../../blueprint/types.js';
import { isInheritedName, readDotted } from '../../../directives/dotted.js';
import type { ResultStore } from '../send/result-store.js';
import type { WriteMeter } from './answer-size.js';
import { concreteTypeOf } from '../ask/concrete-type.js';
import { fieldValue, isPlainValue } from '../../upstream/outcome.js';

/**
 * The `data` of a successful response as JSON text, written straight from the fetched results along
 * the operation's selections, without building the result object first (issue 12, "write the
 * response straight from the plan"). It is an optimisation of the shaper (execute/answer/shape.ts), never
 * a second semantics: it writes exactly what `JSON.stringify` of the shaper's `data` would be, and
 * gives up (undefined) the moment the response would not be a plain success: a failed or missing
 * lookup, a null in a non-null field, a value of the wrong kind, an item whose type cannot be told.
 * The shaper then answers the request as before, with its errors at their paths.
 *
 * Written for the operations most clients send: no introspection and no @skip/@include on a
 * variable (those selections depend on the request); a document whose fields, fragments expanded,
 * exceed a bound (the caller's) gets no writer either. Compiled once per operation to JavaScript
 * functions (class Compiler), so that a plain success skips graphql-jit's result and JSON.stringify
 * (docs/performance.md).
 */
export type DataWriter = (root: object, store: ResultStore, meter: WriteMeter) => string | undefined;

/**
 * A value's JSON text, or undefined: the response is not a plain success, or `meter` stopped the
 * write (give up). The writers count into `meter` what they write (answer-size.ts WriteMeter).
 */
type ValueWriter = (value: unknown, store: ResultStore, meter: WriteMeter) => string | undefined;

/**
 * Compiles the writer of one operation of a validated document; undefined when the operation is
 * not one it writes (see above). Pure over the blueprint: the result is cached by the caller.
 */
export function compileDataWriter(
  blueprint: Blueprint,
  document: DocumentNode,
  operationName: string | null | undefined,
): DataWriter | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.operation !== 'query' || dependsOnVariables(operation, document)) return undefined;
  const { schema } = blueprint;
  const rootType = schema.getQueryType();
  if (!rootType) return undefined;
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null) as Record<string, FragmentDefinitionNode>;
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const compiler = new Compiler(blueprint, schema, fragments);
  const fields = collectFields(schema, fragments, {}, rootType, operation.selectionSet);
  return compiler.objectWriter(rootType, fields);
}

/** Whether any @skip/@include of the document reads a variable (or a directive the writer does not know is used). */
function dependsOnVariables(operation: OperationDefinitionNode, document: DocumentNode): boolean {
  let depends = false;
  const check = {
    Directive(node: { readonly arguments?: ReadonlyArray<{ readonly value: { readonly kind: Kind } }> }) {
      if (node.arguments?.some((a) => a.value.kind !== Kind.BOOLEAN)) depends = true;
    },
  };
  visit(operation, check);
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) visit(d, check);
  return depends;
}

/**
 * Compiles writers to JavaScript functions, as graphql-jit compiles queries: one function per
 * object selection and per list, straight-line code with the response keys as string constants and
 * the JSON keys as property reads, so that V8 sees the same shapes every call. The generated code
 * holds only constants written with JSON.stringify (response keys, JSON keys, type names: text of
 * the document and the schema goes in only as string literals) and `r[i]` references to values of
 * this compilation (field nodes, steps, functions); nothing of a request's values is in it. In the
 * code, `p` is the parent object, `s` the result store, `m` the meter, `v` a field's value and `t`
 * its JSON text; any check that fails returns undefined (give up), and so does a meter over its
 * bounds (`m.stop()`).
 */
class Compiler {
  private readonly refs: unknown[] = [];

  constructor(
    private readonly blueprint: Blueprint,
    private readonly schema: GraphQLSchema,
    private readonly fragments: Record<string, FragmentDefinitionNode>,
  ) {}

  /** The writer of an object of `type` with these collected fields; undefined when one is not writable. */
  objectWriter(type: GraphQLObjectType, fields: ReadonlyMap<string, readonly FieldNode[]>): ValueWriter | undefined {
    let code = '';
    let text = '{'; // constant JSON text not yet appended
    // The walk's count of this object's own part: a node and the key's bytes per field node
    // (__typename is not one of its entries); the values' bytes are counted as they are read.
    let nodeCount = 0;
    let keyBytes = 0;
    for (const [responseKey, nodes] of fields) {
      text += `${text === '{' ? '' : ','}${JSON.stringify(responseKey)}:`;
      const fieldName = nodes[0]!.name.value;
      if (fieldName === '__typename') {
        text += JSON.stringify(type.name);
        continue;
      }
      if (fieldName.startsWith('__')) return undefined; // introspection
      const def = type.getFields()[fieldName];
      if (!def) return undefined;
      const append = this.append(def.type, nodes, text);
      if (append === undefined) return undefined;
      nodeCount += nodes.length;
      keyBytes += nodes.length * (responseKey.length + 4);
      code += this.read(this.blueprint.fields.get(`${type.name}.${fieldName}`), fieldName, nodes);
      code += `m.bytes += ${times(nodes.length)}(typeof v === "string" ? v.length + 2 : 8);\n`;
      code += append;
      text = '';
    }
    const meter = nodeCount === 0 ? '' : `m.nodes += ${nodeCount}; m.bytes += ${keyBytes};\n${METER_OVER}`;
    code = `let v, t, o, out = "";\n${meter}${code}return out + ${JSON.stringify(text + '}')};`;
    return this.build('p, s, m', code);
  }

  /** Code that sets `v` to the field's value as the shaper's resolvers read it (execute/answer/shape.ts shapingSchema). */
  private read(bp: FieldBlueprint | undefined, fieldName: string, nodes: readonly FieldNode[]): string {
    if (bp?.auth && !bp.fetch) {
      // A guarded field the walk refused holds a refused outcome: not a plain success, the shaper answers.
      let code = '';
      for (const node of nodes)
        code += `o = s.get(p, ${this.ref(node)});\nif (o !== undefined && o.kind === "refused") return undefined;\n`;
      return code + this.plainRead(bp, fieldName);
    }
    if (bp?.fetch) {
      let code = `o = s.get(p, ${this.ref(nodes[0])});\n`;
      for (const node of nodes.slice(1)) code += `if (o === undefined) o = s.get(p, ${this.ref(node)});\n`;
      code += 'if (o === undefined) return undefined;\n';
      // What the outcome becomes is upstream/outcome.ts's decision; the writer writes it only when it holds no error.
      const field = this.ref(bp);
      return `${code}if (!${this.ref(isPlainValue)}(o, ${field})) return undefined;\nv = ${this.ref(fieldValue)}(o, ${field}, false);\n`;
    }
    return this.plainRead(bp, fieldName);
  }

  /** Code that sets `v` to a field's value read from its parent `p` (no fetch). */
  private plainRead(bp: FieldBlueprint | undefined, fieldName: string): string {
    const name = bp ? bp.read[0]! : fieldName;
    const key = JSON.stringify(name);
    // Only own keys are fields (directives/dotted.ts isInheritedName): decided here, once per field.
    const own = isInheritedName(name) ? `v = Object.hasOwn(p, ${key}) ? p[${key}] : undefined;` : `v = p[${key}];`;
    if (bp?.namespace) return `${own} if (v === undefined || v === null) v = s.namespace(p, ${key});\n`;
    if (bp && bp.read.length > 1) return `v = ${this.ref(readDotted)}(p, ${this.ref(bp.read)});\n`;
    // graphql's default resolver would call a function; JSON never holds one, so give up on it.
    return `${own} if (typeof v === "function") return undefined;\n`;
  }

  /**
   * Code that appends `text` (constant JSON) and the JSON text of the field's value `v` to `out`.
   * A leaf's text goes in with the constant in one concatenation (`out += ',"name":"' + v + '"'`):
   * each `+` makes a string, and a field of a list of a hundred items is written a hundred times.
   */
  private append(type: GraphQLOutputType, nodes: readonly FieldNode[], text: string): string | undefined {
    const nonNull = isNonNullType(type);
    const named = nonNull ? type.ofType : type;
    if (!isLeafType(named)) {
      const complete = this.completion(type, nodes, 'v', nodes.length);
      return complete && `${complete}out += ${JSON.stringify(text)} + t;\n`;
    }
    const put = (pieces: readonly Piece[]) => `out += ${concatenation([text, ...pieces])};`;
    const absent = nonNull ? 'return undefined;' : put(['null']);
    return `if (v === null || v === undefined) ${absent} else {\n${this.leaf(named, 'v', put)}}\n`;
  }

  /**
   * Code that sets `t` to the JSON text of `x`, a value of `type` with the sub-selections of `nodes`.
   * `count`: how many times the walk counts the items of a list `x` (the field's nodes; 0 for a list
   * in a list, whose items the walk does not count).
   */
  private completion(type: GraphQLOutputType, nodes: readonly FieldNode[], x: string, count: number): string | undefined {
    if (isNonNullType(type)) {
      const present = this.present(type.ofType, nodes, x, count);
      return present && `if (${x} === null || ${x} === undefined) return undefined;\n${present}`;
    }
    const present = this.present(type, nodes, x, count);
    return present && `if (${x} === null || ${x} === undefined) t = "null"; else {\n${present}}\n`;
  }

  /** Code that sets `t` to the JSON text of `x`, present (not null), of a nullable `type`. */
  private present(type: GraphQLOutputType, nodes: readonly FieldNode[], x: string, count: number): string | undefined {
    const call = (write: ValueWriter) => `t = ${this.ref(write)}(${x}, s, m); if (t === undefined) return undefined;\n`;
    if (isListType(type)) {
      const item = this.completion(type.ofType, nodes, 'x', 0);
      if (item === undefined) return undefined;
      // The walk's count of the items: a node and 9 bytes each, and a string item's length.
      const meter = count === 0 ? '' : `m.nodes += ${times(count)}l.length; m.bytes += ${9 * count} * l.length;\n${METER_OVER}`;
      const strings = count === 0 ? '' : `if (typeof x === "string") m.bytes += ${times(count)}x.length;\n`;
      const list = this.build(
        'l, s, m',
        `let x, t, out = "[";\n${meter}for (let i = 0; i < l.length; i++) {\nx = l[i];\n${strings}${item}out += i === 0 ? t : "," + t;\n}\n${count === 0 ? '' : METER_OVER}return out + "]";`,
      );
      return `if (!Array.isArray(${x})) return undefined;\n${call(list)}`;
    }
    if (isLeafType(type)) return this.leaf(type, x, (pieces) => `t = ${concatenation(pieces)};`);
    if (isObjectType(type)) {
      const write = this.objectWriter(type, collectSubfields(this.schema, this.fragments, {}, type, nodes));
      return write && `if (typeof ${x} !== "object" || Array.isArray(${x})) return undefined;\n${call(write)}`;
    }
    if (!isAbstractType(type)) return undefined;
    const discriminator = this.blueprint.discriminators.get(getNamedType(type).name);
    if (!discriminator) return undefined;
    const byType = new Map<string, ValueWriter>();
    for (const possible of this.schema.getPossibleTypes(type)) {
      const write = this.objectWriter(possible, collectSubfields(this.schema, this.fragments, {}, possible, nodes));
      if (!write) return undefined;
      byType.set(possible.name, write);
    }
    const abstract: ValueWriter = (v, store, meter) => {
      const concrete = concreteTypeOf(discriminator, v);
      const write = concrete === undefined ? undefined : byType.get(concrete);
      return write && isJsonObject(v) ? write(v, store, meter) : undefined;
    };
    return call(abstract);
  }

  /**
   * Code that puts the JSON text of the present leaf value `x` exactly as its type serialises it:
   * the built-in scalars' common cases inline, anything else through the type's own serialize.
   * `put` says where the text goes (into `t`, or appended to `out` after a constant), given the
   * text as pieces: constant text, and code of a value whose string form is written.
   */
  private leaf(type: GraphQLLeafType, x: string, put: (pieces: readonly Piece[]) => string): string {
    const general = `{ t = ${this.ref(serialized(type))}(${x}); if (t === undefined) return undefined; ${put([{ code: 't' }])} }`;
    const string = `if (${this.ref(ESCAPED)}.test(${x})) ${put([{ code: `JSON.stringify(${x})` }])} else ${put(['"', { code: x }, '"'])}`;
    if (type === GraphQLString) return `if (typeof ${x} === "string") { ${string} } else ${general}\n`;
    if (type === GraphQLID)
      return `if (typeof ${x} === "string") { ${string} } else if (Number.isInteger(${x})) ${put(['"', { code: x }, '"'])} else ${general}\n`;
    if (type === GraphQLInt)
      return `if (Number.isInteger(${x}) && ${x} <= 2147483647 && ${x} >= -2147483648) ${put([{ code: x }])} else ${general}\n`;
    if (type === GraphQLFloat) return `if (typeof ${x} === "number" && Number.isFinite(${x})) ${put([{ code: x }])} else ${general}\n`;
    if (type === GraphQLBoolean) return `if (${x} === true) ${put(['true'])} else if (${x} === false) ${put(['false'])} else ${general}\n`;
    return `${general}\n`;
  }

  /** `r[i]`: a reference the generated code reads `value` by. */
  private ref(value: unknown): string {
    this.refs.push(value);
    return `r[${this.refs.length - 1}]`;
  }

  /** The function of `body` over `params`, with `r` the references; `body` is built from constants only. */
  private build(params: string, body: string): ValueWriter {
    const make = new Function('r', `"use strict";\nreturn function (${params}) {\n${body}\n};`) as (refs: unknown[]) => ValueWriter;
    return make(this.refs);
  }
}

/** The generated check of the meter: over a bound, the write gives up (answer-size.ts WriteMeter decides). */
const METER_OVER = 'if (m.over()) return m.stop();\n';

/** JavaScript of a product with `n`: `n * ` (nothing for 1). */
const times = (n: number): string => (n === 1 ? '' : `${n} * `);

/** A piece of written text: constant text, or code whose value's string form is written. */
type Piece = string | { readonly code: string };

/** JavaScript of the string of `pieces` in order, adjacent constants joined, always a string. */
function concatenation(pieces: readonly Piece[]): string {
  const parts: string[] = [];
  let text = '';
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      text += piece;
      continue;
    }
    if (text !== '' || parts.length === 0) parts.push(JSON.stringify(text));
    parts.push(piece.code);
    text = '';
  }
  if (text !== '' || parts.length === 0) parts.push(JSON.stringify(text));
  return parts.join(' + ');
}

/** A leaf value's JSON text through its type's serialize; undefined when it would not serialise. */
function serialized(type: GraphQLLeafType): (value: unknown) => string | undefined {
  return (v) => {
    let out: unknown;
    try {
      out = type.serialize(v);
    } catch {
      return undefined;
    }
    if (out === undefined || out === null || Number.isNaN(out)) return undefined;
    return JSON.stringify(out);
  };
}

/** What JSON.stringify escapes in a string: `"`, `\\`, control characters and lone surrogates. */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

function isJsonObject(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
