import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';

export interface CompiledCache {
  readonly ttlSeconds: number;
}

/** `@cache(ttl)`: values of this field's fetches are kept `ttl` seconds in L2 and memcached. */
export function compileCache(
  use: DirectiveUse,
  hasFetch: boolean,
  ctx: FieldContext,
  problems: Problem[],
): CompiledCache | undefined {
  const ttl = Number(use.args.ttl);
  const before = problems.length;
  if (!(ttl >= 0)) problems.push({ message: `@cache on ${ctx.coordinate}: ttl must be 0 or more seconds, found ${ttl}`, node: use.node });
  if (!hasFetch) problems.push({ message: `@cache on ${ctx.coordinate} needs a @fetch beside it: only fetched values are cached`, node: use.node });
  return problems.length > before ? undefined : { ttlSeconds: ttl };
}
