import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from '../errors.js';
import type { ExecutionResult } from 'graphql';
import { createHandler } from 'graphql-sse';
import { LiveConnection } from '../live/hub.js';
import type { LiveStream } from '../live/stream.js';
import { headerOf } from './http-request.js';
import { runStreamed, type LiveOperations } from './live-operations.js';
import { readCapped } from './read-capped.js';
import { EVENT_STREAM_HEAD, SseStreams } from './live-sse-streams.js';

const TOO_LARGE = 'a request body over [limits] max_body_bytes';

/**
 * GraphQL over SSE on the GraphQL path (docs/live-data.md "Transports"): graphql-sse's protocol
 * handler in its distinct-connections mode (one operation per `Accept: text/event-stream` request,
 * its events on that response), bridged to Node here so the body is capped at `max_body_bytes`.
 * graphql-sse reads the request and answers everything but a subscription's stream; that one
 * {@link SseStreams} writes in graphql-sse's framing, each event's bytes made once for all who get it.
 * Each stream is one connection for `max_per_connection`; a comment line goes out every
 * `heartbeat_s`. A stream ends when its subscription completes (its last event, a shutdown).
 */
export function createSseEntrance(
  live: () => LiveOperations,
  options: { readonly heartbeatS: number; readonly maxBodyBytes: number },
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const streams = new SseStreams(options.heartbeatS);
  // `context.stream`: the subscription onSubscribe began, which the bridge writes itself.
  const handler = createHandler<IncomingMessage, { stream?: LiveStream }>({
    // null: never a reserved stream (the single-connection mode), always one stream per operation.
    authenticate: () => null,
    onSubscribe: async (req, params) => {
      // The stream's header reader holds the Node request only, not graphql-sse's view of it.
      const raw = req.raw;
      const streamed = await runStreamed(live(), {
        query: params.query,
        operationName: params.operationName,
        variables: params.variables,
        header: (name) => headerOf(raw, name),
        connection: new LiveConnection(),
      });
      const { outcome } = streamed;
      if (Symbol.asyncIterator in outcome) {
        req.context.stream = outcome;
        return [null, { status: 200, statusText: 'OK', headers: EVENT_STREAM_HEAD }];
      }
      // One result (a query, a refusal) is written as one event after the headers: one that cannot be
      // written must fail here, before them, to be the same 500 as on every entrance.
      if (!(Symbol.asyncIterator in outcome)) JSON.stringify(outcome);
      // graphql-sse takes a result only when it has `data`: a request error goes out as a one-event stream.
      return 'data' in outcome ? outcome : once(outcome);
    },
  });
  return async (req, res) => {
    const context: { stream?: LiveStream } = {};
    // graphql-sse takes exactly `text/event-stream`; a client listing more types asked for the same.
    req.headers.accept = 'text/event-stream';
    const [body, init] = await handler({
      method: req.method!,
      url: req.url!,
      headers: { get: (key: string) => headerOf(req, key) },
      body: async () => {
        const read = await readCapped(req, options.maxBodyBytes);
        if (read === undefined) throw new Error(TOO_LARGE);
        return read.toString('utf8');
      },
      raw: req,
      context,
    }).catch((err: unknown) => {
      if ((err as Error).message !== TOO_LARGE) throw err;
      const tooLarge = JSON.stringify({ errors: [badRequest('the request body is too large')] });
      return [
        tooLarge,
        { status: 413, statusText: 'Payload Too Large', headers: { 'content-type': 'application/json; charset=utf-8' } },
      ] as const;
    });
    res.writeHead(init.status, init.statusText, init.headers as Record<string, string>);
    if (context.stream) return streams.subscribe(res, context.stream);
    if (!body || typeof body === 'string') return void res.end(body);
    await writeAll(body, res, streams);
  };
}

/** Writes graphql-sse's event messages (one result) as they come, with heartbeats; stops when the client left. */
async function writeAll(body: AsyncGenerator<string>, res: ServerResponse, streams: SseStreams): Promise<void> {
  const stop = () => void body.return(undefined);
  res.once('close', stop);
  streams.add(res);
  try {
    for await (const message of body) {
      if (!res.writable) break;
      res.write(message);
    }
  } finally {
    streams.remove(res);
    res.off('close', stop);
  }
  res.end();
}

async function* once(result: ExecutionResult): AsyncGenerator<ExecutionResult> {
  yield result;
}
