import { type DocumentNode, type ExecutionResult } from 'graphql';
import { CODE, hasCode, internalError, unauthenticated } from '../errors.js';
import type { FieldBlueprint } from '../blueprint/types.js';
import type { ExecutedOperation, ExecuteRequest, Executor } from '../execute/executor.js';
import type { LiveListener, PollResult } from './listener.js';
import type { LiveStream } from './stream.js';
import { TickOrder, type Ordered } from './tick-order.js';

/** What every poll of a group sends: its subscribers' operation, variables and headers (docs/live-data.md). */
export interface GroupRequest {
  readonly document: DocumentNode;
  readonly operationName: string | null | undefined;
  readonly variables: Readonly<Record<string, unknown>> | null | undefined;
  /** The subscribers' headers that matter to a source (forwarded ones, Authorization), lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The verified token's claims (for `{auth.*}` cache partitions); undefined without one. */
  readonly claims: Readonly<Record<string, unknown>> | undefined;
  /** The string forms of the polled field's key arguments: what a webhook's key is compared with. */
  readonly keys: readonly string[];
  /** The polled field's argument values, coerced. */
  readonly args: Readonly<Record<string, unknown>>;
  /** When the token stops being valid (ms since the epoch); Infinity without an `exp`. */
  readonly expiresAt: number;
}

/** Subscribers of one field with the same operation, variables and headers: one poll per tick serves them all. */
export class PollGroup implements Ordered {
  readonly streams = new Set<LiveStream>();
  /** The last result sent, and its JSON (what "changed" is judged against). */
  last: ExecutionResult | undefined;
  lastJson: string | undefined;
  /** Its poll is out; `queued`: a slice of the current tick holds it; `gone`: nobody watches it. */
  running = false;
  queued = false;
  gone = false;
  /** A poll was asked while one ran (a tick, a webhook): run it once that one settled. */
  again = false;
  readonly partition: string;
  readonly keysKey: string;
  /** What every poll of the group asks the executor (one object for its life); its signal aborts when it is gone. */
  readonly execute: ExecuteRequest;
  private readonly abort = new AbortController();

  constructor(
    readonly key: string,
    readonly request: GroupRequest,
    coordinate: string,
  ) {
    const { document, operationName, variables, headers } = request;
    this.partition = JSON.stringify(headers);
    this.keysKey = request.keys.join('\n');
    const header = (name: string): string | undefined => headers[name];
    this.execute = { document, operationName, variables, header, signal: this.abort.signal, poll: coordinate };
  }

  /** Nobody watches it any more: its poll in flight is cancelled, and it is never polled again. */
  drop(): void {
    this.gone = true;
    if (this.running) this.abort.abort(new Error('nobody watches this poll any more'));
  }
}

export interface PollDeps {
  readonly executor: Executor;
  readonly listener: LiveListener;
}

const UNEXPECTED: ExecutionResult = Object.freeze({
  errors: [internalError('Unexpected error.')],
});

/** About how many groups a tick polls at once (rounded up to whole chunks), and the time between two such slices. */
const SLICE_GROUPS = 200;
const SLICE_GAP_MS = 20;

/**
 * One `@poll` field's subscribers and its clock (docs/live-data.md): one timer for the field, started
 * with its first group and stopped with its last, so every group's ticks are aligned. A tick polls
 * its groups in slices ({@link TickOrder}), each slice's keys filling whole batch chunks, one slice
 * every SLICE_GAP_MS (the whole tick within half its interval). So a tick of 10,000 groups costs the
 * calls it would cost at once, each key is polled at the same offset in every tick (every N seconds
 * exactly), and its event leaves within its slice's time, not behind the whole tick's; webhook polls
 * are not queued behind it either. A new group is polled at once (its first event); a
 * group nobody watches is dropped at once, its poll in flight cancelled.
 */
export class PolledField {
  private readonly groups = new Map<string, PollGroup>();
  private readonly order = new TickOrder<PollGroup>();
  /** The groups of more than one key (a list argument): what a webhook's key is looked for in one by one. */
  private readonly multiKey = new Set<PollGroup>();
  private timer: NodeJS.Timeout | undefined;
  /** The current tick's slices not started yet, when it began, and the time between its slices. */
  private slices: PollGroup[][] = [];
  private sliced = { at: 0, gap: 0, started: 0, timer: undefined as NodeJS.Timeout | undefined };
  private readonly perChunk: number;
  private readonly sliceSize: number;

  constructor(
    readonly field: FieldBlueprint,
    private readonly deps: PollDeps,
  ) {
    this.perChunk = field.fetch?.batch?.max ?? 1;
    this.sliceSize = Math.ceil(SLICE_GROUPS / this.perChunk) * this.perChunk;
  }

  get size(): number {
    return this.groups.size;
  }

  join(key: string, request: () => GroupRequest, stream: LiveStream): void {
    let group = this.groups.get(key);
    if (!group) {
      group = new PollGroup(key, request(), this.field.coordinate);
      this.groups.set(key, group);
      this.order.add(group);
      if (group.request.keys.length > 1) this.multiKey.add(group);
      this.timer ??= setInterval(this.tick, this.field.poll!.everySeconds * 1000);
      this.timer.unref();
      group.streams.add(stream);
      stream.owner = group;
      this.poll(group);
      return;
    }
    group.streams.add(stream);
    stream.owner = group;
    if (group.last) stream.push(group.last, group.lastJson);
  }

  /** A subscriber left: its group goes when it was the last, and the clock when no group is left. */
  leave(stream: LiveStream): void {
    const group = stream.owner as PollGroup | undefined;
    if (!group || !group.streams.delete(stream) || group.streams.size > 0) return;
    this.groups.delete(group.key);
    this.order.delete(group);
    this.multiKey.delete(group);
    group.drop();
    if (this.groups.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.slices = [];
      clearTimeout(this.sliced.timer);
    }
  }

  /** The groups whose key is `key` (a webhook's), each polled now. */
  pollKey(key: string): PollGroup[] {
    const hit = [...this.order.withKeys(key)];
    for (const group of this.multiKey) if (group.request.keys.includes(key)) hit.push(group);
    for (const group of hit) this.poll(group);
    return hit;
  }

  /** Completes every stream (shutdown, reload). */
  endAll(): void {
    for (const group of [...this.groups.values()]) for (const stream of [...group.streams]) stream.end();
  }

  /** A group whose last poll is still out, or that a slice of the last tick still holds, skips the tick (a slow source is not asked twice at once). */
  private readonly tick = (): void => {
    const take = (group: PollGroup): boolean => !group.running && !group.queued && (group.queued = true);
    this.slices.push(...this.order.slices(this.sliceSize, this.perChunk, take));
    const gap = Math.min(SLICE_GAP_MS, (this.field.poll!.everySeconds * 500) / this.slices.length);
    clearTimeout(this.sliced.timer);
    this.sliced = { at: performance.now(), gap, started: 0, timer: undefined };
    this.startSlices();
  };

  /** Starts every slice that is due (a late timer catches up), then waits for the next one. */
  private readonly startSlices = (): void => {
    const { at, gap } = this.sliced;
    while (this.slices.length > 0 && at + this.sliced.started * gap <= performance.now()) {
      this.sliced.started++;
      for (const group of this.slices.shift()!) {
        group.queued = false;
        if (!group.gone && !group.running) this.poll(group);
      }
    }
    if (this.slices.length === 0) return;
    this.sliced.timer = setTimeout(this.startSlices, at + this.sliced.started * gap - performance.now());
    this.sliced.timer.unref();
  };

  private poll(group: PollGroup): void {
    if (group.running) {
      group.again = true;
      return;
    }
    if (group.request.expiresAt <= Date.now()) return this.endGroup(group, expired());
    group.running = true;
    this.deps.executor.execute(group.execute).then(
      (executed) => this.settled(group, executed),
      () => this.settled(group, undefined),
    );
  }

  private settled(group: PollGroup, executed: ExecutedOperation | undefined): void {
    group.running = false;
    if (group.gone || group.streams.size === 0) return;
    const result = executed?.result ?? UNEXPECTED;
    // A request error (no data): the token, the variables or a limit; polling again would not help,
    // except after RATE_LIMITED: the client's `[rate_limit]` bucket refused this tick's bound, and a
    // later tick may fit (the executor charges every tick, docs/live-data.md).
    if (!('data' in result) || result.data === undefined || result.data === null) {
      if (result.errors?.length && !hasCode(result.errors[0], CODE.RATE_LIMITED)) return this.endGroup(group, result);
    }
    this.send(group, result, executed);
    if (group.again) {
      group.again = false;
      this.poll(group);
    }
  }

  /** Sends `result` to every subscriber when it differs from the last one sent, else only to those still waiting for their first. */
  private send(group: PollGroup, result: ExecutionResult, executed: ExecutedOperation | undefined): void {
    const json = JSON.stringify(result);
    const changed = json !== group.lastJson;
    const outcome: PollResult = result.errors?.length
      ? 'error'
      : changed
        ? 'changed'
        : (executed?.stats.notModified ?? 0) > 0
          ? 'not_modified'
          : 'unchanged';
    this.deps.listener.onPoll?.(this.field.coordinate, outcome);
    let sent = 0;
    if (changed) {
      group.last = result;
      group.lastJson = json;
    }
    for (const stream of group.streams) {
      if (changed || !stream.received) {
        stream.push(result, json);
        sent++;
      }
    }
    if (sent > 0) this.deps.listener.onEvents?.(this.field.coordinate, sent);
  }

  private endGroup(group: PollGroup, last: ExecutionResult): void {
    const streams = [...group.streams];
    if (streams.length > 0) this.deps.listener.onEvents?.(this.field.coordinate, streams.length);
    for (const stream of streams) stream.end(last);
  }
}

/** What ends a stream whose token expired. */
function expired(): ExecutionResult {
  return {
    errors: [unauthenticated('the bearer token of this subscription expired')],
  };
}
