import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLString,
  Kind,
  getNamedType,
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
import type { Blueprint, FieldBlueprint } from '../blueprint/types.js';
import { readDotted } from '../../directives/dotted.js';
import type { ResultStore } from './state.js';
import { concreteTypeOf } from './concrete-type.js';

/**
 * The `data` of a successful response as JSON text, written straight from the fetched results along
 * the operation's selections, without building the result object first (issue 12, "write the
 * response straight from the plan"). It is an optimisation of the shaper (execute/shape.ts), never
 * a second semantics: it writes exactly what `JSON.stringify` of the shaper's `data` would be, and
 * gives up (undefined) the moment the response would not be a plain success: a failed or missing
 * lookup, a null in a non-null field, a value of the wrong kind, an item whose type cannot be told.
 * The shaper then answers the request as before, with its errors at their paths.
 *
 * Written for the operations most clients send: no introspection and no @skip/@include on a
 * variable (those selections depend on the request); a document whose fields, fragments expanded,
 * exceed a bound (the caller's) gets no writer either.
 */
export type DataWriter = (root: object, store: ResultStore) => string | undefined;

/** A value's JSON text, or undefined: the response is not a plain success (give up). */
type ValueWriter = (value: unknown, store: ResultStore) => string | undefined;
/** Reads one field's value from its parent; GIVE_UP when the response is not a plain success. */
type FieldReader = (parent: object, store: ResultStore) => unknown;

const GIVE_UP: unique symbol = Symbol('give up');

/**
 * Compiles the writer of one operation of a validated document; undefined when the operation is
 * not one it writes (see above). Pure over the blueprint: the result is cached by the caller.
 */
export function compileDataWriter(
  blueprint: Blueprint,
  document: DocumentNode,
  operationName: string | null | undefined,
): DataWriter | undefined {
  const operation = pickOperation(document, operationName);
  if (!operation || operation.operation !== 'query' || dependsOnVariables(operation, document)) return undefined;
  const { schema } = blueprint;
  const rootType = schema.getQueryType();
  if (!rootType) return undefined;
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null) as Record<string, FragmentDefinitionNode>;
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const compiler = new Compiler(blueprint, schema, fragments);
  const fields = collectFields(schema, fragments, {}, rootType, operation.selectionSet);
  const write = compiler.objectWriter(rootType, fields);
  if (!write) return undefined;
  return (root, store) => write(root, store);
}

function pickOperation(document: DocumentNode, name: string | null | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (name) return operations.find((o) => o.name?.value === name);
  return operations.length === 1 ? operations[0] : undefined;
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

class Compiler {
  constructor(
    private readonly blueprint: Blueprint,
    private readonly schema: GraphQLSchema,
    private readonly fragments: Record<string, FragmentDefinitionNode>,
  ) {}

  /** The writer of an object of `type` with these collected fields; undefined when one is not writable. */
  objectWriter(type: GraphQLObjectType, fields: ReadonlyMap<string, readonly FieldNode[]>): ValueWriter | undefined {
    const prefixes: string[] = [];
    const readers: FieldReader[] = [];
    const writers: Array<ValueWriter | undefined> = [];
    const typeName = JSON.stringify(type.name);
    for (const [responseKey, nodes] of fields) {
      prefixes.push(`${prefixes.length === 0 ? '{' : ','}${JSON.stringify(responseKey)}:`);
      const fieldName = nodes[0]!.name.value;
      if (fieldName === '__typename') {
        readers.push(() => typeName);
        writers.push(undefined); // already JSON text
        continue;
      }
      if (fieldName.startsWith('__')) return undefined; // introspection
      const def = type.getFields()[fieldName];
      if (!def) return undefined;
      const reader = fieldReader(this.blueprint.fields.get(`${type.name}.${fieldName}`), fieldName, nodes);
      const writer = this.valueWriter(def.type, nodes);
      if (!writer) return undefined;
      readers.push(reader);
      writers.push(writer);
    }
    const n = prefixes.length;
    if (n === 0) return () => '{}';
    return (parent, store) => {
      let out = '';
      for (let i = 0; i < n; i++) {
        const v = readers[i]!(parent as object, store);
        if (v === GIVE_UP) return undefined;
        const w = writers[i];
        const text = w === undefined ? (v as string) : w(v, store);
        if (text === undefined) return undefined;
        out += prefixes[i]! + text;
      }
      return out + '}';
    };
  }

  /** The writer of a value of `type` with the sub-selections of `nodes`. */
  private valueWriter(type: GraphQLOutputType, nodes: readonly FieldNode[]): ValueWriter | undefined {
    if (isNonNullType(type)) {
      const inner = this.valueWriter(type.ofType, nodes);
      return inner && ((v, store) => (v === null || v === undefined ? undefined : inner(v, store)));
    }
    const nonNull = this.nonNullWriter(type, nodes);
    return nonNull && ((v, store) => (v === null || v === undefined ? 'null' : nonNull(v, store)));
  }

  /** The writer of a present (not null) value of a nullable `type`. */
  private nonNullWriter(type: GraphQLOutputType, nodes: readonly FieldNode[]): ValueWriter | undefined {
    if (isListType(type)) {
      const item = this.valueWriter(type.ofType, nodes);
      if (!item) return undefined;
      return (v, store) => {
        if (!Array.isArray(v)) return undefined;
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          const text = item(v[i], store);
          if (text === undefined) return undefined;
          out += i === 0 ? text : `,${text}`;
        }
        return out + ']';
      };
    }
    if (isLeafType(type)) return leafWriter(type);
    if (isObjectType(type)) {
      const write = this.objectWriter(type, collectSubfields(this.schema, this.fragments, {}, type, nodes));
      return write && ((v, store) => (isJsonObject(v) ? write(v, store) : undefined));
    }
    if (!isAbstractType(type)) return undefined;
    const named = getNamedType(type);
    const discriminator = this.blueprint.discriminators.get(named.name);
    if (!discriminator) return undefined;
    const byType = new Map<string, ValueWriter>();
    for (const possible of this.schema.getPossibleTypes(type)) {
      const write = this.objectWriter(possible, collectSubfields(this.schema, this.fragments, {}, possible, nodes));
      if (!write) return undefined;
      byType.set(possible.name, write);
    }
    return (v, store) => {
      const concrete = concreteTypeOf(discriminator, v);
      const write = concrete === undefined ? undefined : byType.get(concrete);
      return write && isJsonObject(v) ? write(v, store) : undefined;
    };
  }
}

/** How the shaper's resolvers read a field (execute/shape.ts shapingSchema): the same, as a reader. */
function fieldReader(bp: FieldBlueprint | undefined, fieldName: string, nodes: readonly FieldNode[]): FieldReader {
  if (bp?.fetch) {
    const nonNull = bp.fetch.isNonNull;
    return (parent, store) => {
      let outcome = store.get(parent, nodes[0]!);
      for (let i = 1; !outcome && i < nodes.length; i++) outcome = store.get(parent, nodes[i]!);
      if (!outcome) return GIVE_UP;
      if (outcome.kind === 'ok') return outcome.body;
      return outcome.kind === 'not-found' && !nonNull ? null : GIVE_UP;
    };
  }
  if (bp?.namespace) {
    const key = bp.read[0]!;
    return (parent, store) => (parent as Record<string, unknown>)[key] ?? store.namespace(parent, key);
  }
  if (bp && bp.read.length > 1) {
    const steps = bp.read;
    return (parent) => readDotted(parent, steps);
  }
  const key = bp ? bp.read[0]! : fieldName;
  // graphql's default resolver would call a function; JSON never holds one, so give up on it.
  return (parent) => {
    const v = (parent as Record<string, unknown>)[key];
    return typeof v === 'function' ? GIVE_UP : v;
  };
}

/** JSON text of a leaf value, exactly as its type serialises it; undefined when it would not serialise. */
function leafWriter(type: GraphQLLeafType): ValueWriter {
  const general = (v: unknown): string | undefined => {
    let out: unknown;
    try {
      out = type.serialize(v);
    } catch {
      return undefined;
    }
    if (out === undefined || out === null || Number.isNaN(out)) return undefined;
    return JSON.stringify(out);
  };
  // The built-in scalars' common cases, written without a call to serialize (same text).
  if (type === GraphQLString) return (v) => (typeof v === 'string' ? quoted(v) : general(v));
  if (type === GraphQLID) return (v) => (typeof v === 'string' ? quoted(v) : Number.isInteger(v) ? `"${v as number}"` : general(v));
  if (type === GraphQLInt)
    return (v) => (Number.isInteger(v) && (v as number) <= 2147483647 && (v as number) >= -2147483648 ? String(v) : general(v));
  if (type === GraphQLFloat) return (v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : general(v));
  if (type === GraphQLBoolean) return (v) => (v === true ? 'true' : v === false ? 'false' : general(v));
  return general;
}

/** What JSON.stringify escapes in a string: `"`, `\\`, control characters and lone surrogates. */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string's JSON text; JSON.stringify only for the rare string that needs escapes (it is the dear call). */
function quoted(s: string): string {
  return ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`;
}

function isJsonObject(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
