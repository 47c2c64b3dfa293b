import { createHash } from 'node:crypto';
import type { FetchBlueprint } from '../blueprint/types.js';
import type { SourceConfig } from '../config/types.js';
import type { FieldOutcome, UpstreamOutcome } from '../upstream/outcome.js';
import { NO_HEADERS } from '../upstream/client.js';
import type { SharedCall } from './coalesce.js';

/**
 * One subrequest-to-be of a request, identified by its memo key `{source}:{path}` (plus a hash of
 * the forwarded header values when the source forwards any). Identical lookups of a request share
 * one MemoEntry, whichever field, alias, parent or round asked: that is the dedupe of SPEC.md.
 */
export interface MemoEntry {
  readonly key: string;
  readonly coordinate: string;
  readonly fetch: FetchBlueprint;
  /** The resolved single-fetch path. */
  readonly path: string;
  /** The string form of the batch key, for @batch fields. */
  readonly batchKey: string | undefined;
  /** The batch key as the parent's JSON holds it (a number stays a number): what a POST batch body sends. */
  readonly batchKeyValue: unknown;
  /** The field's argument values, for `{args.*}` in a batch path. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The rendered JSON body of a non-GET read (`@fetch(method:, body:)`); part of the memo key. */
  readonly body: string | undefined;
  outcome: UpstreamOutcome | undefined;
  /** The shared call this entry leads or waits for (coalescing sources only; execute/coalesce.ts). */
  call: SharedCall | undefined;
  /** Set when the entry waits for another request's call: the entry whose outcome it takes. */
  leader: MemoEntry | undefined;
}

/**
 * The memo and cache key of a single fetch: `{source}:{path}` and the forwarded-headers suffix
 * (SPEC.md "@cache"). A read with another method than GET (never cached) is keyed by its method
 * and body too, so only identical requests are deduped. @invalidate builds the keys it deletes
 * here as well, so they are exactly the keys reads fill.
 */
export function lookupKey(source: string, path: string, keySuffix: string): string {
  return `${source}:${path}${keySuffix}`;
}

export function writeLookupKey(
  request: { readonly source: string; readonly method: string; readonly path: string; readonly body: string | undefined },
  keySuffix: string,
): string {
  return `${request.source}:${request.method} ${request.path} ${request.body ?? ''}${keySuffix}`;
}

/** Forwarded headers of one source for this request, and the suffix that keeps cache keys apart. */
export interface ForwardedHeaders {
  readonly headers: Readonly<Record<string, string>>;
  /** '' for a source without forward_headers; otherwise `#h=<hash of the values>`. */
  readonly keySuffix: string;
}

/**
 * Where a claimed lookup's outcome is once it is answered: its memo entry (shared by every lookup it
 * answers), or a slot of its own (a list key's assembled value, a mutation field's answer).
 */
export interface OutcomeSlot {
  outcome: FieldOutcome | undefined;
}

export interface OperationStats {
  rounds: number;
  subrequests: number;
  batches: number;
}

/** Reads the forwarded headers of each source once per request. */
export class HeaderForwarder {
  private readonly cache = new Map<string, ForwardedHeaders>();
  private static readonly NONE: ForwardedHeaders = { headers: NO_HEADERS, keySuffix: '' };

  constructor(private readonly header: (name: string) => string | null | undefined) {}

  for(source: SourceConfig): ForwardedHeaders {
    if (source.forwardHeaders.length === 0) return HeaderForwarder.NONE;
    let f = this.cache.get(source.name);
    if (!f) {
      const headers: Record<string, string> = {};
      const pairs: Array<[string, string | null]> = [];
      for (const name of source.forwardHeaders) {
        const v = this.header(name);
        pairs.push([name, v ?? null]);
        if (v !== null && v !== undefined) headers[name] = v;
      }
      const hash = createHash('sha256').update(JSON.stringify(pairs)).digest('base64url').slice(0, 32);
      f = { headers, keySuffix: `#h=${hash}` };
      this.cache.set(source.name, f);
    }
    return f;
  }
}
