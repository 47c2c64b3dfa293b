import type { ServerResponse } from 'node:http';
import { requestFacts, type Answers } from './answers.js';
import type { GatewayRequest } from './http-request.js';
import { TO_YOGA, type OperationPath } from './operation.js';
import { parseRequestJson } from './request-json.js';

/** Answers a request with yoga's full GraphQL-over-HTTP pipeline, given the body already read. */
export type YogaFallback = (request: GatewayRequest, res: ServerResponse, body: Buffer | undefined) => Promise<void>;

export interface FastPathOptions {
  readonly operations: OperationPath;
  readonly answers: Answers;
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
 * reads the request: what runs and how is the operation path's (operation.ts: persisted text,
 * token, document, executor), and the answer — status, body, headers — is `answers`', the same
 * two yoga calls. Queries and mutations are executed here; everything else (a body that is not a
 * plain params object, a request without a text, an operation that cannot be planned, a
 * subscription) is handed to yoga with its body; yoga then takes the document from the same store,
 * so it is never parsed or validated twice.
 */
export function createFastPath(options: FastPathOptions): FastPath {
  const { operations, answers, maxBodyBytes, fallback } = options;
  const served = options.onServed ?? (() => {});

  async function answer(request: GatewayRequest, res: ServerResponse, body: Buffer): Promise<void> {
    let params: unknown;
    try {
      params = parseRequestJson(body.toString('utf8'), body);
    } catch {
      return fallback(request, res, body);
    }
    if (!isPlainParams(params)) return fallback(request, res, body);
    const outcome = await operations.run(request, {
      query: params.query,
      extensions: params.extensions,
      operationName: params.operationName,
      variables: params.variables,
      dataAsJson: true,
    });
    if (outcome === TO_YOGA) return fallback(request, res, body);
    if (outcome === undefined) return;
    served();
    answers.write(res, answers.graphql(outcome.result, requestFacts(request, params.operationName, outcome.stats), outcome.dataJson));
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
