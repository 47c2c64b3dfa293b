import type { RequestState, RoundDeps } from './request-context.js';
import { runRound, type Claimed } from './round.js';
import { descend, Lookups, type Walk } from './walk.js';

const NONE = new Lookups();

/**
 * Runs rounds until nothing is left to look up (SPEC.md "Rounds"): each round answers its lookups,
 * then the walk goes on into what they fetched and collects the next round's lookups.
 */
export async function runRounds(first: Lookups, state: RequestState, deps: RoundDeps): Promise<void> {
  let lookups = first;
  while (lookups.length > 0) {
    state.stats.rounds++;
    state.observer?.roundStarted(state.stats.rounds, lookups.length);
    const running = runRound(lookups, state, deps);
    // The round has read its lookups: this frame does not keep them while it waits (an async
    // function's frame keeps every variable across an await; docs/performance.md).
    lookups = NONE;
    const claimed = await running;
    state.observer?.roundEnded();
    lookups = nextLookups(claimed, state);
  }
}

/** The lookups the walk finds below what a round fetched. */
function nextLookups({ entries, slots }: Claimed, state: RequestState): Lookups {
  const walk: Walk = { variables: state.variables, store: state.store, out: new Lookups(), access: state.access };
  for (let i = 0; i < entries.length; i++) {
    const outcome = slots[i]!.outcome;
    if (outcome?.kind === 'ok') descend(entries[i]!, outcome.body, walk);
  }
  return walk.out;
}
