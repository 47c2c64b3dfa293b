import { runRound, type RequestState, type RoundDeps } from './round.js';
import { descend, Lookups, type Walk } from './walk.js';

/**
 * Runs rounds until nothing is left to look up (SPEC.md "Rounds"): each round answers its lookups,
 * then the walk goes on into what they fetched and collects the next round's lookups.
 */
export async function runRounds(first: Lookups, state: RequestState, deps: RoundDeps): Promise<void> {
  let lookups = first;
  while (lookups.length > 0) {
    state.stats.rounds++;
    const { entries, slots } = await runRound(lookups, state, deps);
    const walk: Walk = { variables: state.variables, store: state.store, out: new Lookups() };
    for (let i = 0; i < entries.length; i++) {
      const outcome = slots[i]!.outcome;
      if (outcome?.kind === 'ok') descend(entries[i]!, outcome.body, walk);
    }
    lookups = walk.out;
  }
}
