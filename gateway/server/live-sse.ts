import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from '../errors.js';
import type { ExecutionResult } from 'graphql';
import { createHandler } from 'graphql-sse';
import { LiveConnection } from '../live/hub.js';
import { headerOf } from './http-request.js';
import { runStreamed, type LiveOperations } from './live-operations.js';
import { readCapped } from './read-capped.js';

const TOO_LARGE = 'a request body over [limits] max_body_bytes';

/**
 * GraphQL over SSE on the GraphQL path (docs/live-data.md "Transports"): graphql-sse's protocol
 * handler in its distinct-connections mode (one operation per `Accept: text/event-stream` request,
 * its events on that response), bridged to Node here so the body is capped at `max_body_bytes`.
 * Each stream is one connection for `max_per_connection`; a comment line goes out every
 * `heartbeat_s`. A stream ends when its subscription completes (its last event, a shutdown).
 */
export function createSseEntrance(
  live: () => LiveOperations,
  options: { readonly heartbeatS: number; readonly maxBodyBytes: number },
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const handler = createHandler<IncomingMessage, undefined>({
    // null: never a reserved stream (the single-connection mode), always one stream per operation.
    authenticate: () => null,
    onSubscribe: async (req, params) => {
      const streamed = await runStreamed(live(), {
        query: params.query,
        operationName: params.operationName,
        variables: params.variables,
        header: (name) => headerOf(req.raw, name),
        connection: new LiveConnection(),
      });
      const { outcome } = streamed;
      // One result (a query, a refusal) is written as one event after the headers: one that cannot be
      // written must fail here, before them, to be the same 500 as on every entrance.
      if (!(Symbol.asyncIterator in outcome)) JSON.stringify(outcome);
      // graphql-sse takes a result only when it has `data`: a request error goes out as a one-event stream.
      return 'data' in outcome ? outcome : Symbol.asyncIterator in outcome ? outcome : once(outcome);
    },
  });
  return async (req, res) => {
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
      context: undefined,
    }).catch((err: unknown) => {
      if ((err as Error).message !== TOO_LARGE) throw err;
      const tooLarge = JSON.stringify({ errors: [badRequest('the request body is too large')] });
      return [
        tooLarge,
        { status: 413, statusText: 'Payload Too Large', headers: { 'content-type': 'application/json; charset=utf-8' } },
      ] as const;
    });
    res.writeHead(init.status, init.statusText, init.headers as Record<string, string>);
    if (!body || typeof body === 'string') return void res.end(body);
    await stream(body, res, options.heartbeatS);
  };
}

/** Writes the event messages as they come, and a heartbeat comment while none comes; stops when the client left. */
async function stream(body: AsyncGenerator<string>, res: ServerResponse, heartbeatS: number): Promise<void> {
  const stop = () => void body.return(undefined);
  res.once('close', stop);
  const heartbeat = setInterval(() => res.writable && res.write(':\n\n'), heartbeatS * 1000);
  heartbeat.unref();
  try {
    for await (const message of body) {
      if (!res.writable) break;
      res.write(message);
    }
  } finally {
    clearInterval(heartbeat);
    res.off('close', stop);
  }
  res.end();
}

async function* once(result: ExecutionResult): AsyncGenerator<ExecutionResult> {
  yield result;
}
