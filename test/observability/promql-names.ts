/**
 * Extracts what a PromQL expression reads: the metric names of its selectors with the label names
 * they match on, and the label names of its grouping clauses (`by`, `without`, `on`, ...).
 * Enough for the dashboard check; not a full PromQL parser. Grafana variables ($x, ${x},
 * $__rate_interval) may appear inside strings and ranges, which are dropped first.
 */
export interface PromQLSelector {
  readonly metric: string;
  readonly labels: readonly string[];
}

export interface PromQLReads {
  readonly selectors: readonly PromQLSelector[];
  readonly groupingLabels: readonly string[];
}

const GROUPING = /\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g;
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

export function readPromQL(expr: string): PromQLReads {
  let rest = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""').replace(/\[[^\]]*\]/g, ' ');
  const groupingLabels: string[] = [];
  rest = rest.replace(GROUPING, (_all, list: string) => {
    groupingLabels.push(
      ...list
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    );
    return ' ';
  });
  const selectors: PromQLSelector[] = [];
  const token = /(?<![0-9.A-Za-z_:$])([A-Za-z_:][A-Za-z0-9_:]*)\s*(\{[^}]*\})?(\s*\()?/g;
  for (let m = token.exec(rest); m; m = token.exec(rest)) {
    const [name, matchers, call] = [m[1]!, m[2], m[3]];
    if (call !== undefined || KEYWORDS.has(name.toLowerCase())) continue;
    const labels = [...(matchers ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1]!);
    selectors.push({ metric: name, labels });
  }
  return { selectors, groupingLabels };
}
