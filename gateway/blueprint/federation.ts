import {
  Kind,
  getNamedType,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  parse,
  print,
  type ASTNode,
  type ConstDirectiveNode,
  type ConstValueNode,
  type DefinitionNode,
  type DocumentNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
} from 'graphql';
import { DIRECTIVE_NAMES } from '../../directives/definitions.js';
import { fieldSetLeaves, fieldSetText, parseFieldSet, type FieldSetNode } from '../../directives/field-set.js';
import type { Problem } from '../../directives/problem.js';
import { didYouMean } from '../../directives/suggest.js';
import type { EntityBlueprint, EntityKey, FederationBlueprint, LookupBlueprint } from './types.js';

/**
 * gqlgw as an Apollo Federation v2 subgraph (docs/federation.md): switched
 * on by `extend schema @link(url: "https://specs.apollo.dev/federation/v2.N", import: [...])`.
 * `prepareSubgraph` runs on the schema files' definitions before the schema is built: it declares
 * the federation directives under their imported or `federation__` names, turns an `extend type`
 * without a base type into its definition, and adds exactly what @apollo/subgraph adds (`_Any`,
 * `_Service`, `Query._service`, and with any @key `_Entity` and `Query._entities`).
 * `compileFederation` then checks every `fields` argument against the built schema and pairs each
 * @key with the @lookup of the same key.
 */

/** The root fields subgraph mode adds to Query, answered by the gateway itself. */
export const SUBGRAPH_ROOT_FIELDS: ReadonlySet<string> = new Set(['_service', '_entities']);

/** The coordinate of the field the router asks entities from. */
export const ENTITIES_COORDINATE = 'Query._entities';

const FEDERATION_URL = /^https:\/\/specs\.apollo\.dev\/federation\/v2\.(\d+)$/;

/** The federation spec's definitions, `__NS__` for the namespace prefix and `@__X__` for a directive's local name. */
const SPEC_DIRECTIVES: Readonly<Record<string, string>> = {
  key: '(fields: __FieldSet__!, resolvable: Boolean = true) repeatable on OBJECT | INTERFACE',
  requires: '(fields: __FieldSet__!) on FIELD_DEFINITION',
  provides: '(fields: __FieldSet__!) on FIELD_DEFINITION',
  external: '(reason: String) on OBJECT | FIELD_DEFINITION',
  extends: ' on OBJECT | INTERFACE',
  shareable: ' repeatable on OBJECT | FIELD_DEFINITION',
  inaccessible:
    ' on FIELD_DEFINITION | OBJECT | INTERFACE | UNION | ARGUMENT_DEFINITION | SCALAR | ENUM | ENUM_VALUE | INPUT_OBJECT | INPUT_FIELD_DEFINITION',
  override: '(from: String!, label: String) on FIELD_DEFINITION',
  tag: '(name: String!) repeatable on FIELD_DEFINITION | OBJECT | INTERFACE | UNION | ARGUMENT_DEFINITION | SCALAR | ENUM | ENUM_VALUE | INPUT_OBJECT | INPUT_FIELD_DEFINITION | SCHEMA',
  interfaceObject: ' on OBJECT',
  composeDirective: '(name: String!) repeatable on SCHEMA',
  authenticated: ' on FIELD_DEFINITION | OBJECT | INTERFACE | SCALAR | ENUM',
  requiresScopes: '(scopes: [[__Scope__!]!]!) on FIELD_DEFINITION | OBJECT | INTERFACE | SCALAR | ENUM',
  policy: '(policies: [[__Policy__!]!]!) on FIELD_DEFINITION | OBJECT | INTERFACE | SCALAR | ENUM',
};
const SPEC_SCALARS = ['FieldSet', 'Scope', 'Policy'];

/** The local names of the federation definitions this schema links. */
export interface LinkedFederation {
  readonly version: number;
  /** Spec name (`key`, `FieldSet`) → the name the schema uses (`key` when imported, else `federation__key`). */
  readonly names: ReadonlyMap<string, string>;
}

export interface PreparedSubgraph {
  readonly linked: LinkedFederation;
  /** The definitions to build the schema from: the user's, adjusted, then the added ones. */
  readonly definitions: DefinitionNode[];
  /** The user's own definitions as written: what `_service { sdl }` prints. */
  readonly written: readonly DefinitionNode[];
}

/** Undefined when no federation @link is present: then nothing changes. */
export function prepareSubgraph(userDefinitions: readonly DefinitionNode[], problems: Problem[]): PreparedSubgraph | undefined {
  const linked = findFederationLink(userDefinitions, problems);
  if (!linked) return undefined;
  const declared = new Set<string>();
  const defined = new Set<string>();
  for (const d of userDefinitions) {
    if (d.kind === Kind.DIRECTIVE_DEFINITION) declared.add(d.name.value);
    else if ('name' in d && d.name && !isExtension(d)) defined.add(d.name.value);
  }
  const definitions: DefinitionNode[] = [];
  for (const d of userDefinitions) {
    if (isExtension(d) && d.kind !== Kind.SCHEMA_EXTENSION && !defined.has(d.name.value)) {
      defined.add(d.name.value);
      definitions.push(asDefinition(d));
    } else {
      definitions.push(d);
    }
  }
  const added: string[] = [];
  if (!declared.has('link'))
    added.push(
      'directive @link(url: String!, as: String, for: link__Purpose, import: [link__Import]) repeatable on SCHEMA',
      'scalar link__Import',
      'enum link__Purpose { SECURITY EXECUTION }',
    );
  const local = (n: string): string => linked.names.get(n)!;
  for (const s of SPEC_SCALARS) if (!defined.has(local(s))) added.push(`scalar ${local(s)}`);
  for (const [name, rest] of Object.entries(SPEC_DIRECTIVES)) {
    if (declared.has(local(name))) continue;
    added.push(`directive @${local(name)}${rest.replace(/__(FieldSet|Scope|Policy)__/g, (_m, s: string) => local(s))}`);
  }
  const entityTypes = definitions.flatMap((d) =>
    (d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION) &&
    d.directives?.some((x) => x.name.value === local('key'))
      ? [d.name.value]
      : [],
  );
  const entities = [...new Set(entityTypes)];
  added.push('scalar _Any', 'type _Service { sdl: String }');
  const rootFields = ['_service: _Service!'];
  if (entities.length > 0) {
    added.push(`union _Entity = ${entities.join(' | ')}`);
    rootFields.push('_entities(representations: [_Any!]!): [_Entity]!');
  }
  added.push(`${defined.has('Query') ? 'extend type' : 'type'} Query { ${rootFields.join(' ')} }`);
  const extra = parse(added.join('\n'), { noLocation: true }).definitions;
  return { linked, definitions: [...definitions, ...extra], written: userDefinitions };
}

type Extension = Extract<DefinitionNode, { kind: `${string}Extension` }>;

function isExtension(d: DefinitionNode): d is Extension {
  return (
    d.kind === Kind.SCHEMA_EXTENSION ||
    d.kind === Kind.OBJECT_TYPE_EXTENSION ||
    d.kind === Kind.INTERFACE_TYPE_EXTENSION ||
    d.kind === Kind.UNION_TYPE_EXTENSION ||
    d.kind === Kind.ENUM_TYPE_EXTENSION ||
    d.kind === Kind.INPUT_OBJECT_TYPE_EXTENSION ||
    d.kind === Kind.SCALAR_TYPE_EXTENSION
  );
}

const DEFINITION_OF: Partial<Record<Kind, Kind>> = {
  [Kind.OBJECT_TYPE_EXTENSION]: Kind.OBJECT_TYPE_DEFINITION,
  [Kind.INTERFACE_TYPE_EXTENSION]: Kind.INTERFACE_TYPE_DEFINITION,
  [Kind.UNION_TYPE_EXTENSION]: Kind.UNION_TYPE_DEFINITION,
  [Kind.ENUM_TYPE_EXTENSION]: Kind.ENUM_TYPE_DEFINITION,
  [Kind.INPUT_OBJECT_TYPE_EXTENSION]: Kind.INPUT_OBJECT_TYPE_DEFINITION,
  [Kind.SCALAR_TYPE_EXTENSION]: Kind.SCALAR_TYPE_DEFINITION,
};

/** `extend type T` with no `type T` anywhere: a subgraph may extend a type another subgraph owns, so it is T's definition here. */
function asDefinition(d: Exclude<Extension, { kind: Kind.SCHEMA_EXTENSION }>): DefinitionNode {
  return { ...d, kind: DEFINITION_OF[d.kind]! } as unknown as DefinitionNode;
}

/** The federation @link of the schema, its version and the local names of what it imports. */
function findFederationLink(definitions: readonly DefinitionNode[], problems: Problem[]): LinkedFederation | undefined {
  const links: Array<{ d: ConstDirectiveNode; version: number }> = [];
  for (const def of definitions) {
    if (def.kind !== Kind.SCHEMA_EXTENSION && def.kind !== Kind.SCHEMA_DEFINITION) continue;
    for (const d of def.directives ?? []) {
      if (d.name.value !== 'link') continue;
      const url = argument(d, 'url');
      const m = url?.kind === Kind.STRING ? FEDERATION_URL.exec(url.value) : null;
      if (m) links.push({ d, version: Number(m[1]) });
      else if (url?.kind === Kind.STRING && /specs\.apollo\.dev\/federation\//.test(url.value))
        problems.push({
          message: `@link url "${url.value}": gqlgw is a Federation v2 subgraph; link https://specs.apollo.dev/federation/v2.3 (v2.0 and up)`,
          node: url,
        });
    }
  }
  if (links.length === 0) return undefined;
  if (links.length > 1)
    problems.push({ message: 'the schema links the federation spec more than once; keep one @link', node: links[1]!.d });
  const { d, version } = links[0]!;
  const as = argument(d, 'as');
  const prefix = as?.kind === Kind.STRING ? `${as.value}__` : 'federation__';
  const specNames = [...Object.keys(SPEC_DIRECTIVES), ...SPEC_SCALARS];
  const names = new Map(specNames.map((n) => [n, `${prefix}${n}`] as const));
  const imports = argument(d, 'import');
  const items = imports?.kind === Kind.LIST ? imports.values : imports ? [imports] : [];
  for (const item of items) {
    let name: string | undefined;
    let alias: string | undefined;
    if (item.kind === Kind.STRING) name = item.value;
    else if (item.kind === Kind.OBJECT) {
      for (const f of item.fields) {
        if (f.name.value === 'name' && f.value.kind === Kind.STRING) name = f.value.value;
        if (f.name.value === 'as' && f.value.kind === Kind.STRING) alias = f.value.value;
      }
    }
    if (name === undefined) {
      problems.push({ message: '@link import: each entry is "@name", "Name" or { name: "@name", as: "@other" }', node: item });
      continue;
    }
    const isDirective = name.startsWith('@');
    const bare = isDirective ? name.slice(1) : name;
    const known = isDirective ? Object.keys(SPEC_DIRECTIVES) : SPEC_SCALARS;
    if (!known.includes(bare)) {
      const all = [...Object.keys(SPEC_DIRECTIVES).map((n) => `@${n}`), ...SPEC_SCALARS];
      problems.push({
        message: `@link import "${name}" is not in the federation spec${didYouMean(name, all)} (it has ${all.join(', ')})`,
        node: item,
      });
      continue;
    }
    names.set(bare, alias === undefined ? bare : alias.replace(/^@/, ''));
  }
  return { version, names };
}

function argument(d: ConstDirectiveNode, name: string): ConstValueNode | undefined {
  return d.arguments?.find((a) => a.name.value === name)?.value;
}

/**
 * Checks the `fields` of every @key, @requires and @provides against the built schema (each must
 * be a selection on its type: an error at the argument's file:line:col otherwise) and describes the
 * entity types: their keys in order, each with the @lookup of the same key.
 */
export function compileFederation(
  schema: GraphQLSchema,
  prepared: PreparedSubgraph,
  lookups: ReadonlyMap<string, readonly LookupBlueprint[]>,
  problems: Problem[],
): FederationBlueprint {
  const n = (spec: string): string => prepared.linked.names.get(spec)!;
  const entities = new Map<string, EntityBlueprint>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    const nodes = [type.astNode, ...type.extensionASTNodes];
    const keys: EntityKey[] = [];
    const fromRepresentation = new Set<string>();
    const typeExternal = nodes.some((x) => x?.directives?.some((d) => d.name.value === n('external')));
    for (const node of nodes) {
      for (const d of node?.directives ?? []) {
        if (d.name.value !== n('key')) continue;
        const fields = fieldsArgument(d, `@${n('key')} on ${type.name}`, type, problems);
        if (!fields) continue;
        const resolvable = argument(d, 'resolvable');
        const canonical = fieldSetText(fields.set);
        keys.push({
          canonical,
          leaves: fieldSetLeaves(fields.set),
          resolvable: !(resolvable?.kind === Kind.BOOLEAN && !resolvable.value),
          lookup: lookups.get(type.name)?.find((l) => l.canonicalKey === canonical),
        });
      }
    }
    for (const field of Object.values(type.getFields())) {
      const at = `${type.name}.${field.name}`;
      for (const d of field.astNode?.directives ?? []) {
        const name = d.name.value;
        if (name === n('external')) fromRepresentation.add(field.name);
        else if (name === n('requires')) {
          const fields = fieldsArgument(d, `@${name} on ${at}`, type, problems);
          for (const f of fields?.set ?? []) fromRepresentation.add(f.name);
        } else if (name === n('provides')) {
          const named = getNamedType(field.type);
          if (!isCompositeType(named))
            problems.push({
              message: `@${name} on ${at}: ${named.name} has no fields to provide; put @${name} on a field of an object type`,
              node: d,
            });
          else fieldsArgument(d, `@${name} on ${at}`, named, problems);
        }
      }
      if (typeExternal) fromRepresentation.add(field.name);
    }
    if (keys.length > 0 && isObjectType(type)) entities.set(type.name, Object.freeze({ typeName: type.name, keys, fromRepresentation }));
  }
  return Object.freeze({ sdl: serviceSdl(prepared.written), entities });
}

/** A directive's `fields` parsed against `type`; undefined (and a problem at the argument) when it is no selection on it. */
function fieldsArgument(
  d: ConstDirectiveNode,
  at: string,
  type: GraphQLCompositeType,
  problems: Problem[],
): { set: readonly FieldSetNode[] } | undefined {
  const value = argument(d, 'fields');
  if (value?.kind !== Kind.STRING) return undefined; // graphql-js reports a missing or mistyped argument
  const parsed = parseFieldSet(value.value, type);
  if (!parsed.ok) {
    problems.push({ message: `${at}: fields "${value.value}" ${parsed.error}`, node: value as ASTNode });
    return undefined;
  }
  return { set: parsed.fields };
}

/**
 * `_service { sdl }`: the schema files' definitions as written, without gqlgw's own directives
 * (their uses and any declaration), nothing added.
 */
function serviceSdl(written: readonly DefinitionNode[]): string {
  const own = new Set<string>(DIRECTIVE_NAMES);
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'loc') continue;
      if (k === 'directives' && Array.isArray(v)) out[k] = (v as ConstDirectiveNode[]).filter((d) => !own.has(d.name.value)).map(strip);
      else out[k] = strip(v);
    }
    return out;
  };
  const doc = { kind: Kind.DOCUMENT, definitions: written.map(strip) } as unknown as DocumentNode;
  return print(doc);
}
