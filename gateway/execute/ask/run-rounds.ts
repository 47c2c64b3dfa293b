import type { ElementsOutcome } from '../../upstream/outcome.js';
import type { RequestState, RoundDeps } from '../send/request-context.js';
import { runRound, type Claimed } from './round.js';
import { INTERPRETED_WALKER, Lookups, type Walk, type Walker } from './walk.js';
import { mergeCompletion, type PendingCompletion } from './completion.js';

const NONE = new Lookups();

/**
 * Runs rounds until nothing is left to look up (docs/caching.md): each round answers its lookups,
 * then the walk goes on into what they fetched and collects the next round's lookups (`walker`: the
 * walk compiled for the plan, or the interpreter).
 */
export async function runRounds(first: Lookups, state: RequestState, deps: RoundDeps, walker: Walker = INTERPRETED_WALKER): Promise<void> {
  let lookups = first;
  while (lookups.length > 0) {
    state.stats.rounds++;
    state.observer?.roundStarted(state.stats.rounds, lookups.length);
    const { completions, after } = lookups;
    const running = runRound(lookups, state, deps);
    // The round has read its lookups: this frame does not keep them while it waits (an async
    // function's frame keeps every variable across an await; docs/performance.md).
    lookups = NONE;
    const claimed = await running;
    state.observer?.roundEnded();
    state.roundEnds?.push(performance.now());
    const plain = completions === undefined && after === undefined; // no partial objects, no `_entities`
    if (plain && claimed.entries.length === 0) lookups = NONE;
    else lookups = nextLookups(claimed, state, plain ? PLAIN : { completions, after, debugMode: deps.debugMode === true }, walker);
  }
}

/** A list-key field's items as the walk goes into them: each found element's value, null for the others. */
function elementValues(outcome: ElementsOutcome): unknown[] {
  return outcome.elements.map((o) => (o?.kind === 'ok' ? o.body : null));
}

/** What a round's walk left to do once the round has answered: partial objects to merge, `_entities` to resume. */
interface AfterRound {
  readonly completions: readonly PendingCompletion[] | undefined;
  readonly after: Lookups['after'];
  readonly debugMode: boolean;
}

/** A round that left nothing but its claims (most rounds): no object per round. */
const PLAIN: AfterRound = Object.freeze({ completions: undefined, after: undefined, debugMode: false });

/** The lookups the walk finds below what a round fetched, and below the objects it completed. */
function nextLookups({ entries, slots }: Claimed, state: RequestState, done: AfterRound, walker: Walker): Lookups {
  const walk: Walk = { variables: state.variables, store: state.store, out: new Lookups(), access: state.access };
  for (let i = 0; i < entries.length; i++) {
    const outcome = slots[i]!.outcome;
    if (outcome?.kind === 'ok') walker.descend(entries[i]!, outcome.body, walk);
    else if (outcome?.kind === 'elements') walker.descend(entries[i]!, elementValues(outcome), walk);
  }
  for (const pending of done.completions ?? []) {
    const { store } = state;
    let merged = store.completedOf(pending.parent);
    if (merged === undefined) {
      merged = mergeCompletion(pending, store.get(pending.parent, pending.entry.fieldNode), done.debugMode);
      store.setCompleted(pending.parent, merged);
    }
    walker.collect(pending.selection, merged, pending.completion.typeName, walk);
  }
  for (const task of done.after ?? []) task.resume(walk);
  return walk.out;
}
