import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { badRequest as badRequestError } from '../errors.js';
import type { Executor } from '../execute/executor.js';
import type { LiveConnection, LiveHub } from '../live/hub.js';
import type { LiveStream } from '../live/stream.js';
import type { DocumentStore } from './documents.js';

/** The parameters of one operation a streaming transport (SSE, WebSocket) received. */
export interface StreamedOperation {
  readonly query: unknown;
  readonly operationName?: unknown;
  readonly variables?: unknown;
  readonly header: (name: string) => string | undefined;
  readonly connection: LiveConnection;
}

/** What an operation came to: a stream of events or one result, and its checked document (when it had one). */
export interface Streamed {
  readonly outcome: LiveStream | ExecutionResult;
  readonly document?: DocumentNode;
}

/** What the streaming transports run their operations with (one serving version's). */
export interface LiveOperations {
  readonly hub: LiveHub;
  readonly executor: Executor;
  readonly documents: DocumentStore;
}

/**
 * One operation over SSE or WebSocket (docs/live-data.md "Transports"), the same for both: the
 * document is checked by the one document store (limits, validation); a subscription becomes a
 * stream of the hub, a query or mutation runs once on the executor. Anything refused is a result
 * with errors, which the transport sends as its one event.
 */
export async function runStreamed(live: LiveOperations, op: StreamedOperation): Promise<Streamed> {
  if (typeof op.query !== 'string') return badRequest('the operation needs a "query" string');
  if (op.operationName !== undefined && op.operationName !== null && typeof op.operationName !== 'string')
    return badRequest('"operationName" must be a string');
  if (op.variables !== undefined && op.variables !== null && (typeof op.variables !== 'object' || Array.isArray(op.variables)))
    return badRequest('"variables" must be an object');
  const prepared = live.documents.prepare(op.query);
  if (!prepared.document || prepared.errors.length > 0) return { outcome: { errors: [...prepared.errors] } };
  const document = prepared.document;
  const operationName = op.operationName as string | null | undefined;
  const variables = op.variables as Record<string, unknown> | null | undefined;
  const operation = getOperationAST(document, operationName);
  if (!operation) return badRequest('the document has no such operation (name it in "operationName")');
  if (operation.operation !== 'subscription') {
    const executed = await live.executor.execute({ document, operationName, variables, header: op.header });
    return { outcome: executed.result, document };
  }
  const outcome = await live.hub.subscribe({
    document,
    query: op.query,
    operationName,
    variables,
    header: op.header,
    connection: op.connection,
  });
  return { outcome, document };
}

function badRequest(message: string): Streamed {
  return { outcome: { errors: [badRequestError(message)] } };
}
