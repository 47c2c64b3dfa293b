import { readDotted } from '../../../directives/dotted.js';
import type { FetchBlueprint } from '../../blueprint/types.js';
import type { UpstreamOutcome } from '../../upstream/outcome.js';
import { fillCaches } from './cache-tiers.js';
import type { SharedCall } from './coalesce.js';
import type { DispatchContext } from './dispatch.js';
import type { RoundDeps } from './request-context.js';
import type { MemoEntry } from './memo-entry.js';
import { keepAnswer } from './sideload.js';
import { conditionalHeaders, notModifiedJudge, revalidationResult } from './revalidate.js';

/** How one single fetch goes out: as which shared call, and with which riders. */
export interface SingleSending {
  readonly call?: SharedCall;
  readonly riders?: readonly MemoEntry[];
}
const NOT_SHARED: SingleSending = Object.freeze({});

/**
 * Sends one single fetch (as the shared call `call`, when given, which then ends with it: its keys
 * are never joinable again) and stores its answer in the caches; `riders` (entries of the same
 * request with another `select`, execute/send/select-sharing.ts) take their own part of it. Written as continuations, not an
 * async function: a round of a hundred singles to a source of 64 connections leaves most of them
 * waiting for one, and each would hold its frame meanwhile.
 */
export function sendSingle(m: MemoEntry, ctx: DispatchContext, deps: RoundDeps, how: SingleSending = NOT_SHARED): Promise<void> {
  const { call, riders } = how;
  const whole = wholeAnswer(m, riders);
  let sent: Promise<UpstreamOutcome>;
  try {
    const headers = m.forwarded.headers;
    sent = deps.dispatch(
      {
        source: m.fetch.source.name,
        coordinate: m.coordinate,
        method: m.fetch.method,
        path: m.path,
        body: m.body,
        headers: m.revalidate ? conditionalHeaders(headers, m.revalidate) : headers,
        mayResend: true,
        whole,
        validators: m.fetch.cache !== undefined && m.fetch.source.revalidate === true,
        judge: m.revalidate && notModifiedJudge(m.revalidate),
      },
      ctx,
    );
  } catch (err) {
    // As an async function would: a throw is a rejection, so a shared call is still settled below.
    sent = Promise.reject(err);
  }
  return sent.then(
    (outcome) => {
      try {
        const renewed = m.revalidate && revalidationResult(m, outcome, deps.listener);
        if (renewed === 'not_modified') for (const s of ctx.for) s.stats.notModified = (s.stats.notModified ?? 0) + 1;
        m.outcome = renewed === 'not_modified' ? outcome : readAnswer(outcome, whole, m.fetch);
        // A 304 renews a kept value, not a whole answer: nothing to sideload from.
        if (renewed !== 'not_modified') keepAnswer(m, outcome);
        if (riders) {
          for (const r of riders) {
            r.outcome = readAnswer(outcome, whole, r.fetch);
            keepAnswer(r, outcome);
          }
        }
        call?.answered(outcome);
      } finally {
        if (call) deps.inFlight.settle(call);
      }
      if (m.fetch.cache) fillCaches([m], deps);
      if (riders) fillCaches(riders, deps);
    },
    (err: unknown) => {
      if (call) deps.inFlight.settle(call);
      throw err;
    },
  );
}

/**
 * Whether the call of `m` (and its riders) asks for the whole answer `{status, headers, body}`:
 * when any of them is a `response: true` field; the others then read its body (readAnswer).
 */
export function wholeAnswer(m: MemoEntry, riders: readonly MemoEntry[] | undefined): boolean {
  if (m.fetch.response) return true;
  if (riders) for (const r of riders) if (r.fetch.response) return true;
  return false;
}

/**
 * What a field reads of a single fetch's answer, decoded `whole` (`{status, headers, body}`) or not
 * (the body): a `response: true` field the whole answer, any other its body; then its `select`.
 * Contract: a `response: true` field is never given an answer that is not whole (wholeAnswer,
 * InFlight.join), so every field that shares a call gets what it would get alone.
 */
export function readAnswer(outcome: UpstreamOutcome, whole: boolean, read: Pick<FetchBlueprint, 'response' | 'select'>): UpstreamOutcome {
  if (outcome.kind !== 'ok' || !whole || read.response) return selected(outcome, read.select);
  const body = (outcome.body as { readonly body: unknown }).body;
  return selected(outcome.validators ? { kind: 'ok', body, validators: outcome.validators } : { kind: 'ok', body }, read.select);
}

/**
 * The outcome of `m` that waited for another request's call (coalesce.ts): its leader's when they
 * read the answer alike (one memo key), else its own reading of the call's answer; undefined when
 * the call ended without one (given up, or failed before it was sent).
 */
export function joinedOutcome(m: MemoEntry): UpstreamOutcome | undefined {
  const leader = m.leader!;
  if (leader.key === m.key) return leader.outcome;
  const call = m.call;
  if (call?.answer === undefined || call.whole === undefined) return undefined;
  return readAnswer(call.answer, call.whole, m.fetch);
}

/** A single fetch's value: with `select`, that dotted path of the body (missing: null). */
export function selected(outcome: UpstreamOutcome, select: readonly string[] | undefined): UpstreamOutcome {
  if (!select || outcome.kind !== 'ok') return outcome;
  const body = readDotted(outcome.body, select) ?? null;
  return outcome.validators ? { kind: 'ok', body, validators: outcome.validators } : { kind: 'ok', body };
}
