import {
  defaultFieldResolver,
  GraphQLError,
  GraphQLInterfaceType,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLUnionType,
  execute,
  isSpecifiedScalarType,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFieldConfig,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { internalError } from '../../errors.js';
import type { CompiledQuery } from 'graphql-jit';
import type { Blueprint, FieldBlueprint } from '../../blueprint/types.js';
import { expandedFieldCount } from '../../plan/measure.js';
import { hasConditionalCopies } from '../../plan/conditional-copies.js';
import type { ResultStore } from '../send/result-store.js';
import { isInheritedName, ownValue, readDotted } from '../../../directives/dotted.js';
import { fieldValue, type OutcomeField } from '../../upstream/outcome.js';
import { concreteTypeOf } from '../ask/concrete-type.js';
import { deeperThan } from '../ask/value-depth.js';
import { nestedTooDeep } from './value-errors.js';
import { compileDataWriter, type DataWriter } from './write-data.js';
import type { WriteMeter } from './answer-size.js';
import { readingEntities } from './shape-entities.js';
import { JIT_MAX_FIELDS } from '../../plan/compile-limit.js';

/** The context the response shaper runs with: the request's fetched results. */
export interface ShapeContext {
  readonly store: ResultStore;
  /** Put the upstream detail (path, status, body excerpt) into error extensions: debug only. */
  readonly debugMode: boolean;
}

/**
 * The schema responses are shaped with: a copy of the blueprint's schema that carries, from the
 * start, the resolvers that read what the rounds fetched (@fetch fields read the store, @from
 * fields their parent's key or path, namespaces an empty object when the parent has none, others
 * graphql-js's default). Every union and interface tells its items' types by its discriminator (an
 * item it cannot tell is an UPSTREAM_BAD_RESPONSE at its path), and every object type below the
 * roots accepts only JSON objects (execute/answer/value-errors.ts names the error). Built once per
 * blueprint; the blueprint's own schema, which the server validates against, is never changed.
 * graphql-js or graphql-jit then shape each response synchronously (aliases, fragments,
 * __typename, @skip/@include, non-null propagation, errors at their paths).
 */
export function shapingSchema(blueprint: Blueprint, maxJsonDepth: number): GraphQLSchema {
  const { schema } = blueprint;
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].map((t) => t?.name));
  // An item it cannot tell resolves to no type: graphql-js and graphql-jit then report an error at
  // the item's path, which execute/answer/value-errors.ts turns into UPSTREAM_BAD_RESPONSE.
  const resolveTypeOf = (name: string) => {
    const d = blueprint.discriminators.get(name);
    return d && ((value: unknown) => concreteTypeOf(d, value));
  };
  const shaped = mapSchema(schema, {
    [MapperKind.SCALAR_TYPE]: (type) => (isSpecifiedScalarType(type) ? type : boundedScalar(type, maxJsonDepth)),
    [MapperKind.OBJECT_TYPE]: (type) =>
      roots.has(type.name) ? type : new GraphQLObjectType({ ...type.toConfig(), isTypeOf: isJsonObject }),
    [MapperKind.UNION_TYPE]: (type) => {
      const resolveType = resolveTypeOf(type.name);
      return resolveType ? new GraphQLUnionType({ ...type.toConfig(), resolveType }) : type;
    },
    [MapperKind.INTERFACE_TYPE]: (type) => {
      const resolveType = resolveTypeOf(type.name);
      return resolveType ? new GraphQLInterfaceType({ ...type.toConfig(), resolveType }) : type;
    },
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      const bp = blueprint.fields.get(`${typeName}.${fieldName}`);
      if (!bp) return roots.has(typeName) ? field : ownKeyField(field, fieldName, fieldName);
      if (bp.auth && !bp.fetch) return guarded(plainField(bp, field, fieldName));
      return plainField(bp, field, fieldName);
    },
  });
  // Completed objects and `_entities` read a lookup's outcome of a single object (no list items).
  return readingEntities(blueprint, shaped, (coordinate, isNonNull, name) =>
    fetchedResolver({ coordinate, fetch: { source: { name }, isNonNull, itemNonNull: false } }),
  );
}

/**
 * A guarded field that is not fetched: its refusal's error when the walk claimed one for this parent
 * (execute/ask/walk.ts; raised at the field's path), else what it reads as usual.
 */
function guarded(field: GraphQLFieldConfig<unknown, ShapeContext>): GraphQLFieldConfig<unknown, ShapeContext> {
  const read = field.resolve ?? defaultFieldResolver;
  const resolve: GraphQLFieldResolver<unknown, ShapeContext> = (source, args, ctx, info) => {
    let refused = ctx.store.get(source as object, info.fieldNodes[0]!);
    for (let i = 1; !refused && i < info.fieldNodes.length; i++) refused = ctx.store.get(source as object, info.fieldNodes[i]!);
    return refused !== undefined && refused.kind === 'refused' ? refused.error : read(source, args, ctx, info);
  };
  return { ...field, resolve };
}

/** The field with the resolver that reads its value from the fetched data. */
function plainField(
  bp: FieldBlueprint,
  field: GraphQLFieldConfig<unknown, ShapeContext>,
  fieldName: string,
): GraphQLFieldConfig<unknown, ShapeContext> {
  if (bp.fetch) return { ...field, resolve: fetchedResolver(bp as OutcomeField) };
  if (bp.namespace) {
    const key = bp.read[0]!;
    const resolve = (source: unknown, _args: unknown, ctx: ShapeContext) =>
      ownValue(source as object, key) ?? ctx.store.namespace(source as object, key);
    return { ...field, resolve };
  }
  if (bp.read.length > 1) {
    const steps = bp.read;
    return { ...field, resolve: (source: unknown) => readDotted(source, steps) };
  }
  return ownKeyField(field, fieldName, bp.read[0]!);
}

/**
 * The field reading its parent's own key `key` (graphql's default resolver when that is its name,
 * and not the name of an inherited member, which only an own key may answer).
 */
function ownKeyField(
  field: GraphQLFieldConfig<unknown, ShapeContext>,
  fieldName: string,
  key: string,
): GraphQLFieldConfig<unknown, ShapeContext> {
  if (key === fieldName && !isInheritedName(key)) return field;
  return { ...field, resolve: (source: unknown) => (source === null || source === undefined ? undefined : ownValue(source, key)) };
}

/**
 * A custom scalar whose values (passed through from the source, as deep as the source made them:
 * the schema does not bound them) are refused past `maxJsonDepth` levels, before anything
 * recursive writes them, with a ValueError (UPSTREAM_BAD_RESPONSE at its path, execute/answer/value-errors.ts).
 */
function boundedScalar(type: GraphQLScalarType, maxJsonDepth: number): GraphQLScalarType {
  const config = type.toConfig();
  const serialize = config.serialize ?? ((v: unknown) => v);
  return new GraphQLScalarType({
    ...config,
    serialize: (value) => {
      if (deeperThan(value, maxJsonDepth)) throw nestedTooDeep(maxJsonDepth);
      return serialize(value);
    },
  });
}

function isJsonObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The resolver of a field whose value is a lookup's outcome (upstream/outcome.ts fieldValue decides it). */
function fetchedResolver(field: OutcomeField): GraphQLFieldResolver<unknown, ShapeContext> {
  return (source, _args, ctx, info) => {
    // Fields merged under one response key share field and arguments (validation), so any node
    // the walk reached holds the same result; engines differ in which node they list first.
    let outcome = ctx.store.get(source as object, info.fieldNodes[0]!);
    for (let i = 1; !outcome && i < info.fieldNodes.length; i++) outcome = ctx.store.get(source as object, info.fieldNodes[i]!);
    if (outcome === undefined) {
      throw internalError(`internal: ${info.parentType.name}.${info.fieldName} was not fetched`);
    }
    const value = fieldValue(outcome, field, ctx.debugMode);
    if (value instanceof GraphQLError) throw value;
    return value;
  };
}

/** The operation to shape: what a GraphQL request names. */
export interface ShapeRequest {
  readonly document: DocumentNode;
  readonly operationName?: string | null;
  readonly variables?: Readonly<Record<string, unknown>> | null;
}

/** What is compiled once per (document, operation): graphql-jit's query and the data writer. */
interface Compiled {
  /** Whether graphql-jit shapes this operation. */
  readonly jit: boolean;
  /** graphql-jit's compiled query, made on the first shape: undefined until then, null when it declined. */
  query: CompiledQuery | null | undefined;
  readonly writer: DataWriter | undefined;
}

type GraphqlJit = typeof import('graphql-jit');

/** graphql-jit (and with it fast-json-stringify and ajv), imported when the first response is shaped rather than written. */
let graphqlJit: GraphqlJit | undefined;
let loadingJit: Promise<GraphqlJit> | undefined;

function loadGraphqlJit(): Promise<GraphqlJit> {
  return (loadingJit ??= import('graphql-jit').then((loaded) => (graphqlJit = loaded)));
}

/**
 * Shapes responses over the fetched data with graphql-jit: each (document, operation) is compiled
 * once into a function, the first time a response of it is shaped (graphql-jit itself is imported
 * then), and cached beside the document; graphql-js's own executor serves any
 * document graphql-jit declines to compile, or would answer otherwise (a conditional copy of a
 * merged field), with the same resolvers and the same semantics.
 * `writeData` writes a plain success straight to JSON text (execute/answer/write-data.ts) for an entrance
 * that sends JSON anyway; on anything else the entrance shapes as usual.
 */
export class ResponseShaper {
  private readonly compiled = new WeakMap<DocumentNode, Map<string, Compiled>>();

  private readonly schema: GraphQLSchema;

  /** `maxJsonDepth`: limits.max_json_depth, how deep a custom-scalar value may be. */
  constructor(
    private readonly blueprint: Blueprint,
    maxJsonDepth: number,
  ) {
    this.schema = shapingSchema(blueprint, maxJsonDepth);
  }

  shape(request: ShapeRequest, rootValue: object, context: ShapeContext): ExecutionResult | Promise<ExecutionResult> {
    const { document, operationName, variables } = request;
    const compiled = this.compiledOf(document, operationName);
    if (compiled.jit && compiled.query === undefined) {
      if (!graphqlJit) return loadGraphqlJit().then(() => this.shape(request, rootValue, context));
      compiled.query = this.compileQuery(graphqlJit, document, operationName) ?? null;
    }
    const query = compiled.query;
    if (query)
      return query.query(rootValue, context, variables as Record<string, unknown> | undefined) as
        ExecutionResult | Promise<ExecutionResult>;
    return execute({
      schema: this.schema,
      document,
      operationName,
      variableValues: variables as Record<string, unknown> | undefined,
      rootValue,
      contextValue: context,
    });
  }

  /**
   * The response's `data` as JSON text when it is a plain success the writer can write within
   * `meter`; else undefined (and `meter.stopped` when the meter stopped it).
   */
  writeData(request: ShapeRequest, rootValue: object, store: ResultStore, meter: WriteMeter): string | undefined {
    return this.compiledOf(request.document, request.operationName).writer?.(rootValue, store, meter);
  }

  private compiledOf(document: DocumentNode, operationName: string | null | undefined): Compiled {
    let byName = this.compiled.get(document);
    if (!byName) {
      byName = new Map();
      this.compiled.set(document, byName);
    }
    const key = operationName ?? '';
    let compiled = byName.get(key);
    if (!compiled) {
      const small = expandedFieldCount(document, operationName) <= JIT_MAX_FIELDS;
      // graphql-jit shapes a conditional copy of a merged field unlike graphql-js (plan/conditional-copies.ts).
      const jit = small && !hasConditionalCopies(document, operationName);
      compiled = small
        ? { jit, query: undefined, writer: this.compileWriter(document, operationName) }
        : { jit: false, query: undefined, writer: undefined };
      byName.set(key, compiled);
    }
    return compiled;
  }

  private compileWriter(document: DocumentNode, operationName: string | null | undefined): DataWriter | undefined {
    try {
      // Against the shaping schema: its scalars are the ones that serialise (and bound) values.
      return compileDataWriter({ ...this.blueprint, schema: this.schema }, document, operationName);
    } catch {
      return undefined; // shaped by graphql-jit or graphql-js, which report what is wrong
    }
  }

  private compileQuery(jit: GraphqlJit, document: DocumentNode, operationName: string | null | undefined): CompiledQuery | undefined {
    const { compileQuery, isCompiledQuery } = jit;
    try {
      const result = compileQuery(this.schema, document, operationName ?? undefined, { disablingCapturingStackErrors: true });
      return isCompiledQuery(result) ? result : undefined;
    } catch {
      return undefined;
    }
  }
}
