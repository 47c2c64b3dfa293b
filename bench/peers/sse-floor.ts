/**
 * The live phase's floor (bench/live.ts): a node:http server that holds each SSE stream it is asked
 * for, with nothing of GraphQL. It reads the POST body, answers with the head gqlgw sends and one
 * `next` event, and keeps the response until the client goes. Its RSS growth per stream is what
 * Node's HTTP server costs for one open stream, the memory no gateway on it can go below.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { readBody } from '../shared/http.js';

const HEAD = {
  connection: 'keep-alive',
  'cache-control': 'no-cache',
  'content-encoding': 'none',
  'content-type': 'text/event-stream; charset=utf-8',
};
const EVENT = 'event: next\ndata: {"data":{"item":{"value":"0.0"}}}\n\n';

export function createSseFloorServer(): Server {
  const open = new Set<ServerResponse>();
  return createServer((req, res) => {
    void readBody(req).then(() => {
      res.writeHead(200, HEAD).write(EVENT);
      open.add(res);
      res.on('close', () => open.delete(res));
    });
  });
}
