import { type DocumentNode, type ExecutionResult } from 'graphql';
import { CODE, hasCode, internalError, unauthenticated } from '../errors.js';
import type { FieldBlueprint } from '../blueprint/types.js';
import type { ExecutedOperation, Executor } from '../execute/executor.js';
import type { LiveListener, PollResult } from './listener.js';
import type { LiveStream } from './stream.js';

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
export class PollGroup {
  readonly streams = new Set<LiveStream>();
  /** The last result sent, and its JSON (what "changed" is judged against). */
  last: ExecutionResult | undefined;
  lastJson: string | undefined;
  running: AbortController | undefined;
  /** A poll was asked while one ran (a tick, a webhook): run it once that one settled. */
  again = false;

  constructor(
    readonly key: string,
    readonly request: GroupRequest,
  ) {}
}

export interface PollDeps {
  readonly executor: Executor;
  readonly listener: LiveListener;
}

const UNEXPECTED: ExecutionResult = Object.freeze({
  errors: [internalError('Unexpected error.')],
});

/**
 * One `@poll` field's subscribers and its clock (docs/live-data.md): one timer for the field, started
 * with its first group and stopped with its last, so every group's ticks are aligned and the keys
 * polled in one tick go out together (the executor batches and coalesces them as it does for
 * concurrent queries). A new group is polled at once (its first event); a group nobody watches is
 * dropped at once, its poll in flight cancelled.
 */
export class PolledField {
  private readonly groups = new Map<string, PollGroup>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly field: FieldBlueprint,
    private readonly deps: PollDeps,
  ) {}

  get size(): number {
    return this.groups.size;
  }

  join(key: string, request: () => GroupRequest, stream: LiveStream): void {
    let group = this.groups.get(key);
    if (!group) {
      group = new PollGroup(key, request());
      this.groups.set(key, group);
      this.timer ??= setInterval(this.tick, this.field.poll!.everySeconds * 1000);
      this.timer.unref();
      group.streams.add(stream);
      stream.owner = group;
      this.poll(group);
      return;
    }
    group.streams.add(stream);
    stream.owner = group;
    if (group.last) stream.push(group.last);
  }

  /** A subscriber left: its group goes when it was the last, and the clock when no group is left. */
  leave(stream: LiveStream): void {
    const group = stream.owner as PollGroup | undefined;
    if (!group || !group.streams.delete(stream) || group.streams.size > 0) return;
    this.groups.delete(group.key);
    group.running?.abort(new Error('nobody watches this poll any more'));
    if (this.groups.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** The groups whose key is `key` (a webhook's), each polled now. */
  pollKey(key: string): PollGroup[] {
    const hit: PollGroup[] = [];
    for (const group of this.groups.values()) if (group.request.keys.includes(key)) hit.push(group);
    for (const group of hit) this.poll(group);
    return hit;
  }

  /** Completes every stream (shutdown, reload). */
  endAll(): void {
    for (const group of [...this.groups.values()]) for (const stream of [...group.streams]) stream.end();
  }

  /** A group whose last poll is still out skips the tick (a slow source is not asked twice at once). */
  private readonly tick = (): void => {
    for (const group of this.groups.values()) if (!group.running) this.poll(group);
  };

  private poll(group: PollGroup): void {
    if (group.running) {
      group.again = true;
      return;
    }
    const coordinate = this.field.coordinate;
    const header = (name: string): string | undefined => group.request.headers[name];
    if (group.request.expiresAt <= Date.now()) return this.endGroup(group, expired());
    const running = new AbortController();
    group.running = running;
    const { document, operationName, variables } = group.request;
    this.deps.executor.execute({ document, operationName, variables, header, signal: running.signal, poll: coordinate }).then(
      (executed) => this.settled(group, running, executed),
      () => this.settled(group, running, undefined),
    );
  }

  private settled(group: PollGroup, running: AbortController, executed: ExecutedOperation | undefined): void {
    if (group.running !== running) return;
    group.running = undefined;
    if (running.signal.aborted || group.streams.size === 0) return;
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
        stream.push(result);
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
