import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse, validate, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import { createGraphQLError, maskError } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { LimitsConfig } from '../config/types.js';
import type { Executor } from '../execute/executor.js';
import { addDebugExtensions, debugHeaders } from './debug-headers.js';
import { checkDocumentShape, scanDocumentText } from './document-limits.js';
import { presentResult } from './http-answers.js';

/** Answers a request with yoga's full GraphQL-over-HTTP pipeline, given the body already read. */
export type YogaFallback = (req: IncomingMessage, res: ServerResponse, body: Buffer | undefined) => void;

export interface FastPathOptions {
  readonly schema: GraphQLSchema;
  readonly executor: Executor;
  readonly debug: boolean;
  readonly limits: LimitsConfig;
  readonly fallback: YogaFallback;
}

/** Characters of document text the fast path's document cache may keep, across all entries. */
const DOCUMENT_TEXT_BUDGET = 32 * 1024 * 1024;

/**
 * The request most clients send, served without yoga's Fetch-API round trip: `POST /graphql`,
 * `Content-Type: application/json`, a declared length within `max_body_bytes`, a JSON answer, a
 * query document that passes the same limits and validation yoga applies, and one query
 * operation. Such a request is executed and answered here; every other request, and any request
 * that turns out not to be such a request (bad JSON, a syntax or validation error, an unknown
 * operation, ...), is handed to yoga with its body, so each edge behaviour has one implementation
 * (docs/hardening.md) and the answers are the same whichever path served them. What the two paths
 * share is in present-result (`presentResult`), debug-headers and document-limits.
 *
 * Returns a request listener that answers true when it took the request.
 */
export function createFastPath(options: FastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { schema, executor, debug, limits, fallback } = options;
  const documents = new LRUCache<string, DocumentNode>({
    max: 1024,
    maxSize: DOCUMENT_TEXT_BUDGET,
    sizeCalculation: (_value, key) => Math.max(1, key.length),
  });

  /** A parsed, limit-checked, valid document, or undefined when yoga must answer. */
  function documentFor(query: string): DocumentNode | undefined {
    const cached = documents.get(query);
    if (cached) return cached;
    if (scanDocumentText(query, limits)) return undefined;
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch {
      return undefined;
    }
    if (checkDocumentShape(document, limits) || validate(schema, document).length > 0) return undefined;
    documents.set(query, document);
    return document;
  }

  async function serve(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    let params: unknown;
    try {
      params = JSON.parse(body.toString('utf8'));
    } catch {
      return fallback(req, res, body);
    }
    if (!isPlainParams(params)) return fallback(req, res, body);
    const { query, variables, operationName } = params;
    const document = documentFor(query);
    const plan = document && executor.plan(document, operationName);
    if (!document || !plan || plan.operation.operation !== 'query') return fallback(req, res, body);

    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
    });
    let outcome;
    try {
      outcome = await executor.execute({
        document,
        operationName,
        variables,
        header: (name) => headerValue(req, name),
        signal: controller.signal,
      });
    } catch (err) {
      if (controller.signal.aborted) return;
      throw err;
    }
    let result: ExecutionResult = presentResult(outcome.result, { debug, operationName });
    if (!debug && result.errors) result = { ...result, errors: result.errors.map(masked) };
    const status = (result.extensions?.http as { status?: number } | undefined)?.status ?? (result.errors && !('data' in result) ? 500 : 200);
    result = withoutInternals(result);
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    if (debug) {
      addDebugExtensions(result as { extensions?: Record<string, unknown> }, outcome.stats);
      for (const [name, value] of debugHeaders(outcome.stats)) headers[name] = value;
    }
    const text = JSON.stringify(result);
    headers['content-length'] = String(Buffer.byteLength(text));
    res.writeHead(status, headers).end(text);
  }

  return (req, res) => {
    if (req.method !== 'POST' || !isGraphQLPath(req.url)) return false;
    if (!isJson(req.headers['content-type']) || !acceptsJson(req.headers.accept)) return false;
    const length = Number(req.headers['content-length']);
    if (!Number.isInteger(length) || length < 0 || length > limits.maxBodyBytes || req.headers['transfer-encoding']) return false;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      serve(req, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).catch((err: unknown) => {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        const text = JSON.stringify({ errors: [{ message: debug ? String((err as Error).message) : 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(text);
      });
    });
    return true;
  };
}

interface PlainParams {
  readonly query: string;
  readonly variables: Record<string, unknown> | undefined;
  readonly operationName: string | undefined;
}

function isPlainParams(v: unknown): v is PlainParams {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const p = v as Record<string, unknown>;
  if (typeof p.query !== 'string') return false;
  if (p.variables !== undefined && p.variables !== null && (typeof p.variables !== 'object' || Array.isArray(p.variables))) return false;
  if (p.operationName !== undefined && p.operationName !== null && typeof p.operationName !== 'string') return false;
  if (p.variables === null) (p as { variables?: unknown }).variables = undefined;
  if (p.operationName === null) (p as { operationName?: unknown }).operationName = undefined;
  return true;
}

function isGraphQLPath(url: string | undefined): boolean {
  return url === '/graphql' || (url !== undefined && url.startsWith('/graphql?'));
}

function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json';
}

/** True when a plain JSON answer is what the client takes (yoga handles the other media types). */
function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  const a = accept.toLowerCase();
  if (a.includes('graphql-response+json') || a.includes('event-stream') || a.includes('multipart')) return false;
  return a.includes('application/json') || a.includes('*/*');
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** yoga's masking: an error that is not a GraphQL error of the gateway's own becomes "Unexpected error." */
function masked(error: GraphQLError): GraphQLError {
  return maskError(error, 'Unexpected error.', false) as GraphQLError;
}

/**
 * Serialises errors and extensions as yoga's result processor does: `extensions.http` (the status
 * carrier) and `unexpected` are dropped, and each error is rebuilt from its nodes, source,
 * positions and path, so both paths print the same JSON.
 */
function withoutInternals(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length && !result.extensions?.http) return result;
  const next: ExecutionResult = { ...result };
  if (result.errors) next.errors = result.errors.map(rebuiltForOutput);
  if (result.extensions) {
    const { http: _http, ...rest } = result.extensions;
    if (Object.keys(rest).length > 0) next.extensions = rest;
    else delete next.extensions;
  }
  return next;
}

function rebuiltForOutput(error: GraphQLError): GraphQLError {
  const { http: _http, unexpected: _unexpected, ...extensions } = (error.toJSON().extensions ?? {}) as Record<string, unknown>;
  return createGraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError ?? undefined,
    extensions: Object.keys(extensions).length ? extensions : undefined,
  });
}
