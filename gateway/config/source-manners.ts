import type { SourceConfig, SourceRateLimit } from './types.js';
import type { TableReader } from './table-reader.js';

/**
 * `[sources.X]` rate_limit, retry_after_max_ms and expose_errors (docs/reference.md, *new*): how
 * the gateway keeps to a source's quota and what of its error bodies a caller may read.
 */
export function sourceManners(s: TableReader, source: string): Pick<SourceConfig, 'rateLimit' | 'retryAfterMaxMs' | 'exposeErrors'> {
  const exposeErrors = s.strings('expose_errors', []);
  for (const path of exposeErrors) {
    if (path === '' || path.split('.').some((step) => step === ''))
      s.problem(
        'expose_errors',
        `sources.${source}.expose_errors entry "${path}" must be a dotted path such as "details.status.0.description"`,
      );
  }
  return {
    rateLimit: rateLimitOf(s, source),
    retryAfterMaxMs: s.int('retry_after_max_ms', 0, 0, 60_000),
    exposeErrors: Object.freeze([...exposeErrors]),
  };
}

/** `rate_limit = { requests = 10, per_s = 1 }`; undefined when absent or wrong (then a problem is reported). */
function rateLimitOf(s: TableReader, source: string): SourceRateLimit | undefined {
  const t = s.table_('rate_limit');
  if (!t) return undefined;
  const shown = `sources.${source}.rate_limit`;
  const hasRequests = t.has('requests');
  const hasPerS = t.has('per_s');
  if (!hasRequests || !hasPerS) t.problem(undefined, `${shown} needs both requests and per_s, e.g. { requests = 700, per_s = 60 }`);
  const requests = t.int('requests', 1, 1, 1_000_000);
  const perS = t.number('per_s', 1, 0.001, 86_400);
  t.finish();
  return Object.freeze({ requests, perS });
}
