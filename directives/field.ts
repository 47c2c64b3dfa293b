import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';
import { compileFrom } from './from.js';
import { compileFetch, type CompiledFetch } from './fetch.js';
import { compileBatch, type CompiledBatch } from './batch.js';
import { compileCache, type CompiledCache } from './cache.js';
import { checkRequestNeighbours, compileRequest, type CompiledRequest } from './request.js';

/** What the directives of one field compile to. */
export interface CompiledFieldDirectives {
  /** The JSON steps a plain field reads from its parent (its @from key or path, else its own name). */
  readonly read: readonly string[];
  readonly fetch: CompiledFetch | undefined;
  readonly batch: CompiledBatch | undefined;
  readonly cache: CompiledCache | undefined;
  /** The @fetch's method and body (set whenever `fetch` is). */
  readonly request: CompiledRequest | undefined;
}

/** Compiles the gateway directives found on one field, pushing every misuse onto `problems`. */
export function compileFieldDirectives(
  fieldName: string,
  uses: ReadonlyMap<string, DirectiveUse>,
  ctx: FieldContext,
  problems: Problem[],
): CompiledFieldDirectives {
  const fromUse = uses.get('from');
  const fetchUse = uses.get('fetch');
  const batchUse = uses.get('batch');
  const cacheUse = uses.get('cache');
  let read: readonly string[] = [fieldName];
  if (fromUse) {
    if (fetchUse) {
      problems.push({
        message: `@from on ${ctx.coordinate} cannot stand beside @fetch: a field either reads its parent's key or fetches`,
        node: fromUse.node,
      });
    }
    read = compileFrom(fromUse, ctx, problems) ?? read;
  }
  const fetch = fetchUse ? compileFetch(fetchUse, ctx, problems) : undefined;
  // A Mutation field's @batch is refused as a whole (checkRequestNeighbours), not checked further.
  const batch =
    batchUse && !ctx.isMutation ? compileBatch(batchUse, { fetch, hasFetch: fetchUse !== undefined }, ctx, problems) : undefined;
  if (batchUse && (fetch?.url || fetch?.response)) {
    problems.push({
      message: `@batch on ${ctx.coordinate}: a @fetch with ${fetch.url ? 'url:' : 'response: true'} is one request per value and is never batched; remove @batch`,
      node: batchUse.node,
    });
  }
  const cache = cacheUse ? compileCache(cacheUse, fetchUse !== undefined, ctx, problems) : undefined;
  const request = fetchUse ? compileRequest(fetchUse, ctx, problems) : undefined;
  checkRequestNeighbours(request, { batch: batchUse, cache: cacheUse }, ctx, problems);
  return { read, fetch, batch, cache, request };
}
