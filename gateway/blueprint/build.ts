import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, relative } from 'node:path';
import {
  GraphQLError,
  Kind,
  Source,
  buildASTSchema,
  getDirectiveValues,
  getLocation,
  isObjectType,
  isInterfaceType,
  isAbstractType,
  getNamedType,
  type GraphQLSchema,
  parse,
  validateSchema,
  type ASTNode,
  type DefinitionNode,
  type DocumentNode,
  type GraphQLField,
  type GraphQLOutputType,
  type GraphQLObjectType,
} from 'graphql';
import { validateSDL } from 'graphql/validation/validate.js';
import { DIRECTIVE_DEFINITIONS, DIRECTIVE_NAMES } from '../../directives/definitions.js';
import { compileFieldDirectives } from '../../directives/field.js';
import { compileInvalidations } from '../../directives/invalidate.js';
import { compileSideloads } from '../../directives/sideload.js';
import { compilePoll } from '../../directives/poll.js';
import { compileTypeFrom, fromSteps } from '../../directives/from.js';
import { compileTypeMap, type TypeMap } from '../../directives/type-map.js';
import { prefixRulesBySource } from './prefix-rules.js';
import type { DirectiveUse, FieldContext } from '../../directives/context.js';
import type { Problem } from '../../directives/problem.js';
import type { GatewayConfig } from '../config/types.js';
import { GatewayConfigError, type Diagnostic } from '../config/diagnostics.js';
import { locateKey } from '../config/locate.js';
import { expandSchemaGlobs } from './glob.js';
import { withSdlSuggestion } from './sdl-suggestions.js';
import { withWireEnumValues } from './wire-enums.js';
import { withExactScalars } from './exact-scalars.js';
import { InputWireNames } from './input-wire.js';
import { unknownAcceptedCoordinates, unknownAcceptedWarnings } from './accepted-n-plus-one.js';
import type { Blueprint, Discriminator, FieldBlueprint, LookupBlueprint, SideloadBlueprint } from './types.js';
import { allowedClaims, compileAuthGuards, type AuthGuards } from './auth-guards.js';
import { compileListSize } from '../../directives/list-size.js';
import { compileLookups } from './lookups.js';
import { compileFederation, prepareSubgraph, type PreparedSubgraph } from './federation.js';
import { compileFetchBlueprint, readKeySuffix, type FetchBlueprintContext } from './fetch-blueprint.js';
import { linkSideloads } from './sideloads.js';

/**
 * Compiles the schema files of a config into a Blueprint: the GraphQL schema plus, per coordinate,
 * what its directives mean. Collects every problem (SDL errors, directive misuse) with
 * file:line:col and throws them together as a GatewayConfigError.
 */
export function buildBlueprint(config: GatewayConfig): Blueprint {
  const configFile = { file: shownPath(config.file), text: safeRead(config.file) };
  const { definitions, ownDefinitions } = readDefinitions(config, configFile);
  const subgraph = linkSubgraph(definitions, ownDefinitions, configFile.file);
  const problems: Problem[] = [];
  const schema = compileSchema(definitions, configFile.file, problems);

  // First pass: every field's directive uses, so that placeholders can read any type's @from.
  const usesByType: UsesByType = new Map();
  for (const type of objectTypesOf(schema)) {
    usesByType.set(type.name, new Map(Object.values(type.getFields()).map((f) => [f.name, directiveUses(schema, f, type.name, problems)])));
  }
  const readOf = (typeName: string, fieldName: string): readonly string[] =>
    fromSteps(usesByType.get(typeName)?.get(fieldName)?.get('from'), fieldName);
  const isFetched = (typeName: string, fieldName: string): boolean => usesByType.get(typeName)?.get(fieldName)?.has('fetch') ?? false;
  const selectSuffixes = selectSuffixesBySource(usesByType);
  const guards = compileAuthGuards(schema, usesByType, config, problems);
  warnInterfaceDirectives(schema, problems);
  const discriminators = compileDiscriminators(schema, problems);
  const prefixRules = prefixRulesBySource(schema);
  const scope: FieldScope = {
    schema,
    usesByType,
    readOf,
    isFetched,
    sourceNames: [...config.sources.keys()],
    authClaims: allowedClaims(config),
    guards,
    mutationType: schema.getMutationType()?.name,
    live: { subscriptionType: schema.getSubscriptionType()?.name, webhookNames: [...config.webhooks.keys()] },
    discriminators,
    fetchContext: { config, prefixRules, selectSuffixes, inputWire: new InputWireNames(schema, problems) },
    sideloadNodes: new Map(),
    problems,
  };
  const fields = compileFields(scope);

  linkSideloads(fields, scope.sideloadNodes, scope.mutationType, problems);
  const diagnostics: Diagnostic[] = [
    ...unknownAcceptedCoordinates(config.check.acceptNPlusOne, fields, configFile),
    ...unknownAcceptedWarnings(config.check.accept, fields, configFile),
  ];
  const lookups = guardedLookups(compileLookups(schema, config, { readOf, isFetched }, problems), guards);
  const federation = subgraph && compileFederation(schema, subgraph, lookups, problems);
  for (const p of problems) diagnostics.push(problemDiagnostic(p, configFile.file));
  if (diagnostics.length > 0) throw new GatewayConfigError(sortDiagnostics(diagnostics));
  const acceptedWarnings = new Set([...config.check.accept, ...config.check.acceptNPlusOne.map((c) => `n-plus-one:${c}`)]);
  return Object.freeze({ schema, fields, discriminators, acceptedWarnings, lookups, federation });
}

/** Per object type, per field, the gateway directives on it (directiveUses). */
type UsesByType = Map<string, Map<string, Map<string, DirectiveUse>>>;

/** What compiling one field needs of the whole schema (buildBlueprint gathers it once). */
interface FieldScope {
  readonly schema: GraphQLSchema;
  readonly usesByType: UsesByType;
  readonly readOf: FieldContext['readOf'];
  readonly isFetched: FieldContext['isFetched'];
  readonly sourceNames: string[];
  readonly authClaims: FieldContext['authClaims'];
  readonly guards: AuthGuards;
  readonly mutationType: string | undefined;
  readonly live: { subscriptionType: string | undefined; webhookNames: string[] };
  readonly discriminators: ReadonlyMap<string, Discriminator>;
  readonly fetchContext: FetchBlueprintContext;
  /** Filled while compiling: each compiled @sideload and the directive it came from. */
  readonly sideloadNodes: Map<SideloadBlueprint, ASTNode>;
  readonly problems: Problem[];
}

/**
 * The gateway's directive definitions followed by every definition of the schema files, in order.
 * Throws the files' problems (no match for an entry, syntax errors, a redeclared gateway directive).
 */
function readDefinitions(
  config: GatewayConfig,
  configFile: { file: string; text: string },
): { definitions: DefinitionNode[]; ownDefinitions: number } {
  const diagnostics: Diagnostic[] = [];
  const definitions: DefinitionNode[] = [...parse(new Source(DIRECTIVE_DEFINITIONS, '<gqlgw directives>')).definitions];
  const ownDefinitions = definitions.length;
  const seen = new Set<string>();
  for (const { entry, files } of expandSchemaGlobs(config.schema, dirname(config.file))) {
    if (files.length === 0) {
      const place = locateKey(configFile.text, ['gateway'], 'schema');
      diagnostics.push({ ...place, file: configFile.file, message: `gateway.schema entry "${entry}" matches no file` });
    }
    for (const file of files) {
      if (seen.has(file)) continue;
      seen.add(file);
      readSchemaFile(file, definitions, diagnostics);
    }
  }
  if (diagnostics.length > 0) throw new GatewayConfigError(diagnostics);
  return { definitions, ownDefinitions };
}

/** Appends one schema file's definitions; a gateway directive it declares is a problem. */
function readSchemaFile(file: string, definitions: DefinitionNode[], diagnostics: Diagnostic[]): void {
  const name = shownPath(file);
  try {
    const doc = parse(new Source(readFileSync(file, 'utf8'), name));
    for (const def of doc.definitions) {
      if (def.kind === Kind.DIRECTIVE_DEFINITION && (DIRECTIVE_NAMES as readonly string[]).includes(def.name.value)) {
        diagnostics.push(at(def, `@${def.name.value} is declared by the gateway; remove this declaration`));
        continue;
      }
      definitions.push(def);
    }
  } catch (err) {
    diagnostics.push(fromGraphQLError(err, name));
  }
}

/** A federation subgraph's `@link`: replaces the user's definitions (after `ownDefinitions`) with the linked ones; throws its problems. */
function linkSubgraph(definitions: DefinitionNode[], ownDefinitions: number, configName: string): PreparedSubgraph | undefined {
  const linkProblems: Problem[] = [];
  const subgraph = prepareSubgraph(definitions.slice(ownDefinitions), linkProblems);
  if (linkProblems.length > 0) throw new GatewayConfigError(linkProblems.map((p) => problemDiagnostic(p, configName)));
  if (subgraph) definitions.splice(ownDefinitions, Infinity, ...subgraph.definitions);
  return subgraph;
}

/** The GraphQL schema of the definitions; throws SDL and schema errors. Exact scalars and wire enum values are applied. */
function compileSchema(definitions: DefinitionNode[], configName: string, problems: Problem[]): GraphQLSchema {
  const diagnostics: Diagnostic[] = [];
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions };
  for (const err of validateSDL(document)) diagnostics.push(fromGraphQLError(withSdlSuggestion(err, document), configName));
  if (diagnostics.length > 0) throw new GatewayConfigError(diagnostics);
  const schema = withWireEnumValues(withExactScalars(buildASTSchema(document, { assumeValidSDL: true })), problems);
  for (const err of validateSchema(schema)) diagnostics.push(fromGraphQLError(err, configName));
  if (!schema.getQueryType()) diagnostics.push({ file: configName, line: 1, column: 1, message: 'the schema has no Query type' });
  if (diagnostics.length > 0) throw new GatewayConfigError(diagnostics);
  return schema;
}

function objectTypesOf(schema: GraphQLSchema): GraphQLObjectType[] {
  return Object.values(schema.getTypeMap()).filter((t): t is GraphQLObjectType => isObjectType(t) && !t.name.startsWith('__'));
}

/** A gateway directive on an interface field does nothing: a problem that says where to put it. */
function warnInterfaceDirectives(schema: GraphQLSchema, problems: Problem[]): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      for (const d of field.astNode?.directives ?? []) {
        if ((DIRECTIVE_NAMES as readonly string[]).includes(d.name.value)) {
          problems.push({
            message: `@${d.name.value} on interface field ${type.name}.${field.name} has no effect; put it on the object types that implement ${type.name}`,
            node: d,
          });
        }
      }
    }
  }
}

/** Every field of every object type, by coordinate. */
function compileFields(scope: FieldScope): Map<string, FieldBlueprint> {
  const fields = new Map<string, FieldBlueprint>();
  for (const type of objectTypesOf(scope.schema)) {
    const typeFields = Object.values(type.getFields());
    const parentFields = new Map(
      typeFields.map(
        (f) => [f.name, { jsonKey: scope.readOf(type.name, f.name).join('.'), fetched: scope.isFetched(type.name, f.name) }] as const,
      ),
    );
    for (const field of typeFields) {
      const ctx: FieldContext = {
        coordinate: `${type.name}.${field.name}`,
        typeName: type.name,
        parentFields,
        argNames: new Set(field.args.map((a) => a.name)),
        sourceNames: scope.sourceNames,
        parentType: type,
        field,
        readOf: scope.readOf,
        isFetched: scope.isFetched,
        isMutation: type.name === scope.mutationType,
        resultType: objectTypeOf(field.type),
        authClaims: scope.authClaims,
      };
      fields.set(ctx.coordinate, compileField(scope, ctx, field));
    }
  }
  return fields;
}

/** One field's blueprint: its directives compiled in the context of its type. */
function compileField(scope: FieldScope, ctx: FieldContext, field: GraphQLField<unknown, unknown>): FieldBlueprint {
  const { schema, problems } = scope;
  const fieldUses = scope.usesByType.get(ctx.typeName)!.get(field.name)!;
  const compiled = compileFieldDirectives(field.name, fieldUses, ctx, problems);
  const invalidates = compileInvalidations(repeatedUses(schema, field, 'invalidate', problems), fieldUses.has('fetch'), ctx, problems);
  const sideloads = compileSideloads(
    repeatedUses(schema, field, 'sideload', problems),
    { hasFetch: fieldUses.has('fetch'), hasBatch: fieldUses.has('batch'), response: compiled.fetch?.response === true },
    ctx,
    problems,
  );
  const fetch =
    compiled.fetch && compileFetchBlueprint(field, { ...compiled, fetch: compiled.fetch, sideloads }, invalidates, scope.fetchContext);
  fetch?.sideloads?.forEach((s, i) => scope.sideloadNodes.set(s, sideloads[i]!.node));
  const named = getNamedType(field.type);
  const namespace =
    isObjectType(named) &&
    !fieldUses.has('from') &&
    !fieldUses.has('fetch') &&
    Object.keys(named.getFields()).some((f) => scope.isFetched(named.name, f));
  return Object.freeze({
    coordinate: ctx.coordinate,
    typeName: ctx.typeName,
    fieldName: field.name,
    read: compiled.read,
    fetch,
    namespace,
    discriminator: isAbstractType(named) ? scope.discriminators.get(named.name) : undefined,
    auth: scope.guards.field(ctx.coordinate, ctx.typeName, named.name, fetch),
    listSize: fieldUses.has('listSize') ? compileListSize(fieldUses.get('listSize')!, ctx, problems) : undefined,
    poll: compilePoll(fieldUses, { ...ctx, ...scope.live }, problems),
  });
}

/** Every union and interface with how its items tell their object type (its @from key, else `__typename`). */
function compileDiscriminators(schema: GraphQLSchema, problems: Problem[]): Map<string, Discriminator> {
  const out = new Map<string, Discriminator>();
  const fromDef = schema.getDirective('from')!;
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isAbstractType(type) || type.name.startsWith('__')) continue;
    let key = '__typename';
    let map: TypeMap | undefined;
    const members = schema.getPossibleTypes(type).map((t) => t.name);
    for (const node of [type.astNode, ...type.extensionASTNodes]) {
      const d = node?.directives?.find((x) => x.name.value === 'from');
      if (!node || !d) continue;
      try {
        const args = getDirectiveValues(fromDef, { directives: [d] }) ?? {};
        key = compileTypeFrom({ node: d, args }, type.name, problems) ?? key;
        map = compileTypeMap({ node: d, args }, type.name, members, problems) ?? map;
      } catch (err) {
        problems.push({ message: `@from on ${type.name}: ${(err as Error).message}`, node: d });
      }
    }
    const types = new Map<string, string>();
    for (const t of members) types.set(t, t).set(t.toLowerCase(), t);
    out.set(type.name, Object.freeze({ abstractType: type.name, key, types, map }));
  }
  return out;
}

/** The repeatable gateway directives of fields: read by repeatedUses, not directiveUses. */
const REPEATABLE: ReadonlySet<string> = new Set(['invalidate', 'sideload']);

/** The gateway directives on a field, with argument values coerced; bad values become problems. */
function directiveUses(
  schema: ReturnType<typeof buildASTSchema>,
  field: GraphQLField<unknown, unknown>,
  typeName: string,
  problems: Problem[],
): Map<string, DirectiveUse> {
  const uses = new Map<string, DirectiveUse>();
  const node = field.astNode;
  if (!node) return uses;
  for (const d of node.directives ?? []) {
    const name = d.name.value;
    if (!(DIRECTIVE_NAMES as readonly string[]).includes(name) || REPEATABLE.has(name)) continue;
    const def = schema.getDirective(name)!;
    try {
      const args = getDirectiveValues(def, { directives: [d] }) ?? {};
      uses.set(name, { node: d, args });
    } catch (err) {
      problems.push({ message: `@${name} on ${typeName}.${field.name}: ${(err as Error).message}`, node: d });
    }
  }
  return uses;
}

/** Every use of a repeatable gateway directive on a field, in order, with argument values coerced. */
function repeatedUses(schema: GraphQLSchema, field: GraphQLField<unknown, unknown>, name: string, problems: Problem[]): DirectiveUse[] {
  const def = schema.getDirective(name)!;
  const out: DirectiveUse[] = [];
  for (const d of field.astNode?.directives ?? []) {
    if (d.name.value !== name) continue;
    try {
      out.push({ node: d, args: getDirectiveValues(def, { directives: [d] }) ?? {} });
    } catch (err) {
      problems.push({ message: `@${name} on ${field.name}: ${(err as Error).message}`, node: d });
    }
  }
  return out;
}

/** Per source, '' and the read suffix of each of its @fetch uses (`select`, `response`): the key suffixes its entries may have. */
function selectSuffixesBySource(
  usesByType: ReadonlyMap<string, ReadonlyMap<string, ReadonlyMap<string, DirectiveUse>>>,
): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const fieldsOfType of usesByType.values()) {
    for (const uses of fieldsOfType.values()) {
      const fetch = uses.get('fetch');
      if (!fetch) continue;
      const source = String(fetch.args.source);
      const suffixes = out.get(source) ?? new Set(['']);
      suffixes.add(readKeySuffix(typeof fetch.args.select === 'string' ? fetch.args.select : undefined, fetch.args.response === true));
      out.set(source, suffixes);
    }
  }
  return new Map([...out].map(([source, suffixes]) => [source, [...suffixes]]));
}

function objectTypeOf(type: GraphQLOutputType): GraphQLObjectType | undefined {
  const named = getNamedType(type);
  return isObjectType(named) ? named : undefined;
}

function problemDiagnostic(p: Problem, configName: string): Diagnostic {
  return p.node ? at(p.node, p.message) : { file: configName, line: 1, column: 1, message: p.message };
}

function at(node: ASTNode, message: string): Diagnostic {
  const loc = node.loc;
  if (!loc) return { file: '<schema>', line: 1, column: 1, message };
  const { line, column } = getLocation(loc.source, loc.start);
  return { file: loc.source.name, line, column, message };
}

function fromGraphQLError(err: unknown, fallbackFile: string): Diagnostic {
  if (err instanceof GraphQLError) {
    const node = err.nodes?.[0];
    if (node?.loc) return at(node, err.message);
    const loc = err.locations?.[0];
    return {
      file: err.source?.name ?? fallbackFile,
      line: loc?.line ?? 1,
      column: loc?.column ?? 1,
      message: err.message.replace(/^Syntax Error: /, 'syntax error: '),
    };
  }
  return { file: fallbackFile, line: 1, column: 1, message: (err as Error).message };
}

function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  return [...list].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}

/** A path as the user should see it: relative to the working directory when inside it. */
function shownPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Each lookup with the guard of the type it looks up: what `_entities` and completion check before fetching it. */
function guardedLookups(lookups: Map<string, readonly LookupBlueprint[]>, guards: AuthGuards): Map<string, readonly LookupBlueprint[]> {
  for (const [typeName, list] of lookups) {
    const auth = guards.type(typeName);
    if (auth)
      lookups.set(
        typeName,
        list.map((l) => Object.freeze({ ...l, auth })),
      );
  }
  return lookups;
}
