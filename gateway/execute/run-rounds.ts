import { runRound, type RequestState, type RoundDeps } from './round.js';
import { descend, type Lookup, type Walk } from './walk.js';

/**
 * Runs rounds until nothing is left to look up (SPEC.md "Rounds"): each round answers its lookups,
 * then the walk goes on into what they fetched and collects the next round's lookups.
 */
export async function runRounds(first: Lookup[], state: RequestState, deps: RoundDeps): Promise<void> {
  let lookups = first;
  while (lookups.length > 0) {
    state.stats.rounds++;
    await runRound(lookups, state, deps);
    const walk: Walk = { variables: state.variables, store: state.store, out: [] };
    for (const l of lookups) {
      if (!l.entry.fetchBelow) continue;
      if (l.outcome?.kind === 'ok') descend(l.entry, l.outcome.body, walk);
    }
    lookups = walk.out;
  }
}
