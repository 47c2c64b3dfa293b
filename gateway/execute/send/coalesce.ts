import { Canceller, type Abortable } from '../../util/canceller.js';
import { SlicedRelease } from '../../util/sliced-release.js';
import type { UpstreamOutcome } from '../../upstream/outcome.js';

const ignore = (): void => undefined;
const DONE: Promise<void> = Promise.resolve();

/**
 * Coalescing across requests (docs/caching.md): the GET subrequests and @batch
 * keys in flight in this process, so that another GraphQL request needing the same one waits for
 * its answer instead of asking again.
 *
 * Contract:
 * - Identity is the memo key (execute/send/memo-entry.ts): source, resolved single-fetch path, how the
 *   field reads the answer (`select`, `response`), and a hash of the forwarded header values.
 *   Callers with different forwarded values therefore never share a call. A @batch key and a single
 *   fetch of the same key are the same thing. A single fetch also joins a single-fetch call of its
 *   request key (the memo key without its read) that another field reads another way, and reads its
 *   own part of that call's answer, never the leader's value (execute/send/single.ts joinedOutcome);
 *   a `response: true` field joins only a call that asks for the whole answer.
 * - A SharedCall is one HTTP call (a single fetch or a @batch chunk, with its re-sends and split
 *   halves) whose memo entries lead their keys. It belongs to no caller: its deadline is the
 *   source's, and its AbortSignal fires only when every round waiting for it has left (its leader's
 *   included), so one caller giving up never fails the others. Once aborted or settled, its keys are
 *   no longer joinable.
 * - `waitFor()` never rejects; a failed call gives every waiter its error outcome (and is never cached,
 *   see cache-tiers.ts). Only sources with `coalesce = true` lead or join; mutations never do.
 * - Background refreshes of stale entries (`refreshing`) run at most once per key per process.
 */
/**
 * What coalescing reads and writes of a lookup's memo entry (execute/send/memo-entry.ts MemoEntry is one):
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
      leader.call.joinedBy();
      return leader.call;
    }
    if (whole === undefined || this.requests.size === 0) return undefined;
    const call = this.requests.get(memo.requestKey);
    if (call === undefined || (whole && !call.whole)) return undefined;
    memo.leader = call.memos[0];
    memo.call = call;
    call.joinedBy();
    return call;
  }

  /**
   * Starts the call of a single fetch: `memo` leads its key, and (unless `whole` is undefined: a
   * revalidation, whose answer is its own entry's) the call answers its request key as well.
   */
  leadSingle(memo: CallMember, whole: boolean | undefined): SharedCall {
    const call = SharedCall.lead(whole);
    this.leads(call, memo);
    if (whole === undefined) return call;
    if (!this.requests.has(memo.requestKey)) this.requests.set(memo.requestKey, call);
    return call;
  }

  /** Starts a call for these memo entries (they lead their keys from now on); its leader is one waiter. */
  lead(memos: readonly CallMember[]): SharedCall {
    const call = SharedCall.lead();
    this.add(call, memos);
    return call;
  }

  /** Makes these memo entries lead their keys in `call` (a shared @batch chunk that grows, batch-collector.ts). */
  add(call: SharedCall, memos: readonly CallMember[]): void {
    for (const m of memos) this.leads(call, m);
  }

  private leads(call: SharedCall, m: CallMember): void {
    call.add(m);
    m.call = call;
    if (!this.leaders.has(m.key)) this.leaders.set(m.key, m);
  }

  /** The call has its outcomes (or was given up): its keys are no longer joinable. */
  settle(call: SharedCall): void {
    if (!call.settle()) return;
    for (const m of call.memos) if (this.leaders.get(m.key) === m) this.leaders.delete(m.key);
    if (this.leaders.size === 0) this.leaders = new Map();
    if (call.whole === undefined) return;
    const requestKey = call.memos[0]!.requestKey;
    if (this.requests.get(requestKey) === call) this.requests.delete(requestKey);
    if (this.requests.size === 0) this.requests = new Map();
  }

  /**
   * A round stops waiting for `call` (answered or gone); the last one to leave an unsettled call
   * aborts it, unless it `runsOn` (a chunk shared across requests is settled and fills the caches).
   */
  leave(call: SharedCall): void {
    if (!call.left()) return;
    this.settle(call);
    call.abort(new Error('every caller waiting for this subrequest went away'));
  }
}

/**
 * One call other requests may wait for (docs/caching.md), made by one of its named constructors
 * (`lead`, `forOpenChunk`). Its state changes only through its methods:
 * - it `sends` its work once; `waitFor()` resolves (never rejects) once that ended, or for a sliced
 *   call once its release reaches the waiter;
 * - each round waiting for it is counted (`waiting`, `left`); a led call is its leader's first
 *   waiter, and is given up (aborted) when the last one leaves it unsettled; a call that `runsOn`
 *   is never given up;
 * - it is `settle`d once (InFlight.settle): its keys are no longer joinable;
 * - `joined`, `fault` and `answer` are set once each, by the one party that knows them.
 */
export class SharedCall {
  private done: Promise<void> = DONE;
  /** Rounds waiting for this call, the leader's included. */
  private waiters: number;
  private isSettled = false;
  private isJoined = false;
  private faultOf: UpstreamOutcome | undefined = undefined;
  private answerOf: UpstreamOutcome | undefined = undefined;
  private readonly controller = new Canceller();
  private readonly members: CallMember[] = [];

  private constructor(
    /** Never aborted when every waiter left (a chunk shared across requests, docs/caching.md). */
    readonly runsOn: boolean,
    /** Waiters answered a slice at a time (a chunk shared across requests, batch-collector.ts); else all at once. */
    readonly sliced: SlicedRelease | undefined,
    /**
     * A single fetch's call that answers its request key too (InFlight.leadSingle): whether it asks
     * for the whole answer; undefined for any other call.
     */
    readonly whole: boolean | undefined,
  ) {
    this.waiters = runsOn ? 0 : 1;
  }

  /** A call a round leads (InFlight.lead, leadSingle): that round is its first waiter. */
  static lead(whole?: boolean): SharedCall {
    return new SharedCall(false, undefined, whole);
  }

  /**
   * The call of a chunk the collector fills (batch-collector.ts): no round leads it, it runs on
   * when every waiter left, and its waiters are released a slice at a time.
   */
  static forOpenChunk(): SharedCall {
    return new SharedCall(true, new SlicedRelease(), undefined);
  }

  /** Its work, once: the call ends when `work` settles (a failure is its entries' outcomes, never a rejection here). */
  sends(work: Promise<void>): void {
    const sliced = this.sliced;
    this.done = sliced ? work.catch(ignore).then(() => sliced.release()) : work.catch(ignore);
  }

  /** What one waiting round awaits: the end of the call, or its place in the sliced release. */
  waitFor(): Promise<void> {
    return this.sliced ? this.sliced.waiter() : this.done;
  }

  get signal(): Abortable {
    return this.controller;
  }

  /** The memo entries that lead their keys in this call (InFlight.add). */
  get memos(): readonly CallMember[] {
    return this.members;
  }

  get settled(): boolean {
    return this.isSettled;
  }

  /** A lookup of another request joined it: its keys are not all its leaders' (execute/send/isolate.ts). */
  get joined(): boolean {
    return this.isJoined;
  }

  /** Its failure when a key may have caused it: every request resends its own keys (execute/send/isolate.ts). */
  get fault(): UpstreamOutcome | undefined {
    return this.faultOf;
  }

  /** A single fetch's answer before any field's read of it, for waiters that read it another way. */
  get answer(): UpstreamOutcome | undefined {
    return this.answerOf;
  }

  /** The call failed in a way one of its keys may have caused (batch.ts sendChunk). */
  faulted(outcome: UpstreamOutcome): void {
    this.faultOf = outcome;
  }

  /** A single fetch's answer arrived (single.ts); kept only by a call that answers its request key. */
  answered(outcome: UpstreamOutcome): void {
    if (this.whole !== undefined) this.answerOf = outcome;
  }

  /** InFlight.add: `m` leads its key in this call. */
  add(m: CallMember): void {
    this.members.push(m);
  }

  /** InFlight.join: a lookup of another request waits for it. */
  joinedBy(): void {
    this.isJoined = true;
  }

  /** RoundWaits.wait: one more round waits for it. */
  waiting(): void {
    this.waiters++;
  }

  /** InFlight.leave: a round stopped waiting; whether the call is to be given up (nobody waits, unsettled, not running on). */
  left(): boolean {
    this.waiters--;
    return this.waiters <= 0 && !this.isSettled && !this.runsOn;
  }

  /** InFlight.settle: marks it settled; false when it already was. */
  settle(): boolean {
    if (this.isSettled) return false;
    this.isSettled = true;
    return true;
  }

  /** InFlight.leave: gives it up (its signal aborts). */
  abort(reason: Error): void {
    this.controller.abort(reason);
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
    if (joined) call.waiting();
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
