import { getDirectiveValues, isObjectType, type DirectiveNode, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import type { DirectiveUse, FieldContext } from '../../directives/context.js';
import type { Problem } from '../../directives/problem.js';
import { compileCache } from '../../directives/cache.js';
import { compileLookup, compileLookupBatch, type CompiledLookupBatch, type LookupContext } from '../../directives/lookup.js';
import { dottedReader, readDotted, type DottedReader } from '../../directives/dotted.js';
import { keyString } from '../../directives/template.js';
import type { GatewayConfig } from '../config/types.js';
import type { BatchBlueprint, FetchBlueprint, LookupBlueprint } from './types.js';
import { readKeySuffix } from './fetch-blueprint.js';

/** How the blueprint reads fields of any type: their JSON steps and whether they are fetched. */
export interface FieldReads {
  readonly readOf: (typeName: string, fieldName: string) => readonly string[];
  readonly isFetched: (typeName: string, fieldName: string) => boolean;
}

/**
 * Compiles every object type's `@lookup` / `@lookupBatch` / `@cache` (docs/federation.md) into LookupBlueprints: each @lookup a single fetch, the @lookupBatch of the
 * same key its batch, the type's @cache its cache. Problems (with "did you mean") go to `problems`.
 */
export function compileLookups(
  schema: GraphQLSchema,
  config: GatewayConfig,
  reads: FieldReads,
  problems: Problem[],
): Map<string, readonly LookupBlueprint[]> {
  const out = new Map<string, readonly LookupBlueprint[]>();
  const sourceNames = [...config.sources.keys()];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !isObjectType(type)) continue;
    const uses = typeUses(schema, type, problems);
    const lookupUses = uses.filter((u) => u.name === 'lookup');
    const batchUses = uses.filter((u) => u.name === 'lookupBatch');
    const cacheUses = uses.filter((u) => u.name === 'cache');
    if (lookupUses.length === 0 && batchUses.length === 0 && cacheUses.length === 0) continue;
    const ctx: LookupContext = { type, sourceNames, fields: fieldContext(type, reads, sourceNames) };
    const lookups = lookupUses.map((u) => compileLookup(u.use, ctx, problems));
    const batches = batchUses.map((u) => compileLookupBatch(u.use, ctx, problems));
    const cacheUse = cacheUses[0]?.use;
    if (cacheUse && lookupUses.length === 0)
      problems.push({
        message: `@cache on type ${type.name} caches its lookups, and it has no @lookup; add one or remove @cache`,
        node: cacheUse.node,
      });
    const cache = cacheUse ? compileCache(cacheUse, true, ctx.fields, problems) : undefined;
    const used = new Set<CompiledLookupBatch>();
    const blueprints: LookupBlueprint[] = [];
    lookups.forEach((lookup) => {
      if (!lookup) return;
      if (cache && lookup.method !== 'GET')
        problems.push({
          message: `@cache on type ${type.name}: only GET answers are cached, and its @lookup sends ${lookup.method}`,
          node: cacheUse!.node,
        });
      const batch = batches.find((b) => b !== undefined && b.key.canonical === lookup.key.canonical);
      if (batch) used.add(batch);
      const leaves = lookup.key.reads;
      const single = leaves.length === 1 ? dottedReader(leaves[0]!) : undefined;
      const fetch: FetchBlueprint = {
        source: config.sources.get(lookup.source)!,
        template: lookup.template,
        select: lookup.select,
        keySuffix: readKeySuffix(lookup.select?.join('.'), false),
        batch: batch && batchBlueprint(batch, { single, keyAlone: !lookup.body && leaves.length === 1 }),
        cache,
        method: lookup.method,
        body: lookup.body,
        emptyIsTrue: false,
        invalidates: [],
        isList: false,
        isNonNull: false,
        itemNonNull: false,
        link: undefined,
        response: false,
        prefixRules: [],
      };
      blueprints.push(
        Object.freeze({
          typeName: type.name,
          coordinate: `${type.name}.@lookup(${lookup.key.text.trim().replace(/\s+/g, ' ')})`,
          keyText: lookup.key.text,
          canonicalKey: lookup.key.canonical,
          keyLeaves: lookup.key.leaves,
          hasKey: (object: unknown) => leaves.every((steps) => present(readDotted(object, steps))),
          fetch,
        }),
      );
    });
    batches.forEach((b) => {
      if (b && !used.has(b))
        problems.push({
          message: `@lookupBatch on ${type.name} with key "${b.key.text}" needs a @lookup with the same key: the single fetch each item is cached under`,
          node: b.node,
        });
    });
    if (blueprints.length > 0) out.set(type.name, blueprints);
  }
  return out;
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/**
 * The batch of a lookup. A key of one field is read and matched as a scalar; a key of several is
 * read as an object shaped like the key (what a body's `{keys}` sends) and compared by the string
 * forms of its leaves, the items by those of their `match` paths, in key order.
 */
function batchBlueprint(b: CompiledLookupBatch, how: { single: DottedReader | undefined; keyAlone: boolean }): BatchBlueprint {
  const common = {
    keyFromArgs: false,
    // One lookup batch shares chunks only with itself: its keys are read in its own way.
    shareKey: JSON.stringify(['@lookupBatch', b.key.canonical, b.template.text, b.body?.text ?? null, b.match]),
    template: b.template,
    match: b.match,
    max: b.max,
    listKeys: false,
    select: b.select,
    method: b.method,
    body: b.body,
    hasArgs: false,
  };
  if (how.single) return { ...common, readMatch: dottedReader(b.matchSteps[0]!), readKey: how.single, keyAlone: how.keyAlone };
  const leafReads = b.key.reads;
  const leaves = b.key.leaves;
  const readKey: DottedReader = (object) => {
    const shaped: Record<string, unknown> = {};
    for (let i = 0; i < leafReads.length; i++) {
      const v = readDotted(object, leafReads[i]!);
      if (!present(v)) return undefined;
      setAt(shaped, leaves[i]!, v);
    }
    return shaped;
  };
  const composite = (values: readonly unknown[]): string | undefined => {
    const parts: string[] = [];
    for (const v of values) {
      const s = keyString(v);
      if (s === undefined) return undefined;
      parts.push(s);
    }
    return JSON.stringify(parts);
  };
  const matchReads = b.matchSteps.map((s) => dottedReader(s));
  return {
    ...common,
    keyAlone: false,
    readKey,
    readMatch: (item) => composite(matchReads.map((r) => r(item))),
    keyString: (value) => (value === undefined ? undefined : composite(leaves.map((l) => readDotted(value, l)))),
  };
}

function setAt(target: Record<string, unknown>, steps: readonly string[], value: unknown): void {
  let at = target;
  for (let i = 0; i < steps.length - 1; i++) {
    const next = (at[steps[i]!] ??= {}) as Record<string, unknown>;
    at = next;
  }
  at[steps[steps.length - 1]!] = value;
}

/** The gateway directives on a type (its definition and extensions), with argument values coerced. */
function typeUses(schema: GraphQLSchema, type: GraphQLObjectType, problems: Problem[]): Array<{ name: string; use: DirectiveUse }> {
  const out: Array<{ name: string; use: DirectiveUse }> = [];
  const nodes: DirectiveNode[] = [];
  for (const n of [type.astNode, ...type.extensionASTNodes]) for (const d of n?.directives ?? []) nodes.push(d);
  for (const d of nodes) {
    const name = d.name.value;
    if (name !== 'lookup' && name !== 'lookupBatch' && name !== 'cache') continue;
    try {
      out.push({ name, use: { node: d, args: getDirectiveValues(schema.getDirective(name)!, { directives: [d] }) ?? {} } });
    } catch (err) {
      problems.push({ message: `@${name} on ${type.name}: ${(err as Error).message}`, node: d });
    }
  }
  return out;
}

/** A FieldContext on the type, for `{key.…}` steps (placeholders.ts stepParent reads only the type and the reads). */
function fieldContext(type: GraphQLObjectType, reads: FieldReads, sourceNames: readonly string[]): FieldContext {
  const fields = Object.values(type.getFields());
  return {
    coordinate: `type ${type.name}`,
    typeName: type.name,
    parentFields: new Map(),
    argNames: new Set(),
    sourceNames,
    parentType: type,
    field: fields[0]!,
    readOf: reads.readOf,
    isFetched: reads.isFetched,
    isMutation: false,
    resultType: undefined,
  };
}
