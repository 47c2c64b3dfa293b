import { Canceller, type Abortable } from '../upstream/canceller.js';
import type { SlicedRelease } from './sliced-release.js';
import type { UpstreamOutcome } from '../upstream/outcome.js';

/**
 * Coalescing across requests (docs/caching.md): the GET subrequests and @batch
 * keys in flight in this process, so that another GraphQL request needing the same one waits for
 * its answer instead of asking again.
 *
 * Contract:
 * - Identity is the memo key (execute/memo-entry.ts): source, resolved single-fetch path, how the
 *   field reads the answer (`select`, `response`), and a hash of the forwarded header values.
 *   Callers with different forwarded values therefore never share a call. A @batch key and a single
 *   fetch of the same key are the same thing. A single fetch also joins a single-fetch call of its
 *   request key (the memo key without its read) that another field reads another way, and reads its
 *   own part of that call's answer, never the leader's value (execute/single.ts joinedOutcome);
 *   a `response: true` field joins only a call that asks for the whole answer.
 * - A SharedCall is one HTTP call (a single fetch or a @batch chunk, with its re-sends and split
 *   halves) whose memo entries lead their keys. It belongs to no caller: its deadline is the
 *   source's, and its AbortSignal fires only when every round waiting for it has left (its leader's
 *   included), so one caller giving up never fails the others. Once aborted or settled, its keys are
 *   no longer joinable.
 * - `done` never rejects; a failed call gives every waiter its error outcome (and is never cached,
 *   see cache-tiers.ts). Only sources with `coalesce = true` lead or join; mutations never do.
 * - Background refreshes of stale entries (`refreshing`) run at most once per key per process.
 */
/**
 * What coalescing reads and writes of a lookup's memo entry (execute/memo-entry.ts MemoEntry is one):
 * its key, the entry that leads the call for that key, and the call it waits for. Declared here
 * so that this module needs nothing of memo-entry.ts.
 */
export interface CallMember {
  readonly key: string;
  readonly requestKey: string;
  leader: CallMember | undefined;
  call: SharedCall | undefined;
}

export class InFlight {
  /**
   * Key → the memo entry that leads the call answering it. Replaced by a new map whenever it
   * empties: a process-long map whose keys come and go is rebuilt by V8 in the old generation
   * once it is old, and the tables it leaves behind keep their finished entries (memo entries,
   * answers) alive until the next mark-compact (server/in-flight-responses.ts, docs/performance.md
   * "What the promotion was").
   */
  private leaders = new Map<string, CallMember>();
  /** Request key → the single-fetch call sending it (replaced when it empties, as `leaders`). */
  private requests = new Map<string, SharedCall>();
  /** Keys a background refresh is renewing right now. */
  readonly refreshing = new Set<string>();

  /**
   * Makes `memo` wait for the call in flight for its key; returns that call, or undefined when none.
   * `whole` is given for a single fetch (whether it needs the whole answer): it may then also wait
   * for a single-fetch call of its request key that answers what it needs.
   */
  join(memo: CallMember, whole?: boolean): SharedCall | undefined {
    const leader = this.leaders.get(memo.key);
    if (leader !== undefined && leader.call !== undefined) {
      memo.leader = leader;
      memo.call = leader.call;
      leader.call.joined = true;
      return leader.call;
    }
    if (whole === undefined || this.requests.size === 0) return undefined;
    const call = this.requests.get(memo.requestKey);
    if (call === undefined || (whole && !call.single!.whole)) return undefined;
    memo.leader = call.memos[0];
    memo.call = call;
    call.joined = true;
    return call;
  }

  /**
   * Starts the call of a single fetch: `memo` leads its key, and (unless `whole` is undefined: a
   * revalidation, whose answer is its own entry's) the call answers its request key as well.
   */
  leadSingle(memo: CallMember, whole: boolean | undefined): SharedCall {
    const call = this.lead([memo]);
    if (whole === undefined) return call;
    call.single = { whole, answer: undefined };
    if (!this.requests.has(memo.requestKey)) this.requests.set(memo.requestKey, call);
    return call;
  }

  /** Starts a call for these memo entries (they lead their keys from now on); its leader is one waiter. */
  lead(memos: readonly CallMember[]): SharedCall {
    const call = new SharedCall([]);
    this.add(call, memos);
    return call;
  }

  /** Makes these memo entries lead their keys in `call` (a shared @batch chunk that grows, batch-collector.ts). */
  add(call: SharedCall, memos: readonly CallMember[]): void {
    for (const m of memos) {
      call.memos.push(m);
      m.call = call;
      if (!this.leaders.has(m.key)) this.leaders.set(m.key, m);
    }
  }

  /** The call has its outcomes (or was given up): its keys are no longer joinable. */
  settle(call: SharedCall): void {
    if (call.settled) return;
    call.settled = true;
    for (const m of call.memos) if (this.leaders.get(m.key) === m) this.leaders.delete(m.key);
    if (this.leaders.size === 0) this.leaders = new Map();
    if (call.single === undefined) return;
    const requestKey = call.memos[0]!.requestKey;
    if (this.requests.get(requestKey) === call) this.requests.delete(requestKey);
    if (this.requests.size === 0) this.requests = new Map();
  }

  /**
   * A round stops waiting for `call` (answered or gone); the last one to leave an unsettled call
   * aborts it, unless it `runsOn` (a chunk shared across requests is settled and fills the caches).
   */
  leave(call: SharedCall): void {
    call.waiters--;
    if (call.waiters > 0 || call.settled || call.runsOn) return;
    this.settle(call);
    call.controller.abort(new Error('every caller waiting for this subrequest went away'));
  }
}

export class SharedCall {
  /** Resolves (never rejects) once the memo entries have their outcomes or the call was given up. */
  done: Promise<void> = Promise.resolve();
  /** Rounds waiting for this call, the leader's included. */
  waiters = 1;
  settled = false;
  /** Never aborted when every waiter left (docs/caching.md). */
  runsOn = false;
  /** A lookup of another request joined it: its keys are not all its leaders' (execute/isolate.ts). */
  joined = false;
  /** Its failure when a key may have caused it: every request resends its own keys (execute/isolate.ts). */
  fault: UpstreamOutcome | undefined = undefined;
  readonly controller = new Canceller();
  /** Waiters answered a slice at a time (a chunk shared across requests, batch-collector.ts); else all at `done`. */
  sliced: SlicedRelease | undefined;
  /**
   * A single fetch's call (InFlight.leadSingle): whether it asks for the whole answer, and its
   * answer before any field's read of it (set when it arrives), for waiters that read it another way.
   */
  single: { readonly whole: boolean; answer: UpstreamOutcome | undefined } | undefined;

  constructor(readonly memos: CallMember[]) {}

  /** What one waiting round awaits: `done`, or its place in the sliced release. */
  waitFor(): Promise<void> {
    return this.sliced ? this.sliced.waiter() : this.done;
  }

  get signal(): Abortable {
    return this.controller;
  }
}

/**
 * The rounds a request is waiting in: joins calls once per round, waits for them raced against the
 * caller's own AbortSignal (one listener per round), and leaves them all when the round ends.
 */
export class RoundWaits {
  /** The first call waited for; the others in `more` (most rounds wait for one call, and make no Set). */
  private first: SharedCall | undefined;
  private more: Set<SharedCall> | undefined;

  constructor(private readonly inFlight: InFlight) {}

  /** Counts this round as a waiter of `call` (once, however many of its keys the round needs). */
  wait(call: SharedCall, joined: boolean): void {
    if (this.first === undefined) this.first = call;
    else if (this.first === call || this.more?.has(call)) return;
    else (this.more ??= new Set()).add(call);
    if (joined) call.waiters++;
  }

  /**
   * Waits for `own` (this round's calls to sources that do not coalesce) and every call waited for;
   * rejects with the abort reason as soon as `signal` aborts. Leaves every call either way.
   */
  waitAll(own: ReadonlyArray<Promise<void>>, signal: Abortable | undefined): Promise<void> {
    const first = this.first;
    if (first === undefined) {
      // Only this request's own subrequests: their deadline is bound to `signal`, so they end with
      // its reason as soon as it aborts (upstream/client.ts); no race against it is needed.
      return own.length === 1 ? own[0]! : Promise.all(own).then(ignore);
    }
    let work: Promise<unknown>;
    if (own.length === 0 && this.more === undefined) {
      // One call and nothing of its own (a round whose keys wait in one shared chunk): no Promise.all.
      if (first.sliced) return this.waitReleased(first.sliced, signal);
      work = first.waitFor();
    } else {
      const all: Array<Promise<void>> = [...own, first.waitFor()];
      if (this.more) for (const call of this.more) all.push(call.waitFor());
      work = Promise.all(all);
    }
    // Continuations, not an async function: the round's wait allocates no frame of its own.
    return abortable(work, signal).then(
      () => this.leaveAll(),
      (err: unknown) => {
        this.leaveAll();
        throw err;
      },
    );
  }

  /**
   * The wait of a round whose keys all wait in one chunk shared across requests: what `abortable`
   * does over the chunk's release, as one promise and two callbacks (the most common wait under
   * load, one per round of every request).
   */
  private waitReleased(sliced: SlicedRelease, signal: Abortable | undefined): Promise<void> {
    if (signal?.aborted) {
      this.leaveAll();
      return Promise.reject(signal.reason);
    }
    return new Promise<void>((resolve, reject) => {
      let ended = false;
      const released = (): void => {
        if (ended) return;
        ended = true;
        signal?.removeEventListener('abort', aborted);
        this.leaveAll();
        resolve();
      };
      const aborted = (): void => {
        if (ended) return;
        ended = true;
        this.leaveAll();
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', aborted, { once: true });
      sliced.whenReleased(released);
    });
  }

  private leaveAll(): void {
    const first = this.first;
    if (first === undefined) return;
    this.first = undefined;
    this.inFlight.leave(first);
    const more = this.more;
    this.more = undefined;
    if (more) for (const call of more) this.inFlight.leave(call);
  }
}

const ignore = (): void => undefined;

/** `work`, or a rejection with the signal's reason as soon as it aborts. */
function abortable<T>(work: Promise<T>, signal: Abortable | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
