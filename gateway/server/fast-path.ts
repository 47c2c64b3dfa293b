import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { GraphQLError } from 'graphql';
import type { Executor } from '../execute/executor.js';
import { requestFacts, type Answers } from './answers.js';
import type { DocumentStore } from './documents.js';
import type { GatewayRequest } from './http-request.js';
import type { PersistedDocuments } from './persisted.js';
import { Canceller } from '../upstream/canceller.js';
import { parseRequestJson } from './request-json.js';

/** Answers a request with yoga's full GraphQL-over-HTTP pipeline, given the body already read. */
export type YogaFallback = (request: GatewayRequest, res: ServerResponse, body: Buffer | undefined) => Promise<void>;

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

export interface FastPath {
  /**
   * True for the request most clients send: `POST /graphql` (the route table decided that),
   * `Content-Type: application/json`, a declared length within `max_body_bytes`, and a JSON (or
   * graphql-response+json) answer accepted.
   */
  takes(request: GatewayRequest): boolean;
  /** Reads the body and answers; rejects only for an error nobody expected (the server answers it). */
  serve(request: GatewayRequest, res: ServerResponse): Promise<void>;
}

/**
 * The request most clients send, served without yoga's Fetch-API round trip. The fast path only
 * reads the request: which text runs is `persisted`'s decision, whether the document may run is
 * `documents`', and the answer — status, body, headers — is `answers`', the same three yoga calls.
 * A query operation is executed here; everything else (a body that is not a plain params object, a
 * mutation, an operation that cannot be planned) is handed to yoga with its body; yoga then takes
 * the document from the same store, so it is never parsed or validated twice.
 */
export function createFastPath(options: FastPathOptions): FastPath {
  const { executor, answers, documents, persisted, maxBodyBytes, fallback } = options;
  const served = options.onServed ?? (() => {});

  async function answer(request: GatewayRequest, res: ServerResponse, body: Buffer): Promise<void> {
    let params: unknown;
    try {
      params = parseRequestJson(body.toString('utf8'), body);
    } catch {
      return fallback(request, res, body);
    }
    if (!isPlainParams(params)) return fallback(request, res, body);
    const { variables, operationName } = params;
    let query: string | undefined;
    try {
      query = persisted.resolve(params);
    } catch (err) {
      if (!(err instanceof GraphQLError)) throw err;
      served();
      return answers.write(res, answers.graphql({ errors: [err] }, requestFacts(request, operationName)));
    }
    if (query === undefined) return fallback(request, res, body);
    const prepared = documents.prepare(query);
    if (!prepared.document || prepared.errors.length > 0) {
      served();
      return answers.write(res, answers.graphql({ errors: prepared.errors }, requestFacts(request, operationName)));
    }
    const document = prepared.document;
    const plan = executor.plan(document, operationName);
    if (!plan || plan.operation.operation !== 'query') return fallback(request, res, body);

    const signal = connectionSignal(request.node.socket);
    let outcome;
    try {
      outcome = await executor.execute({
        document,
        operationName,
        variables,
        header: request.header,
        signal,
        dataAsJson: true,
        peer: request.node.socket.remoteAddress,
      });
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
    served();
    answers.write(res, answers.graphql(outcome.result, requestFacts(request, operationName, outcome.stats), outcome.dataJson));
  }

  return {
    takes: (request) =>
      request.bodyType === 'application/json' &&
      request.acceptsJson &&
      request.declaredLength !== undefined &&
      request.declaredLength <= maxBodyBytes,
    serve: (request, res) => readBody(request).then((body) => answer(request, res, body)),
  };
}

function readBody(request: GatewayRequest): Promise<Buffer> {
  return new Promise((resolve) => {
    // Most bodies come in one chunk: an array only from the second (an empty one's first push makes room for 17).
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    request.node.on('data', (chunk: Buffer) => {
      if (first === undefined) first = chunk;
      else if (more === undefined) more = [first, chunk];
      else more.push(chunk);
    });
    request.node.once('end', () => resolve(more ? Buffer.concat(more) : (first ?? EMPTY_BODY)));
  });
}

const EMPTY_BODY = Buffer.alloc(0);

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

/**
 * A params object the fast path can run: `query` a string or absent (persisted), the rest well typed
 * (variables and extensions objects, operationName a string, each may be null). Anything else goes
 * to yoga, whose 400 is then the answer of every entrance.
 */
function isPlainParams(v: unknown): v is PlainParams {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const p = v as Record<string, unknown>;
  if (p.query !== undefined && typeof p.query !== 'string') return false;
  if (p.variables !== undefined && p.variables !== null && (typeof p.variables !== 'object' || Array.isArray(p.variables))) return false;
  if (p.operationName !== undefined && p.operationName !== null && typeof p.operationName !== 'string') return false;
  if (p.extensions !== undefined && p.extensions !== null && (typeof p.extensions !== 'object' || Array.isArray(p.extensions)))
    return false;
  if (p.variables === null) (p as { variables?: unknown }).variables = undefined;
  if (p.operationName === null) (p as { operationName?: unknown }).operationName = undefined;
  return true;
}
