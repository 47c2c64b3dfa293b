import type { ClaimHeader, SourceConfig } from '../../config/types.js';
import { CODE } from '../../errors.js';
import { readDotted } from '../../../directives/dotted.js';
import { NO_HEADERS } from '../../upstream/client.js';
import { forwardedKeySuffix } from '../../cache/cache-key.js';
import { failure, type UpstreamOutcome } from '../../upstream/outcome.js';

/** Forwarded headers of one source for this request, and the suffix that keeps cache keys apart. */
export interface ForwardedHeaders {
  readonly headers: Readonly<Record<string, string>>;
  /** '' for a source without forward_headers; otherwise `#h=<hash of the values>`. */
  readonly keySuffix: string;
  /**
   * Set when a `{auth.…}` header's value is no HTTP header value (a character outside visible
   * ASCII, space and tab: an emoji, CR, LF): the BAD_USER_INPUT every lookup of the source is
   * instead of a request, naming the header. Nothing is sent.
   */
  readonly refused?: UpstreamOutcome;
}

/**
 * The headers a request sends to each source beyond the fixed ones, read once per request, and the
 * partition they put its lookups in. This is the one place that decides which callers may share a
 * lookup: the memo key, L2 and memcached keys, coalescing and batch groups all take `keySuffix`.
 * - `forward_headers`: the caller's value; for a name also in the source's `headers` (a fallback
 *   token, docs/reference.md) the fixed value when the caller sent none;
 * - `headers` values that read `{auth.CLAIM}`: rendered from the verified token's claims (left out
 *   when a claim is missing; `refused` when a claim's value cannot be a header value).
 * The suffix hashes the value actually sent of each such header, so callers sending the same values
 * share entries and no entry is ever served to a caller who would have sent another value.
 */
export class HeaderForwarder {
  /** Made for the first source that forwards headers: most requests meet none. */
  private cache: Map<string, ForwardedHeaders> | undefined;
  private static readonly NONE: ForwardedHeaders = { headers: NO_HEADERS, keySuffix: '' };

  constructor(
    private readonly header: (name: string) => string | null | undefined,
    private readonly claims?: Readonly<Record<string, unknown>>,
  ) {}

  for(source: SourceConfig): ForwardedHeaders {
    if (!source.perCaller) return HeaderForwarder.NONE;
    const cache = (this.cache ??= new Map());
    let f = cache.get(source.name);
    if (!f) {
      const headers: Record<string, string> = {};
      const pairs: Array<[string, string | null]> = [];
      for (const name of source.forwardHeaders) {
        const v = this.header(name);
        // A fallback's fixed value goes out with the source's fixed headers (upstream/client.ts).
        pairs.push([name, v ?? source.headers?.[name] ?? null]);
        if (v !== null && v !== undefined) headers[name] = v;
      }
      let refused: UpstreamOutcome | undefined;
      for (const claimHeader of source.claimHeaders ?? []) {
        const v = renderClaimHeader(claimHeader, this.claims);
        if (v !== null && !HEADER_VALUE.test(v)) refused ??= unsendable(claimHeader.name, source.name);
        pairs.push([claimHeader.name, v]);
        if (v !== null) headers[claimHeader.name] = v;
      }
      f = { headers, keySuffix: forwardedKeySuffix(pairs), refused };
      cache.set(source.name, f);
    }
    return f;
  }
}

/** A `{auth.*}` header's value for these claims; null when a claim it reads is missing or not a scalar. */
function renderClaimHeader(header: ClaimHeader, claims: Readonly<Record<string, unknown>> | undefined): string | null {
  let out = '';
  for (const part of header.parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const v = readDotted(claims, part);
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return null;
    out += String(v);
  }
  return out;
}

/** What an HTTP header value may hold here: visible ASCII, space and tab (RFC 9110 field-value without obs-text). */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

function unsendable(header: string, source: string): UpstreamOutcome {
  return failure({
    code: CODE.BAD_USER_INPUT,
    source,
    message: `the token's claim for header "${header}" of source "${source}" holds a character an HTTP header cannot carry (only visible ASCII, space and tab); nothing was sent`,
    detail: `header ${header}: value refused`,
  });
}
