import type { ASTNode } from 'graphql';
import type { Problem } from './problem.js';
import { didYouMean } from './suggest.js';

/** Whether `source` is a configured source; otherwise a problem naming the known ones, with "did you mean". */
export function checkSourceName(
  at: string,
  use: { readonly source: string; readonly node: ASTNode },
  sourceNames: readonly string[],
  problems: Problem[],
): boolean {
  if (sourceNames.includes(use.source)) return true;
  const known = sourceNames.length ? sourceNames.join(', ') : 'none are configured';
  problems.push({
    message: `${at} names unknown source "${use.source}"${didYouMean(use.source, sourceNames)} (sources: ${known})`,
    node: use.node,
  });
  return false;
}
