import type { CorsConfig } from '../config/types.js';

/**
 * docs/reference.md `[cors]`: which browser origins may read the gateway's answers. Decides CORS headers only;
 * `answers.ts` puts them on every GraphQL answer and answers preflights with them.
 *
 * - No `[cors]` table: no CORS headers at all, so browsers refuse every other origin.
 * - An allowed origin (listed, or any with `["*"]`) gets `access-control-allow-origin` with its own
 *   value (never `*`, so the answer is the same with and without credentials), plus
 *   `access-control-allow-credentials: true` when `credentials = true`, and in
 *   `access-control-expose-headers` `Retry-After` (a 429's wait, which a page must be able to read)
 *   and, in debug mode, the debug headers.
 * - Every answer carries `Vary: Origin` while `[cors]` is set (also for an origin not on the list,
 *   and without an Origin header), so a shared cache never serves one origin's answer to another.
 * - An origin not on the list gets no `access-control-*` header.
 */
export class CorsPolicy {
  private readonly anyOrigin: boolean;
  private readonly origins: ReadonlySet<string>;
  private readonly preflightHeaders: Readonly<Record<string, string>>;
  private readonly exposed: string;

  /**
   * @param allowHeaders request headers a browser may send: content-type, accept and every
   *   forwarded header of every source.
   * @param exposeHeaders response headers a page may read besides `Retry-After`: the debug headers when they are on.
   */
  constructor(
    private readonly config: CorsConfig,
    allowHeaders: readonly string[],
    exposeHeaders: readonly string[],
  ) {
    this.anyOrigin = config.origins.includes('*');
    this.origins = new Set(config.origins);
    this.exposed = [...exposeHeaders, 'Retry-After'].join(', ');
    this.preflightHeaders = {
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': [...new Set(['content-type', 'accept', ...allowHeaders.map((h) => h.toLowerCase())])].join(', '),
      'access-control-max-age': String(config.maxAgeS),
    };
  }

  allows(origin: string | undefined): origin is string {
    return origin !== undefined && origin !== '' && (this.anyOrigin || this.origins.has(origin));
  }

  /** Adds the CORS headers of an answer to a request from `origin` (undefined: no Origin header). */
  addAnswerHeaders(origin: string | undefined, headers: Record<string, string>): void {
    headers['vary'] = 'Origin';
    if (!this.allows(origin)) return;
    headers['access-control-allow-origin'] = origin;
    if (this.config.credentials) headers['access-control-allow-credentials'] = 'true';
    headers['access-control-expose-headers'] = this.exposed;
  }

  /** Adds the headers of a preflight answer for an allowed origin (call only when `allows(origin)`). */
  addPreflightHeaders(origin: string, headers: Record<string, string>): void {
    headers['vary'] = 'Origin';
    headers['access-control-allow-origin'] = origin;
    if (this.config.credentials) headers['access-control-allow-credentials'] = 'true';
    Object.assign(headers, this.preflightHeaders);
  }
}
