/**
 * The OTLP/HTTP sink of the tracing row: a collector that keeps nothing. Every POST is read to
 * its end and answered 200 with an empty body (an empty export response, protobuf or JSON), so
 * the row measures what tracing costs gqlgw, not a collector.
 *   GET /__stats   {"exports": n, "bytes": m}: the POSTs received and their body bytes
 */
import { createServer } from 'node:http';
import { listen, type Listening } from './shared/http.js';

export function startOtlpSink(port = 0): Promise<Listening> {
  const stats = { exports: 0, bytes: 0 };
  const server = createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
    req.on('data', (chunk: Buffer) => (stats.bytes += chunk.length));
    req.on('end', () => {
      stats.exports++;
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf', 'content-length': 0 }).end();
    });
  });
  return listen(server, port, '');
}
