/**
 * "Did you mean": the closest known name to a misspelt one (docs/reference.md).
 *
 * A candidate is close when its edit distance to the input is at most 2, or when one is a prefix of
 * the other (`debug` → `debug_headers`). Distance is Damerau–Levenshtein (optimal string alignment: a
 * swap of two neighbours costs 1) on lower-cased text; a difference only in case is closer than any
 * other edit, so `Batch` suggests `batch`. Ties go to the candidate listed first. Pure.
 */
export function closestName(input: string, candidates: Iterable<string>): string | undefined {
  const lower = input.toLowerCase();
  const limit = 2;
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of candidates) {
    if (candidate === input) continue;
    const other = candidate.toLowerCase();
    let score: number;
    if (other === lower) score = 0.5;
    else {
      const distance = editDistance(lower, other, limit);
      const prefix = lower.length >= 2 && (other.startsWith(lower) || lower.startsWith(other)) && other.length >= 2;
      if (distance > limit && !prefix) continue;
      score = distance <= limit ? distance : limit + 1;
    }
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

/**
 * `; did you mean "x"?` with the closest candidate, or `''` when none is close; `show` writes the
 * candidate as the user would type it (`(n) => `@${n}``).
 */
export function didYouMean(input: string, candidates: Iterable<string>, show: (name: string) => string = (n) => n): string {
  const name = closestName(input, candidates);
  return name === undefined ? '' : `; did you mean "${show(name)}"?`;
}

/** Optimal-string-alignment distance; stops early and returns `limit + 1` once it must exceed `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prevPrev[j - 2]! + 1);
      row.push(d);
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return limit + 1;
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length]!;
}
