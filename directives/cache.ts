import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';

/**
 * `@cache(ttl, stale, missing)` compiled (docs/caching.md), all in whole seconds:
 * - `ttlSeconds`: a fetched value is fresh this long after it was fetched, in every tier;
 * - `staleSeconds`: after that it is still served this long while one background fetch renews it
 *   (tiers keep the entry ttl + stale);
 * - `missingSeconds`: a key with no value (404 on a single fetch, no item in a batch answer) is
 *   remembered this long, so it is not asked again.
 */
export interface CompiledCache {
  readonly ttlSeconds: number;
  readonly staleSeconds: number;
  readonly missingSeconds: number;
}

/** The longest of each duration: memcached reads expiry times above 30 days as Unix timestamps. */
export const MAX_CACHE_SECONDS = 60 * 60 * 24 * 30;

export function compileCache(use: DirectiveUse, hasFetch: boolean, ctx: FieldContext, problems: Problem[]): CompiledCache | undefined {
  const before = problems.length;
  const seconds = (name: 'ttl' | 'stale' | 'missing'): number => {
    const raw = use.args[name];
    const value = raw === undefined || raw === null ? 0 : Number(raw);
    if (!(value >= 0)) {
      problems.push({ message: `@cache on ${ctx.coordinate}: ${name} must be 0 or more seconds, found ${String(raw)}`, node: use.node });
    } else if (value > MAX_CACHE_SECONDS) {
      problems.push({
        message: `@cache on ${ctx.coordinate}: ${name} must be at most ${MAX_CACHE_SECONDS} seconds (30 days), found ${value}`,
        node: use.node,
      });
    }
    return value;
  };
  const ttlSeconds = seconds('ttl');
  const staleSeconds = seconds('stale');
  const missingSeconds = seconds('missing');
  if (staleSeconds > 0 && ttlSeconds === 0) {
    problems.push({
      message: `@cache on ${ctx.coordinate}: stale needs a ttl above 0 (an entry is served stale only after it was fresh); set ttl or drop stale`,
      node: use.node,
    });
  }
  if (!hasFetch)
    problems.push({ message: `@cache on ${ctx.coordinate} needs a @fetch beside it: only fetched values are cached`, node: use.node });
  return problems.length > before ? undefined : { ttlSeconds, staleSeconds, missingSeconds };
}
