import type { ServerResponse } from 'node:http';
import type { ExecutionResult } from 'graphql';
import type { LiveSink, LiveStream } from '../live/stream.js';

/** The response head of an event stream: byte for byte graphql-sse's (distinct connections). */
export const EVENT_STREAM_HEAD = {
  connection: 'keep-alive',
  'cache-control': 'no-cache',
  'content-encoding': 'none',
  'content-type': 'text/event-stream; charset=utf-8',
} as const;

const COMMENT = ':\n\n';
const COMPLETE = 'event: complete\ndata:\n\n';

/**
 * The bytes of a `next` event, made once per result: every subscriber a poll group pushes the same
 * result to is written the same buffer (graphql-sse's framing: `event: next`, `data: ` and the
 * result's JSON on one line, a blank line).
 */
const eventBytes = new WeakMap<ExecutionResult, Buffer>();

function nextEvent(result: ExecutionResult, json: string | undefined): Buffer {
  let bytes = eventBytes.get(result);
  if (!bytes) {
    bytes = Buffer.from(`event: next\ndata: ${json ?? JSON.stringify(result)}\n\n`);
    eventBytes.set(result, bytes);
  }
  return bytes;
}

/** How many turns the heartbeat interval is cut into: each open response is in one turn's set. */
const TURNS = 10;

/**
 * The open SSE responses of one entrance (docs/live-data.md "Transports"): one heartbeat timer for
 * all of them, running while any is open. Each response is in one of TURNS sets (in turn as they
 * open); the timer writes a comment line to one set every `heartbeat_s` / TURNS, so each response
 * gets one every `heartbeat_s` and 10,000 streams are never written at once. A subscription's
 * LiveStream pushes to its writer directly. A stream's own state is its response, one small writer
 * and one set entry: no timer, no generator, no closure per stream.
 */
export class SseStreams {
  private readonly turns: Array<Set<ServerResponse>> = Array.from({ length: TURNS }, () => new Set());
  private readonly writers = new Map<ServerResponse, SseWriter | undefined>();
  private next = 0;
  private turn = 0;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly onClose: (this: ServerResponse) => void;

  constructor(private readonly heartbeatS: number) {
    const writers = this.writers;
    // One listener for every response: the client left, so its subscription ends at once.
    this.onClose = function (this: ServerResponse) {
      writers.get(this)?.stream.return();
    };
  }

  /** Writes `stream`'s events to `res` (the head already sent) until either ends. */
  subscribe(res: ServerResponse, stream: LiveStream): void {
    // The client left while its subscription began.
    if (!res.writable) return void stream.return();
    res.write(COMMENT);
    const writer = new SseWriter(res, stream, this);
    this.add(res, writer);
    stream.pipe(writer);
  }

  /** Heartbeats for a response graphql-sse writes (one result), until {@link remove}. */
  add(res: ServerResponse, writer?: SseWriter): void {
    this.writers.set(res, writer);
    this.turns[this.next]!.add(res);
    this.next = (this.next + 1) % TURNS;
    res.on('close', this.onClose);
    if (this.heartbeat) return;
    this.heartbeat = setInterval(
      () => {
        for (const open of this.turns[this.turn]!) if (open.writable) open.write(COMMENT);
        this.turn = (this.turn + 1) % TURNS;
      },
      (this.heartbeatS * 1000) / TURNS,
    );
    this.heartbeat.unref();
  }

  remove(res: ServerResponse): void {
    if (!this.writers.delete(res)) return;
    for (const turn of this.turns) if (turn.delete(res)) break;
    res.off('close', this.onClose);
    if (this.writers.size > 0) return;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}

/** One subscription's writer: each result as a `next` event, then `complete` and the end of the response. */
class SseWriter implements LiveSink {
  constructor(
    private readonly res: ServerResponse,
    readonly stream: LiveStream,
    private readonly streams: SseStreams,
  ) {}

  next(result: ExecutionResult, json: string | undefined): void {
    if (!this.res.writable) return;
    let bytes: Buffer;
    try {
      bytes = nextEvent(result, json);
    } catch {
      // A result with no JSON form: the stream cannot go on (graphql-sse would fail it too).
      this.res.destroy();
      return;
    }
    this.res.write(bytes);
  }

  end(): void {
    this.streams.remove(this.res);
    if (this.res.writable) this.res.write(COMPLETE);
    this.res.end();
  }
}
