import { GraphQLBoolean, getNullableType, isListType, isNonNullType, type GraphQLField } from 'graphql';
import type { CompiledBatch } from '../../directives/batch.js';
import { dottedReader } from '../../directives/dotted.js';
import type { CompiledFetch } from '../../directives/fetch.js';
import type { CompiledFieldDirectives } from '../../directives/field.js';
import type { CompiledInvalidate } from '../../directives/invalidate.js';
import type { PrefixRule } from '../../directives/prefix-rule.js';
import { sourceBase } from '../../directives/url-link.js';
import type { GatewayConfig } from '../config/types.js';
import type { FetchBlueprint, SideloadBlueprint } from './types.js';
import type { InputWireNames } from './input-wire.js';
import type { CompiledSideload } from '../../directives/sideload.js';

/** What the fetch blueprints of one schema share: the config, and per source its @invalidate prefix rules and `select` suffixes. */
export interface FetchBlueprintContext {
  readonly config: GatewayConfig;
  readonly prefixRules: ReadonlyMap<string, PrefixRule[]>;
  readonly selectSuffixes: ReadonlyMap<string, string[]>;
  /** Input fields' wire names (`@from(key:)` on an input field), for bodies. */
  readonly inputWire: InputWireNames;
}

/**
 * The FetchBlueprint of a field with @fetch: how its subrequest is built, batched, cached,
 * invalidated and read, compiled once at start-up.
 */
export function compileFetchBlueprint(
  field: GraphQLField<unknown, unknown>,
  compiled: CompiledFieldDirectives & { readonly fetch: CompiledFetch; readonly sideloads?: readonly CompiledSideload[] },
  invalidates: readonly CompiledInvalidate[],
  { config, prefixRules, selectSuffixes, inputWire }: FetchBlueprintContext,
): FetchBlueprint {
  const f = compiled.fetch;
  const unwrapped = isNonNullType(field.type) ? field.type.ofType : field.type;
  const select = f.select;
  return {
    source: config.sources.get(f.source)!,
    template: f.template,
    select,
    keySuffix: readKeySuffix(select?.join('.'), f.response),
    batch: compiled.batch && {
      template: compiled.batch.template,
      match: compiled.batch.match,
      readMatch: dottedReader(compiled.batch.matchSteps),
      max: compiled.batch.max,
      readKey: dottedReader(compiled.batch.keyRead),
      keyFromArgs: compiled.batch.keyFrom === 'args',
      shareKey: batchShareKey(f.source, compiled.batch),
      listKeys: compiled.batch.listKeys,
      keyAlone:
        !compiled.batch.listKeys &&
        !compiled.request?.body &&
        (compiled.batch.keyFrom === 'args' || f.template.placeholders.every((p) => p.kind !== 'args')),
      hasArgs:
        compiled.batch.template.placeholders.some((p) => p.kind === 'args') ||
        (compiled.batch.body?.placeholders.some((p) => p.kind === 'args') ?? false),
      select: compiled.batch.select,
      method: compiled.batch.method,
      body: compiled.batch.body,
      bodyWire: compiled.batch.body && inputWire.argsWire(compiled.batch.body, field),
    },
    cache: compiled.cache,
    method: compiled.request?.method ?? 'GET',
    body: inputWire.body(compiled.request?.body, field),
    emptyIsTrue: getNullableType(field.type) === GraphQLBoolean,
    prefixRules: (compiled.cache && prefixRules.get(f.source)) || [],
    link: f.url ? sourceBase(config.sources.get(f.source)!.url) : undefined,
    response: f.response,
    invalidates: invalidates.map((inv) => ({
      source: config.sources.get(inv.source)!,
      path: inv.path,
      template: inv.template,
      selectSuffixes: selectSuffixes.get(inv.source) ?? [''],
      prefix: inv.prefix,
    })),
    isList: isListType(unwrapped),
    isNonNull: isNonNullType(field.type),
    itemNonNull: isListType(unwrapped) && isNonNullType(unwrapped.ofType),
    sideloads: compiled.sideloads?.length ? compiled.sideloads.map(sideloadBlueprint) : undefined,
  };
}

/** A @sideload without its consumers yet (blueprint/sideloads.ts links them). */
function sideloadBlueprint(s: CompiledSideload): SideloadBlueprint {
  return {
    select: s.select,
    path: s.path,
    template: s.template,
    match: s.match,
    readMatch: dottedReader(s.matchSteps),
    when: s.when && { text: s.when.text, read: dottedReader(s.when.steps), value: s.when.value },
    consumers: [],
  };
}

/**
 * FetchBlueprint `keySuffix`: how a field reads its answer, as its memo and cache keys carry it
 * (cache/cache-key.ts memoKey): `|@response` for `response: true` (`@` is in no dotted name), then
 * `|{select}` with a `select`; '' for the whole body. Two fields with the same request and another
 * suffix share its call, never its entry.
 */
export function readKeySuffix(select: string | undefined, response: boolean): string {
  return (response ? '|@response' : '') + (select === undefined ? '' : `|${select}`);
}

/** BatchBlueprint `shareKey`: what two fields' @batch must have alike to share chunks. */
function batchShareKey(source: string, batch: CompiledBatch): string {
  const { method, template, body, select, match } = batch;
  return JSON.stringify([source, method, template.text, template.repeat, body?.text ?? null, select ?? null, match]);
}
