/**
 * `@invalidate(prefix: true)` (docs/mutations.md, *new*): the path template of a prefix, as a
 * rule that finds, in any resolved path of its source, the one prefix of that shape it starts
 * with. A path starts with a prefix when its first segments are the prefix's segments (whole
 * segments: `/issues/1` is a prefix of `/issues/1/comments?page=2`, not of `/issues/10`).
 * Each placeholder of the template stands for the text of one segment (values are URL-encoded,
 * so they hold no `/`). The cache keys an entry's generation by the prefixes its path has
 * (cache/generations via execute/send/cache-tiers.ts), so invalidating one prefix is one write.
 * Pure: no I/O.
 */
import type { PathTemplate, TemplatePart } from './template.js';

export interface PrefixRule {
  /** One pattern per segment of the prefix, anchored. */
  readonly segments: readonly RegExp[];
}

const SPECIAL = /[.*+?^${}()|[\]\\]/g;

/** The rule of a prefix template (its path part; a prefix has no query and no optional part). */
export function compilePrefixRule(template: PathTemplate): PrefixRule {
  const patterns: string[] = [];
  let current = '';
  const add = (part: TemplatePart): void => {
    if (part.kind === 'optional') return; // refused by gqlgw check
    if (part.kind !== 'text') {
      current += '[^/]*';
      return;
    }
    const pieces = part.text.split('/');
    current += pieces[0]!.replace(SPECIAL, '\\$&');
    for (let i = 1; i < pieces.length; i++) {
      patterns.push(current);
      current = pieces[i]!.replace(SPECIAL, '\\$&');
    }
  };
  for (const part of template.path) add(part);
  patterns.push(current);
  // The text before the leading "/" is no segment, nor is what follows a trailing "/".
  const kept = patterns.slice(1);
  if (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  return { segments: kept.map((p) => new RegExp(`^${p}$`)) };
}

/** The prefixes of `path` (its part before `?`) that `rules` find, in rule order; empty when none. */
export function prefixesOf(path: string, rules: readonly PrefixRule[]): string[] {
  const q = path.indexOf('?');
  const segments = (q < 0 ? path : path.slice(0, q)).split('/');
  const out: string[] = [];
  for (const rule of rules) {
    const n = rule.segments.length;
    if (n === 0 || segments.length - 1 < n) continue;
    let ok = true;
    for (let i = 0; i < n && ok; i++) ok = rule.segments[i]!.test(segments[i + 1]!);
    if (ok) out.push(segments.slice(0, n + 1).join('/'));
  }
  return out;
}
