import { NO_KEY, resolvePathTemplate } from '../../../directives/template.js';
import type { FetchBlueprint } from '../../blueprint/types.js';
import type { PlanEntry, PlanSelection } from '../../plan/types.js';
import { NULL_BODY, TRUE_BODY, notFoundAsHttpError, type UpstreamOutcome } from '../../upstream/outcome.js';
import { renderFetchBody } from '../send/body.js';
import { refusedOutcome, resolveFetchPath } from '../send/fetch-path.js';
import { renewGeneration } from '../send/generations.js';
import { argsOf, type RequestState, type RoundDeps } from '../send/request-context.js';
import { NULL_SLOT } from './round.js';
import { selected } from '../send/single.js';
import { runRounds } from './run-rounds.js';
import type { HeaderForwarder } from '../send/forwarded-headers.js';
import type { OutcomeSlot } from '../send/memo-entry.js';
import { memoKey } from '../../cache/cache-key.js';
import { collectLookups, descend, Lookups, type Walk } from './walk.js';

/** What a mutation needs beyond a round's dependencies. */
export interface MutationDeps extends RoundDeps {
  /** The forwarded headers of a caller that sends none: whose entries @invalidate also deletes. */
  readonly anonymous: HeaderForwarder;
}

const NO_PARENT: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * Runs the root fields of a mutation operation (docs/mutations.md; GraphQL spec §6.2.2, "Normal
 * and Serial Execution"): one after another in document order. For each field:
 * 1. its one request is sent: never deduped (two identical fields send twice), never looked up in
 *    or stored to a cache tier, never coalesced, never re-sent (upstream/retry-policy.ts); it
 *    counts as a round and a subrequest;
 * 2. after a 2xx, every `@invalidate` entry is deleted from L2 and memcached (awaited);
 * 3. the selections under its result run in rounds as a query's do (batched, deduped, cached),
 *    with a new request memo, so reads after a write never reuse what was read before it.
 * Fields merged under one response key (same field and arguments, by validation) are one field.
 * A non-null field that fails (or answers nothing) ends the operation: `data` is null, and the
 * fields after it are not sent, as graphql-js's serial execution would not run them.
 */
export async function runMutationFields(selection: PlanSelection, root: object, state: RequestState, deps: MutationDeps): Promise<void> {
  const byResponseKey = new Map<string, PlanEntry[]>();
  for (const entry of selection.entries) {
    const same = byResponseKey.get(entry.responseKey);
    if (same) same.push(entry);
    else byResponseKey.set(entry.responseKey, [entry]);
  }
  let stopped = false;
  for (const entries of byResponseKey.values()) {
    const found = new Lookups();
    const rootWalk: Walk = { variables: state.variables, store: state.store, out: found, access: state.access };
    collectLookups({ entries }, root, entries[0]!.blueprint.typeName, rootWalk);
    if (stopped) {
      // Not run; `data` is null anyway. A value keeps the shaper (which may still visit them) quiet.
      claimAll(found, state, NULL_SLOT);
      continue;
    }
    // The field's own lookups (of the root) share its one request; the others lie below namespaces.
    const own = new Lookups();
    const below = new Lookups();
    for (let i = 0; i < found.length; i++) (found.parents[i] === root ? own : below).push(found.entries[i]!, found.parents[i]!);
    state.memo.clear();
    const first = own.entries[0];
    if (first) {
      const slot: OutcomeSlot = { outcome: undefined };
      claimAll(own, state, slot);
      const { outcome, args, sent } = await sendMutation(first, state, deps);
      slot.outcome = outcome;
      if (outcome.kind === 'ok') {
        // Only a request that was sent and answered 2xx invalidates (a null path placeholder sends nothing).
        if (sent) await invalidate(first.blueprint.fetch!, { args, result: outcome.body }, state, deps);
        const walk: Walk = { variables: state.variables, store: state.store, out: below, access: state.access };
        for (const entry of own.entries) if (entry.fetchBelow) descend(entry, outcome.body, walk);
      }
      // A non-null field without a value nulls the whole `data` (GraphQL spec §6.4.4): the fields after it do not run.
      stopped = first.blueprint.fetch!.isNonNull && (outcome.kind !== 'ok' || outcome.body === null);
      if (stopped) {
        claimAll(below, state, NULL_SLOT);
        continue;
      }
    }
    await runRounds(below, state, deps);
  }
}

/** Claims every lookup in the store for `slot` (a (parent, field) claimed before keeps its slot). */
function claimAll(lookups: Lookups, state: RequestState, slot: OutcomeSlot): void {
  for (let i = 0; i < lookups.length; i++) state.store.claim(lookups.parents[i]!, lookups.entries[i]!.fieldNode, slot);
}

/** Sends a mutation field's one request; a 404 is an HTTP error here, an empty answer null (true for Boolean). */
async function sendMutation(
  entry: PlanEntry,
  state: RequestState,
  deps: MutationDeps,
): Promise<{ outcome: UpstreamOutcome; args: Readonly<Record<string, unknown>>; sent: boolean }> {
  const fetch = entry.blueprint.fetch!;
  const args = argsOf(entry, state);
  const auth = state.access?.claims;
  const path = resolveFetchPath(fetch, { parent: NO_PARENT, args, keys: undefined, key: NO_KEY, auth });
  if (path === null) return { outcome: NULL_BODY, args, sent: false };
  if (typeof path !== 'string') return { outcome: refusedOutcome(path, entry.blueprint.coordinate, fetch.source.name), args, sent: false };
  const forwarded = state.forwarder.for(fetch.source);
  if (forwarded.refused) return { outcome: forwarded.refused, args, sent: false };
  state.budget.reserve(1);
  state.stats.rounds++;
  const source = fetch.source.name;
  const answer = await deps.dispatch(
    {
      source,
      coordinate: entry.blueprint.coordinate,
      method: fetch.method,
      path,
      body: fetch.body && renderFetchBody(fetch.body, { parent: NO_PARENT, args, auth }),
      headers: forwarded.headers,
      mayResend: false,
      whole: fetch.response,
    },
    { for: [state], signal: state.signal, deadlines: undefined },
  );
  if (answer.kind === 'not-found') return { outcome: notFoundAsHttpError(source, { method: fetch.method, path }), args, sent: true };
  if (answer.kind === 'ok' && answer.body === null && fetch.emptyIsTrue) return { outcome: TRUE_BODY, args, sent: true };
  return { outcome: selected(answer, fetch.select), args, sent: true };
}

/**
 * Deletes the entries a succeeded mutation names (docs/mutations.md): `{source}:{resolved path}`
 * from L2 and memcached, for a source with forward_headers both the caller's entry and the entry of
 * a caller without headers; a `prefix: true` path renews its prefix's generation instead, which
 * retires every entry under it for every caller (execute/send/generations.ts). A path whose placeholder is null names no entry. memcached failures
 * are counted by the tier and never fail the mutation.
 */
async function invalidate(
  fetch: FetchBlueprint,
  scope: { readonly args: Readonly<Record<string, unknown>>; readonly result: unknown },
  state: RequestState,
  deps: MutationDeps,
): Promise<void> {
  if (fetch.invalidates.length === 0) return;
  const keys = new Set<string>();
  const renewals: Array<Promise<void>> = [];
  for (const inv of fetch.invalidates) {
    const path = resolvePathTemplate(inv.template, { parent: scope.result, args: scope.args, keys: undefined, key: NO_KEY });
    if (typeof path !== 'string') continue; // null or refused: names no entry
    if (inv.prefix) {
      renewals.push(renewGeneration(inv.source.name, path, deps));
      continue;
    }
    const callers = [state.forwarder.for(inv.source).keySuffix, deps.anonymous.for(inv.source).keySuffix];
    const request = { source: inv.source.name, method: 'GET', path, body: undefined };
    for (const read of inv.selectSuffixes) for (const caller of callers) keys.add(memoKey(request, read, caller));
  }
  for (const key of keys) deps.l2.delete(key);
  if (deps.memcached && keys.size > 0) await deps.memcached.deleteMany([...keys]);
  await Promise.all(renewals);
}
