import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { GraphQLError } from 'graphql';
import type { Executor } from '../execute/executor.js';
import { requestFacts, writeAnswer, type Answers } from './answers.js';
import type { DocumentStore } from './documents.js';
import type { PersistedDocuments } from './persisted.js';
import { Canceller } from '../upstream/canceller.js';

/** Answers a request with yoga's full GraphQL-over-HTTP pipeline, given the body already read. */
export type YogaFallback = (req: IncomingMessage, res: ServerResponse, body: Buffer | undefined) => void;

export interface FastPathOptions {
  readonly executor: Executor;
  readonly answers: Answers;
  readonly documents: DocumentStore;
  readonly persisted: PersistedDocuments;
  readonly maxBodyBytes: number;
  readonly fallback: YogaFallback;
  /** Called once for every request the fast path answers itself (the gqlgw_http_fast_path_total metric). */
  readonly onServed?: () => void;
}

/**
 * The request most clients send, served without yoga's Fetch-API round trip: `POST /graphql`,
 * `Content-Type: application/json`, a declared length within `max_body_bytes`, a JSON (or
 * graphql-response+json) answer, and a JSON object body. The fast path only reads the request:
 * which text runs is `persisted`'s decision, whether the document may run is `documents`', and
 * the answer — status, body, headers — is `answers`', the same three yoga calls. A query operation
 * is executed here; everything else (a body that is not a plain params object, a mutation, an
 * operation that cannot be planned) is handed to yoga with its body; yoga then takes the
 * document from the same store, so it is never parsed or validated twice.
 *
 * Returns a request listener that answers true when it took the request.
 */
export function createFastPath(options: FastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { executor, answers, documents, persisted, maxBodyBytes, fallback } = options;
  const served = options.onServed ?? (() => {});

  async function serve(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    let params: unknown;
    try {
      params = JSON.parse(body.toString('utf8'));
    } catch {
      return fallback(req, res, body);
    }
    if (!isPlainParams(params)) return fallback(req, res, body);
    const { variables, operationName } = params;
    let query: string | undefined;
    try {
      query = persisted.resolve(params);
    } catch (err) {
      if (!(err instanceof GraphQLError)) throw err;
      served();
      return writeAnswer(res, answers.graphql({ errors: [err] }, requestFacts(req, operationName)));
    }
    if (query === undefined) return fallback(req, res, body);
    const prepared = documents.prepare(query);
    if (!prepared.document || prepared.errors.length > 0) {
      served();
      return writeAnswer(res, answers.graphql({ errors: prepared.errors }, requestFacts(req, operationName)));
    }
    const document = prepared.document;
    const plan = executor.plan(document, operationName);
    if (!plan || plan.operation.operation !== 'query') return fallback(req, res, body);

    const signal = connectionSignal(req.socket);
    let outcome;
    try {
      outcome = await executor.execute({
        document,
        operationName,
        variables,
        header: (name) => headerValue(req, name),
        signal,
        dataAsJson: true,
      });
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
    served();
    writeAnswer(res, answers.graphql(outcome.result, requestFacts(req, operationName, outcome.stats), outcome.dataJson));
  }

  return (req, res) => {
    if (req.method !== 'POST' || !isGraphQLPath(req.url)) return false;
    if (!isJson(req.headers['content-type']) || !acceptsJson(req.headers.accept)) return false;
    const length = Number(req.headers['content-length']);
    if (!Number.isInteger(length) || length < 0 || length > maxBodyBytes || req.headers['transfer-encoding']) return false;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      serve(req, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).catch((err: unknown) => {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        writeAnswer(res, answers.unexpected(err, requestFacts(req)));
      });
    });
    return true;
  };
}

const connectionSignals = new WeakMap<Socket, Canceller>();
/** A request adds one listener per source and round and removes them when done; more than Node's 10 at once is a leak. */
const CONNECTION_MAX_LISTENERS = 10;

/**
 * The signal that aborts when the client's connection closes: one per connection, not per request.
 * An HTTP/1.1 client can only give up on a request by closing its connection, and the requests of a
 * keep-alive connection come one after another, so the one in flight is the one it cancels. Every
 * listener a request adds to it is removed when the request is done (upstream/deadline.ts, execute/
 * coalesce.ts): a connection's requests never pile listeners up on it.
 */
function connectionSignal(socket: Socket): Canceller {
  let signal = connectionSignals.get(socket);
  if (!signal) {
    const canceller = new Canceller(CONNECTION_MAX_LISTENERS);
    connectionSignals.set(socket, canceller);
    socket.once('close', () => canceller.abort(new Error('the client closed the connection')));
    signal = canceller;
  }
  return signal;
}

interface PlainParams {
  readonly query: unknown;
  readonly extensions: unknown;
  readonly variables: Record<string, unknown> | undefined;
  readonly operationName: string | undefined;
}

/** A params object the fast path can run: `query` a string or absent (persisted), the rest well typed. */
function isPlainParams(v: unknown): v is PlainParams {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const p = v as Record<string, unknown>;
  if (p.query !== undefined && typeof p.query !== 'string') return false;
  if (p.variables !== undefined && p.variables !== null && (typeof p.variables !== 'object' || Array.isArray(p.variables))) return false;
  if (p.operationName !== undefined && p.operationName !== null && typeof p.operationName !== 'string') return false;
  if (p.variables === null) (p as { variables?: unknown }).variables = undefined;
  if (p.operationName === null) (p as { operationName?: unknown }).operationName = undefined;
  return true;
}

export function isGraphQLPath(url: string | undefined): boolean {
  return url === '/graphql' || (url !== undefined && url.startsWith('/graphql?'));
}

function isJson(contentType: string | undefined): boolean {
  if (contentType === 'application/json') return true; // what most clients send, without parameters
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json';
}

/** True when a JSON answer is what the client takes (a client asking only for a stream goes to yoga). */
function acceptsJson(accept: string | undefined): boolean {
  if (!accept || accept === 'application/json' || accept === '*/*') return true; // what most clients send
  const a = accept.toLowerCase();
  return a.includes('application/json') || a.includes('application/graphql-response+json') || a.includes('*/*');
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}
