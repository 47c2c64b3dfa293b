/**
 * `@fetch(url: "{parent.commentsUrl}")` (docs/reference.md, *new*): a URL taken from data is
 * fetched only when it is one of the source's own URLs. Admitted, it is the path after the source's
 * base (its memo and cache key, what the client appends to the base again); refused, nothing is
 * sent. A URL is admitted when it:
 * - is printable ASCII without spaces, backslashes, userinfo or a fragment;
 * - has the source's scheme, host and port (default ports compared as the WHATWG URL parser does);
 * - starts with the source's base path as whole segments (`/api/v3` admits `/api/v3` and
 *   `/api/v3/…`, never `/api/v3evil`);
 * - holds no dot-segment (`.`, `..`, or `%2e` forms of them) and no empty segment in its path.
 * The same rule decides where a redirect's `Location` may lead (upstream/client.ts).
 * Pure: no I/O.
 */
import type { PathRefusal } from './template.js';

/** Where a source lives: its origin (`http://127.0.0.1:4001`) and base path (`/api/v3`, or ''). */
export interface SourceBase {
  readonly origin: string;
  readonly basePath: string;
}

export const REFUSED_URL: PathRefusal = Object.freeze({ from: 'url' });

const SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]+)(\/[^?#]*)?(\?[^#]*)?$/;
const PRINTABLE = /^[\x21-\x7e]+$/;
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** True when a path segment is `.` or `..`, plain or percent-encoded (`%2e`, `%2E.`…). */
export function isDotSegment(segment: string): boolean {
  return DOT_SEGMENT.test(segment);
}

/** The base of a source URL as gateway.toml writes it (no trailing slash). */
export function sourceBase(url: string): SourceBase {
  const parsed = new URL(url);
  return { origin: parsed.origin, basePath: parsed.pathname.replace(/\/+$/, '') };
}

/**
 * The path after the source's base of the URL `value`, or null when `value` is null or missing,
 * or REFUSED_URL when it is anything but an admitted URL of `base` (see the module comment).
 */
export function pathOfUrl(value: unknown, base: SourceBase): string | null | PathRefusal {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string' || value.length > 8192 || !PRINTABLE.test(value) || value.includes('\\')) return REFUSED_URL;
  const shape = SHAPE.exec(value);
  if (!shape || shape[2]!.includes('@')) return REFUSED_URL;
  let origin: string;
  try {
    origin = new URL(shape[1]! + shape[2]!).origin;
  } catch {
    return REFUSED_URL;
  }
  if (origin !== base.origin) return REFUSED_URL;
  const path = shape[3] ?? '/';
  const { basePath } = base;
  if (basePath !== '' && path !== basePath && !path.startsWith(basePath + '/')) return REFUSED_URL;
  const rest = path.slice(basePath.length) || '/';
  const segments = rest.split('/');
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i]!;
    if (isDotSegment(segment)) return REFUSED_URL;
    if (segment === '' && i < segments.length - 1) return REFUSED_URL;
  }
  return rest + (shape[4] ?? '');
}
