import { DeadlineScope } from '../../upstream/deadline.js';
import { mergeChunk, sendChunk, type BatchChunk, type ChunkDeps } from './batch.js';
import { SharedCall } from './coalesce.js';
import { releasing } from './dispatch.js';

/** A chunk being filled by the requests of one event-loop turn (or of one `batch_window_ms`). */
interface OpenChunk {
  readonly chunk: BatchChunk;
  readonly call: SharedCall;
  /** Whether it still takes keys (not full, not sent). */
  open: boolean;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Batching across requests (docs/caching.md): the @batch chunks of concurrent
 * GraphQL requests, per partition (BatchGroup `partition`: the batch's share key, its resolved
 * variant and the forwarded-header values), filled with the keys of every request whose round is
 * ready in the same event-loop turn, then sent.
 *
 * Contract:
 * - A request's chunk (at most its group's `max` keys) joins the first open chunk of its partition
 *   that can take all of its keys under the smaller `max` of the two, else opens one: a request
 *   counts exactly as many calls as it would alone, so its rounds and counts stay deterministic.
 *   A key already in the chunk is asked once.
 * - No timer is added: open chunks are sent by one `setImmediate` per turn, after the I/O
 *   callbacks of this loop iteration (other requests' rounds) have run; no round waits for another
 *   request. With the source's `batch_window_ms = N > 0`, a chunk that is not full waits up to N ms
 *   from its opening for more keys; a full one goes at the end of the turn.
 * - A chunk is a SharedCall that `runsOn`: it belongs to no caller, runs under the source's
 *   deadline, and when every request waiting for it has left it is still sent, settled, and fills
 *   the caches. On a source with `coalesce = true` its keys are in flight from the moment they join
 *   (InFlight), so a later request needing one waits for it instead of asking again.
 * - Every call of the chunk (re-sends and split halves included) counts for each request with a key
 *   in it (execute/send/dispatch.ts `count`).
 */
export class BatchCollector {
  private readonly open = new Map<string, OpenChunk[]>();
  /** Chunks to send at the end of this turn, in the order they were opened. */
  private due: OpenChunk[] = [];
  private scheduled = false;

  /** Places a request's chunk; returns the shared call its keys will be answered by. */
  place(block: BatchChunk, deps: ChunkDeps): SharedCall {
    const { partition, fetch } = block.group;
    const source = fetch.source;
    let list = this.open.get(partition);
    if (list) {
      for (const o of list) {
        if (!mergeChunk(o.chunk, block)) continue;
        this.joined(o, block, deps);
        if (o.chunk.keys.length >= o.chunk.max) {
          this.close(o, list);
          this.schedule(deps);
        }
        return o.call;
      }
    } else {
      list = [];
      this.open.set(partition, list);
    }
    const call = SharedCall.forOpenChunk();
    const o: OpenChunk = { chunk: block, call, open: true, timer: undefined };
    this.joined(o, block, deps);
    list.push(o);
    if (block.keys.length >= block.max) this.close(o, list);
    else if (source.batchWindowMs > 0) o.timer = setTimeout(() => this.expire(o, partition, deps), source.batchWindowMs);
    else this.due.push(o);
    this.schedule(deps);
    return call;
  }

  /** `block`'s entries are now waiting in `o`: on a coalescing source they lead their keys. */
  private joined(o: OpenChunk, block: BatchChunk, deps: ChunkDeps): void {
    if (!block.group.fetch.source.coalesce) return;
    deps.inFlight.add(o.call, block.entries);
    const { more } = block;
    if (more) for (const e of block.entries) deps.inFlight.add(o.call, more.get(e) ?? []);
  }

  /** A full chunk takes no more keys; it goes at the end of the turn. */
  private close(o: OpenChunk, list: OpenChunk[]): void {
    o.open = false;
    clearTimeout(o.timer);
    o.timer = undefined;
    const at = list.indexOf(o);
    if (at >= 0) list.splice(at, 1);
    if (!this.due.includes(o)) this.due.push(o);
  }

  /** A windowed chunk's time is up. */
  private expire(o: OpenChunk, partition: string, deps: ChunkDeps): void {
    o.timer = undefined;
    const list = this.open.get(partition);
    if (list) {
      this.close(o, list);
      if (list.length === 0) this.open.delete(partition);
    }
    this.schedule(deps);
  }

  private schedule(deps: ChunkDeps): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush(deps));
  }

  /** Sends every chunk that is due; windowed chunks still open wait for their timers. */
  private flush(deps: ChunkDeps): void {
    this.scheduled = false;
    const due = this.due;
    this.due = [];
    for (const o of due) {
      if (o.open) {
        o.open = false;
        const list = this.open.get(o.chunk.group.partition);
        if (list) {
          const at = list.indexOf(o);
          if (at >= 0) list.splice(at, 1);
          if (list.length === 0) this.open.delete(o.chunk.group.partition);
        }
      }
      const scope = new DeadlineScope(undefined);
      const sent = sendChunk(o.chunk, { signal: undefined, deadlines: scope, call: o.call }, deps);
      o.call.sends(releasing(scope, sent));
    }
    for (const [partition, list] of this.open) if (list.length === 0) this.open.delete(partition);
  }
}
