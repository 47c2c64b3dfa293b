import {
  getLocation,
  getNamedType,
  isAbstractType,
  isListType,
  isNonNullType,
  isObjectType,
  type ASTNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';
import type { Diagnostic } from '../config/diagnostics.js';
import type { SourceConfig } from '../config/types.js';
import type { Blueprint } from './types.js';
import { SUBGRAPH_ROOT_FIELDS } from './federation.js';

/**
 * `gqlgw check` warnings (docs/reference.md): schemas that compile but do what the
 * writer surely did not mean. Each carries file:line:col like an error; `--strict` makes them fail.
 *
 * - N+1: a field whose @fetch reads `{parent.*}`, without @batch, whose parent type is reachable
 *   through a list field: it sends one request per item of that list. Left out for the
 *   coordinates of `[check] accept_n_plus_one` (an API with no batch endpoint for them). The message names the list
 *   nearest to the field on the first path found from a root type (breadth-first, fields in
 *   schema order).
 * - A root field (Query, Mutation) with no @fetch that is not a namespace (the blueprint's
 *   `namespace`, docs/reference.md @from): it is always null.
 * - `@from(key: "address.city")`: a key with a dot is one JSON key of that name, which is rarely
 *   what is meant; `@from(path: "address.city")` reads the nested value (docs/rest-shapes.md).
 * - @cache on a field whose source forwards headers: entries are kept per distinct forwarded value
 *   (README "Per-caller data"), so the hit rate is per caller.
 *
 * Each warning has a kind (WARNING_KINDS, in that order: `n-plus-one`, `always-null`, `dotted-key`,
 * `per-caller-cache`) and the coordinate it is about; `[check] accept` leaves out the warnings it
 * lists as `"<kind>:<coordinate>"` (`accept_n_plus_one` entries are `n-plus-one:` ones).
 * Sorted by file, line and column.
 */
export function collectWarnings(blueprint: Blueprint): CheckWarning[] {
  const all = everyWarning(blueprint);
  return all.filter((w) => !blueprint.acceptedWarnings.has(`${w.kind}:${w.coordinate}`));
}

/** The kinds of warning `gqlgw check` prints (docs/reference.md "[check]"). */
export const WARNING_KINDS = ['n-plus-one', 'always-null', 'dotted-key', 'per-caller-cache'] as const;
export type WarningKind = (typeof WARNING_KINDS)[number];

/** A warning: where, what, and what `[check] accept` calls it (`"<kind>:<coordinate>"`). */
export interface CheckWarning extends Diagnostic {
  readonly kind: WarningKind;
  readonly coordinate: string;
}

/** How `gqlgw check` prints a warning's message: with the `[check] accept` entry that accepts it. */
export function shownWarning(w: CheckWarning): string {
  return `warning: ${w.message} [${w.kind}:${w.coordinate}]`;
}

function everyWarning(blueprint: Blueprint): CheckWarning[] {
  const { schema } = blueprint;
  const warnings: CheckWarning[] = [];
  const multipliers = listMultipliers(schema);
  for (const field of blueprint.fields.values()) {
    const fetch = field.fetch;
    const def = fieldDefinition(schema, field.typeName, field.fieldName);
    if (!def) continue;
    const list = multipliers.get(field.typeName);
    const at = field.coordinate;
    if (fetch && !fetch.batch && list && fetch.template.placeholders.some((p) => p.kind === 'parent')) {
      warnings.push(
        located(
          'n-plus-one',
          at,
          directiveNode(def, 'fetch') ?? def.astNode,
          `@fetch on ${field.coordinate} reads {parent.*} under the list ${list} without @batch: one request per item of ${list} (an N+1); add @batch to send them together`,
        ),
      );
    }
    const key = field.read.length === 1 ? field.read[0]! : '';
    if (!fetch && key.includes('.') && directiveNode(def, 'from')) {
      warnings.push(
        located(
          'dotted-key',
          at,
          directiveNode(def, 'from')!,
          `@from on ${field.coordinate}: key "${key}" reads one JSON key with "." in its name; for the nested value write @from(path: "${key}")`,
        ),
      );
    }
    if (fetch?.cache && fetch.source.perCaller) {
      warnings.push(
        located(
          'per-caller-cache',
          at,
          directiveNode(def, 'cache') ?? def.astNode,
          `@cache on ${field.coordinate}: source "${fetch.source.name}" ${perCallerHeaders(fetch.source)}, so its entries are kept per caller and shared by no one else (README "Per-caller data")`,
        ),
      );
    }
  }
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    if (!root) continue;
    for (const def of Object.values(root.getFields())) {
      const field = blueprint.fields.get(`${root.name}.${def.name}`);
      if (field?.fetch || field?.namespace) continue;
      if (blueprint.federation && root === schema.getQueryType() && SUBGRAPH_ROOT_FIELDS.has(def.name)) continue;
      warnings.push(
        located(
          'always-null',
          `${root.name}.${def.name}`,
          def.astNode,
          `${root.name}.${def.name} has no @fetch, so it is always null; add @fetch(source: ..., path: ...), or give it an object type with @fetch fields to make it a namespace`,
        ),
      );
    }
  }
  return warnings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}

/** Per object type under a list: the coordinate of the list field nearest to it on the first path found. */
function listMultipliers(schema: GraphQLSchema): Map<string, string> {
  const under = new Map<string, string>();
  const plain = new Set<string>();
  const queue: Array<[GraphQLObjectType, string | undefined]> = [];
  const visit = (type: GraphQLNamedType, list: string | undefined) => {
    for (const object of isAbstractType(type) ? schema.getPossibleTypes(type) : isObjectType(type) ? [type] : []) {
      if (list ? under.has(object.name) : plain.has(object.name)) continue;
      if (list) under.set(object.name, list);
      else plain.add(object.name);
      queue.push([object, list]);
    }
  };
  for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) if (root) visit(root, undefined);
  while (queue.length > 0) {
    const [type, list] = queue.shift()!;
    for (const field of Object.values(type.getFields())) {
      visit(getNamedType(field.type), hasList(field.type) ? `${type.name}.${field.name}` : list);
    }
  }
  return under;
}

function hasList(type: GraphQLType): boolean {
  const t = isNonNullType(type) ? type.ofType : type;
  return isListType(t);
}

function fieldDefinition(schema: GraphQLSchema, typeName: string, fieldName: string): GraphQLField<unknown, unknown> | undefined {
  const type = schema.getType(typeName);
  return isObjectType(type) ? type.getFields()[fieldName] : undefined;
}

function directiveNode(def: GraphQLField<unknown, unknown>, name: string): ASTNode | undefined {
  return def.astNode?.directives?.find((d) => d.name.value === name);
}

function located(kind: WarningKind, coordinate: string, node: ASTNode | undefined | null, message: string): CheckWarning {
  const loc = node?.loc;
  if (!loc) return { file: '<schema>', line: 1, column: 1, message, kind, coordinate };
  const { line, column } = getLocation(loc.source, loc.start);
  return { file: loc.source.name, line, column, message, kind, coordinate };
}

/** What makes a source per-caller, for a warning: `forwards headers (a, b)` and/or `sends {auth.*} headers (c)`. */
function perCallerHeaders(source: SourceConfig): string {
  const claims = (source.claimHeaders ?? []).map((h) => h.name);
  const parts = [
    ...(source.forwardHeaders.length > 0 ? [`forwards headers (${source.forwardHeaders.join(', ')})`] : []),
    ...(claims.length > 0 ? [`sends {auth.*} headers (${claims.join(', ')})`] : []),
  ];
  return parts.join(' and ');
}
