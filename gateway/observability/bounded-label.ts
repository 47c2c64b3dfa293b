/**
 * A label value guard that keeps a label's cardinality bounded whatever the caller passes.
 *
 * Contract: `value(raw)` returns `raw` when it has the accepted shape and is one of the first `cap`
 * distinct accepted values seen; every other input (wrong shape, or a new value once `cap` values
 * have been seen) returns {@link OTHER_LABEL}. So one label never has more than `cap + 1` values,
 * and a value that could be an id or a URL (a shape the caller rejects) never reaches Prometheus.
 */
export const OTHER_LABEL = 'other';

export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(
    private readonly cap: number,
    private readonly accepts: (raw: string) => boolean,
  ) {}

  value(raw: string): string {
    if (this.seen.has(raw)) return raw;
    if (this.seen.size >= this.cap || !this.accepts(raw)) return OTHER_LABEL;
    this.seen.add(raw);
    return raw;
  }
}

/** A GraphQL Name (spec §2.1.9) of at most 100 characters: operation names. */
export function isGraphQLName(raw: string): boolean {
  return /^[_A-Za-z][_0-9A-Za-z]{0,99}$/.test(raw);
}

/**
 * A schema coordinate `Type.field` (both GraphQL Names), e.g. `Post.author`, or a type's lookup
 * `Type.@lookup(key)` with its key's field names (docs/federation.md), e.g.
 * `ProductResearch.@lookup(study { caseNumber })`.
 */
export function isFieldCoordinate(raw: string): boolean {
  return (
    raw.length <= 201 &&
    (/^[_A-Za-z][_0-9A-Za-z]*\.[_A-Za-z][_0-9A-Za-z]*$/.test(raw) || /^[_A-Za-z][_0-9A-Za-z]*\.@lookup\([_0-9A-Za-z{} ]+\)$/.test(raw))
  );
}

/**
 * A gateway.toml source name as a label: letters, digits, `_`, `-`, `.`, at most 64 characters,
 * and not digits only. No `/` or `:`, so never a URL.
 */
export function isSourceName(raw: string): boolean {
  return /^[A-Za-z0-9_.-]{1,64}$/.test(raw) && !/^[0-9]+$/.test(raw);
}

/** A request error code (`FIELD_LIMIT`) or `ok`: upper-case words joined by `_`, at most 64 characters. */
export function isErrorCode(raw: string): boolean {
  return raw === 'ok' || /^[A-Z][A-Z0-9_]{0,63}$/.test(raw);
}
