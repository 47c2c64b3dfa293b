import type { WarningList } from './problems.js';
import { childPointer, isObject, resolveRef, type Json, type JsonObject } from './pointer.js';
import { enumValueName, isGraphQLName, memberName, pascalCase, UniqueNames } from './names.js';
import { INT64_SCALAR, JSON_SCALAR, type SdlEnum, type SdlField, type SdlObject, type SdlType } from './sdl-model.js';

/**
 * JSON Schema (as OpenAPI 3.0, 3.1 and Swagger 2.0 write it) → GraphQL types
 * (docs/openapi.md "Mapping rules"):
 * - a `$ref` to a named schema is the type of that name, built once: a schema that refers to itself
 *   (directly or through others) is a cycle of named types, which GraphQL allows;
 * - `type: object` with properties → an object type, one field per JSON key (`@from(key:)` when
 *   the key is no GraphQL name); `allOf` → one object type with the properties of all parts;
 *   `additionalProperties` without properties, or an object without properties → `JSON`;
 * - `oneOf`/`anyOf` of objects with a `discriminator` → a union with `@from(key:, types:)`; without
 *   one (or of non-objects) → `JSON`, with a warning;
 * - a string `enum` → an enum type whose values carry `@from(value:)` when the name differs from
 *   the wire form; integer `format: int64` → `Int64` (passed through, never Int); integer → Int,
 *   number → Float, boolean → Boolean, string → String; `nullable` and 3.1's `type: [x, "null"]`
 *   → the nullable type (every output field is nullable: an API that leaves a key out gives null);
 * - input types (request bodies, parameters) follow the same rules as `…Input` types; readOnly
 *   properties and keys that are no GraphQL name are left out of them (a warning for the latter).
 */
export class TypeBuilder {
  readonly types = new Map<string, SdlType>();
  readonly typeNames: UniqueNames;
  private readonly outputByPointer = new Map<string, string>();
  private readonly inputByPointer = new Map<string, string>();
  private readonly enumByPointer = new Map<string, string>();

  constructor(
    readonly rootDocument: JsonObject,
    private readonly warnings: WarningList,
  ) {
    this.typeNames = new UniqueNames(warnings, [
      'Query',
      'Mutation',
      'Subscription',
      'String',
      'Int',
      'Float',
      'Boolean',
      'ID',
      'JSON',
      'Int64',
    ]);
  }

  /** The output type reference of a schema node at `pointer`; `hint` names an inline type. */
  output(schema: JsonObject, pointer: string, hint: string): string {
    const c = this.common(schema, { pointer, hint, side: 'output' });
    if (typeof c === 'string') return c;
    const { node, at, name, memoKey, kind } = c;
    if (kind === 'union') return this.union(node, { at, name, memoKey });
    if (kind === 'object') {
      const properties = collectProperties(this.rootDocument, node, at);
      if (properties.length === 0) return this.json();
      const typeName = this.typeNames.claim(pascalCase(name), at, `schema ${at}`);
      this.outputByPointer.set(memoKey, typeName);
      const object: SdlObject = { kind: 'object', name: typeName, fields: [], properties: [], fieldNames: new Set() };
      this.types.set(typeName, object);
      const fieldNames = new UniqueNames(this.warnings);
      for (const p of properties) {
        const fieldName = fieldNames.claim(memberName(p.key), p.pointer, `the field for key "${p.key}" of ${typeName}`);
        const type = this.output(p.schema, p.pointer, `${typeName}${pascalCase(p.key)}`);
        const directives = fieldName === p.key ? [] : [`@from(key: ${quote(p.key)})`];
        object.fields.push({ name: fieldName, type, args: [], directives });
        object.fieldNames.add(fieldName);
        object.properties.push({ key: p.key, field: fieldName, scalar: !type.startsWith('[') && this.isLeaf(type) });
      }
      return typeName;
    }
    return this.json();
  }

  /** The input type reference of a schema node (the caller makes it non-null where required). */
  input(schema: JsonObject, pointer: string, hint: string): string {
    const c = this.common(schema, { pointer, hint, side: 'input' });
    if (typeof c === 'string') return c;
    const { node, at, name, memoKey, kind } = c;
    if (kind !== 'object') return this.json();
    const properties = collectProperties(this.rootDocument, node, at).filter((p) => p.readOnly !== true);
    if (properties.length === 0) return this.json();
    const typeName = this.typeNames.claim(`${pascalCase(name)}Input`, at, `input of schema ${at}`);
    this.inputByPointer.set(memoKey, typeName);
    const fields: SdlField[] = [];
    this.types.set(typeName, { kind: 'input', name: typeName, fields });
    for (const p of properties) {
      if (!isGraphQLName(p.key)) {
        this.warnings.add(p.pointer, `key "${p.key}" is no GraphQL name, so ${typeName} cannot send it; edit the body template to add it`);
        continue;
      }
      const type = this.input(p.schema, p.pointer, `${pascalCase(name)}${pascalCase(p.key)}`);
      // Only leaves and lists become non-null: a required nested object may be part of a cycle.
      const nonNull = p.required && (this.isLeaf(type) || type.startsWith('['));
      fields.push({ name: p.key, type: nonNull ? `${type}!` : type, args: [], directives: [] });
    }
    if (fields.length === 0) {
      this.types.delete(typeName);
      this.inputByPointer.set(memoKey, this.json());
      return this.json();
    }
    return typeName;
  }

  /**
   * What output and input types share: `$ref`s followed, a type already built for the node, lists,
   * enums and scalars. The rest (objects, unions, JSON) is left to the caller, with the node.
   */
  private common(
    schema: JsonObject,
    where: { pointer: string; hint: string; side: 'output' | 'input' },
  ): string | { node: JsonObject; at: string; name: string; memoKey: string; kind: ReturnType<typeof schemaKind> } {
    const r = this.resolve(schema, where.pointer);
    if (!r) return this.json();
    const { node, at, named } = r;
    const memoKey = named ? at : where.pointer;
    const known = (where.side === 'output' ? this.outputByPointer : this.inputByPointer).get(memoKey);
    if (known !== undefined) return known;
    const name = named ?? where.hint;
    const kind = schemaKind(node);
    if (kind === 'array') {
      const items = isObject(node.items) ? node.items : {};
      return `[${this[where.side](items, childPointer(at, 'items'), `${name}Item`)}]`;
    }
    if (kind === 'enum') return this.enumType(node, at, name);
    if (kind === 'scalar') return scalarName(node, () => this.int64());
    return { node, at, name, memoKey, kind };
  }

  /** Whether a type reference names a scalar or an enum. */
  isLeaf(type: string): boolean {
    const named = type.replace(/[[\]!]/g, '');
    const t = this.types.get(named);
    return t === undefined ? ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(named) : t.kind === 'scalar' || t.kind === 'enum';
  }

  /** The named object type of a type reference, when it is one (lists unwrapped when `list`). */
  objectOf(type: string, list: boolean): SdlObject | undefined {
    const isList = type.startsWith('[');
    if (isList !== list) return undefined;
    const t = this.types.get(type.replace(/[[\]!]/g, ''));
    return t?.kind === 'object' ? t : undefined;
  }

  json(): string {
    this.types.set('JSON', JSON_SCALAR);
    return 'JSON';
  }

  private int64(): string {
    this.types.set('Int64', INT64_SCALAR);
    return 'Int64';
  }

  /** Follows `$ref`s; the name of a named schema (`#/components/schemas/X`, `#/definitions/X`). */
  private resolve(schema: JsonObject, pointer: string): { node: JsonObject; at: string; named: string | undefined } | undefined {
    const r = resolveRef(this.rootDocument, schema, pointer);
    if (!r) {
      this.warnings.add(pointer, `$ref "${String(schema.$ref)}" leads nowhere or only to other $refs; the value is JSON`);
      return undefined;
    }
    let node = r.node;
    // `allOf: [{$ref}]` alone (often used to add a description) is the referenced schema itself.
    if (Array.isArray(node.allOf) && node.allOf.length === 1 && isObject(node.allOf[0]) && !node.properties) {
      const inner = resolveRef(this.rootDocument, node.allOf[0], childPointer(r.pointer, 'allOf', 0));
      if (inner?.ref) return { node: inner.node, at: inner.pointer, named: schemaName(inner.pointer) };
    }
    if (r.ref === undefined) return { node, at: pointer, named: undefined };
    node = r.node;
    return { node, at: r.pointer, named: schemaName(r.pointer) };
  }

  private enumType(node: JsonObject, at: string, name: string): string {
    const known = this.enumByPointer.get(at);
    if (known) return known;
    const wires = (node.enum as Json[]).filter((v): v is string => typeof v === 'string');
    const typeName = this.typeNames.claim(pascalCase(name), at, `enum ${at}`);
    this.enumByPointer.set(at, typeName);
    const valueNames = new UniqueNames(this.warnings);
    const values = [...new Set(wires)].map((wire) => ({
      name: valueNames.claim(enumValueName(wire), childPointer(at, 'enum'), `enum value "${wire}" of ${typeName}`),
      wire,
    }));
    const type: SdlEnum = { kind: 'enum', name: typeName, values };
    this.types.set(typeName, type);
    return typeName;
  }

  /** oneOf/anyOf: a union told by its discriminator, else JSON (or the one alternative). */
  private union(node: JsonObject, where: { at: string; name: string; memoKey: string }): string {
    const { at, name, memoKey } = where;
    const keyword = Array.isArray(node.oneOf) ? 'oneOf' : 'anyOf';
    const alternatives = (node[keyword] as Json[]).filter(isObject);
    if (alternatives.length === 1) return this.output(alternatives[0]!, childPointer(at, keyword, 0), name);
    const discriminator = isObject(node.discriminator) ? node.discriminator : discriminatorOf(this.rootDocument, alternatives, at);
    if (!discriminator || typeof discriminator.propertyName !== 'string') {
      this.warnings.add(childPointer(at, keyword), `${keyword} without a discriminator cannot be told apart: the value is JSON`);
      return this.json();
    }
    const typeName = this.typeNames.claim(pascalCase(name), at, `schema ${at}`);
    this.outputByPointer.set(memoKey, typeName);
    const members: string[] = [];
    const byPointer = new Map<string, string>();
    for (const [i, alt] of alternatives.entries()) {
      const altPointer = childPointer(at, keyword, i);
      const type = this.output(alt, altPointer, `${typeName}Option${i + 1}`);
      const object = this.objectOf(type, false);
      if (!object) {
        this.outputByPointer.set(memoKey, this.json());
        this.warnings.add(
          altPointer,
          `${keyword} alternative ${i + 1} is not an object type, so the union cannot hold it: the value is JSON`,
        );
        return this.json();
      }
      if (!members.includes(object.name)) members.push(object.name);
      const resolved = resolveRef(this.rootDocument, alt, altPointer);
      if (resolved?.ref) byPointer.set(resolved.pointer, object.name);
      const key = discriminator.propertyName;
      if (resolved && !collectProperties(this.rootDocument, resolved.node, resolved.pointer).some((p) => p.key === key && p.required))
        this.warnings.add(
          altPointer,
          `the discriminator "${key}" is not required in ${object.name}: an item without it cannot be told apart (add a default, a bare "Type", to @from(types:) if the API leaves it out)`,
        );
    }
    const entries: string[] = [];
    const mapping = isObject(discriminator.mapping) ? discriminator.mapping : {};
    const mapped = new Set<string>();
    for (const [value, ref] of Object.entries(mapping)) {
      const target = typeof ref === 'string' ? (byPointer.get(ref) ?? byPointer.get(`#/components/schemas/${ref}`)) : undefined;
      if (!target) {
        this.warnings.add(
          childPointer(at, 'discriminator', 'mapping', value),
          `discriminator mapping "${value}" names no alternative of the ${keyword}; it is left out`,
        );
        continue;
      }
      entries.push(`${value}=${target}`);
      mapped.add(target);
    }
    for (const [pointer, member] of byPointer) {
      if (mapped.has(member)) continue;
      entries.push(`${schemaName(pointer) ?? member}=${member}`);
    }
    this.types.set(typeName, { kind: 'union', name: typeName, members, key: discriminator.propertyName, types: entries });
    return typeName;
  }
}

export interface Property {
  readonly key: string;
  readonly schema: JsonObject;
  readonly pointer: string;
  readonly required: boolean;
  readonly readOnly: boolean;
}

/** The properties of an object schema, `allOf` parts merged in order (a later part's key wins). */
export function collectProperties(root: JsonObject, node: JsonObject, at: string, seen = new Set<string>()): Property[] {
  if (seen.has(at)) return [];
  seen.add(at);
  const out = new Map<string, Property>();
  const required = new Set(Array.isArray(node.required) ? node.required.map(String) : []);
  if (Array.isArray(node.allOf)) {
    node.allOf.forEach((part, i) => {
      if (!isObject(part)) return;
      const r = resolveRef(root, part, childPointer(at, 'allOf', i));
      if (!r) return;
      for (const p of collectProperties(root, r.node, r.ref ? r.pointer : childPointer(at, 'allOf', i), seen)) out.set(p.key, p);
    });
  }
  if (isObject(node.properties)) {
    for (const [key, schema] of Object.entries(node.properties)) {
      if (!isObject(schema)) continue;
      const pointer = childPointer(at, 'properties', key);
      const target = resolveRef(root, schema, pointer)?.node ?? schema;
      out.set(key, { key, schema, pointer, required: required.has(key), readOnly: target.readOnly === true || schema.readOnly === true });
    }
  }
  return [...out.values()].map((p) => (required.has(p.key) && !p.required ? { ...p, required: true } : p));
}

type Kind = 'array' | 'enum' | 'scalar' | 'union' | 'object' | 'json';

/** What a schema node is, after `$ref`s: 3.1's `type: [x, "null"]` is x. */
export function schemaKind(node: JsonObject): Kind {
  const type = typeOf(node);
  if (Array.isArray(node.oneOf) || Array.isArray(node.anyOf)) return node.properties ? 'object' : 'union';
  if (type === 'array' || (type === undefined && isObject(node.items))) return 'array';
  if (Array.isArray(node.enum) && (type === 'string' || type === undefined) && node.enum.some((v) => typeof v === 'string')) return 'enum';
  if (type === 'string' || type === 'integer' || type === 'number' || type === 'boolean') return 'scalar';
  if (type === 'object' || type === undefined) {
    if (isObject(node.properties) || Array.isArray(node.allOf)) return 'object';
    return 'json';
  }
  return 'json';
}

/** The one non-null type of a node, or undefined (none, or several: JSON). */
function typeOf(node: JsonObject): string | undefined {
  if (typeof node.type === 'string') return node.type;
  if (Array.isArray(node.type)) {
    const types = node.type.filter((t) => t !== 'null');
    return types.length === 1 ? String(types[0]) : types.length === 0 ? undefined : 'several';
  }
  return undefined;
}

function scalarName(node: JsonObject, int64: () => string): string {
  const type = typeOf(node);
  if (type === 'integer') return node.format === 'int64' ? int64() : 'Int';
  if (type === 'number') return 'Float';
  if (type === 'boolean') return 'Boolean';
  return 'String';
}

/** `Pet` for `#/components/schemas/Pet` or `#/definitions/Pet`; undefined for any other pointer. */
function schemaName(pointer: string): string | undefined {
  const m = /^#\/(?:components\/schemas|definitions)\/([^/]+)$/.exec(pointer);
  return m ? m[1]!.replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

/** A discriminator declared on a part every alternative shares (`allOf: [{$ref: Pet}]` where Pet has one). */
function discriminatorOf(root: JsonObject, alternatives: JsonObject[], at: string): JsonObject | undefined {
  for (const alt of alternatives) {
    const r = resolveRef(root, alt, at);
    if (!r) continue;
    if (isObject(r.node.discriminator)) return r.node.discriminator;
    for (const part of Array.isArray(r.node.allOf) ? r.node.allOf : []) {
      if (!isObject(part)) continue;
      const base = resolveRef(root, part, at);
      if (base && isObject(base.node.discriminator)) return base.node.discriminator;
    }
  }
  return undefined;
}

/** A GraphQL string literal. */
export function quote(s: string): string {
  return JSON.stringify(s);
}
