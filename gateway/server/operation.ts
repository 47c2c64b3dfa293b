import type { Socket } from 'node:net';
import { GraphQLError, type DocumentNode, type ExecutionResult } from 'graphql';
import { type Authenticate, type RequestAccess } from '../auth/access.js';
import { CODE, unauthenticatedRequest } from '../errors.js';
import type { ExecutedOperation, Executor } from '../execute/executor.js';
import type { ObserveRequests } from '../execute/send/listener.js';
import type { OperationStats } from '../execute/send/operation-stats.js';
import { Canceller } from '../util/canceller.js';
import type { DocumentStore } from './documents.js';
import type { GatewayRequest } from './http-request.js';
import type { PersistedDocuments } from './persisted.js';

export interface OperationPathOptions {
  readonly executor: Executor;
  readonly documents: DocumentStore;
  readonly persisted: PersistedDocuments;
  /** With [auth]: the token check (auth/authenticate.ts). */
  readonly authenticate: Authenticate | undefined;
  /** With [tracing]: the observer of each request, told of a request refused before its document was parsed. */
  readonly observe: ObserveRequests | undefined;
}

/** A request's parameters as the entrance read them (the JSON body, or yoga's params). */
export interface OperationParams {
  readonly query?: unknown;
  readonly extensions?: unknown;
  readonly operationName?: unknown;
}

/** What an operation came to: a result for `answers` and the counts of what ran (undefined when nothing was planned). */
export interface OperationOutcome {
  readonly result: ExecutionResult;
  readonly stats: Readonly<OperationStats> | undefined;
  readonly dataJson?: string;
}

/** Steps 1 and 2: the text to run (undefined: the request has none) and who asks, or the refusal of the token. */
export type Begun =
  { readonly text: string | undefined; readonly access: RequestAccess | undefined } | { readonly refused: OperationOutcome };

/** Step 4's request: a checked document and who asks. */
export interface OperationRun {
  readonly document: DocumentNode;
  readonly operationName?: string | null;
  readonly variables?: Readonly<Record<string, unknown>> | null;
  readonly access: RequestAccess | undefined;
  /** The entrance sends the answer as JSON text (the fast path): a plain success may come as `dataJson`. */
  readonly dataAsJson?: boolean;
  /** The entrance reads the counts back through `stats(request)` (yoga, whose result processor answers). */
  readonly keepStats?: boolean;
}

/** Step 2's outcome: who asks, or the refused token's outcome. */
type Admitted = { readonly access: RequestAccess } | { readonly refused: OperationOutcome };

/** What `run` gives the fast path: an outcome to answer, yoga's turn, or nothing (the client went away). */
export type RunOutcome = OperationOutcome | typeof TO_YOGA | undefined;

/** `run`'s answer for a request yoga answers: no text (yoga says what is missing), no operation to plan, a subscription. */
export const TO_YOGA = 'yoga';

/**
 * The one operation path of the HTTP entrances (docs/hardening.md "One answer pipeline"): whichever entrance
 * read a GraphQL request, it goes through these steps in this order, and each is decided here or in
 * the one module named:
 * 1. persisted: which text runs (persisted.ts; a refusal is the coded GraphQLError it throws);
 * 2. token: who asks (`[auth]`, auth/authenticate.ts), before anything is parsed, so a bad token costs
 *    no parse; a refused token is a 401 with zero counts, and nothing runs;
 * 3. document: limits, parse and validation, once per text (documents.ts);
 * 4. execute: the executor, with the request's cancel signal (its client's connection,
 *    `cancelSignal`); its counts (OperationStats) go with the outcome, or for yoga through `stats`.
 * Then the entrance hands the outcome to `answers`. The fast path calls `run`, all four steps; yoga
 * calls the same steps from its hooks (execute-plugin.ts: `begin` in onParams, the store in onParse
 * and onValidate, `execute` as its execute).
 */
export interface OperationPath {
  begin(request: GatewayRequest, params: OperationParams): Promise<Begun>;
  /** Undefined when the client went away while it ran (nothing is to be answered). */
  execute(request: GatewayRequest, run: OperationRun): Promise<ExecutedOperation | undefined>;
  /** Steps 1 to 4 for a request whose parameters are a plain params object (the fast path). */
  run(request: GatewayRequest, params: OperationParams & Omit<OperationRun, 'document' | 'access' | 'keepStats'>): Promise<RunOutcome>;
  /** The counts of what `begin` refused or `execute` ran with `keepStats`: what yoga's answer shows. */
  stats(request: GatewayRequest): OperationStats | undefined;
}

export function createOperationPath(options: OperationPathOptions): OperationPath {
  const { executor, documents, persisted, authenticate, observe } = options;
  const statsOf = new WeakMap<GatewayRequest, OperationStats>();

  /** Step 2: who asks, or the refusal of the token (a 401 with zero counts, and its trace). */
  async function admit(request: GatewayRequest, text: string, operationName: unknown): Promise<Admitted> {
    const checked = await authenticate!(request.header('authorization'));
    if ('access' in checked) return checked;
    const stats: OperationStats = { rounds: 0, subrequests: 0, batches: 0 };
    const name = typeof operationName === 'string' ? operationName : undefined;
    observe?.({ operationName: name, operationType: undefined, document: text, header: request.header })?.ended(CODE.UNAUTHENTICATED);
    return { refused: { result: { errors: [unauthenticatedRequest(checked.refused)] }, stats } };
  }

  async function begin(request: GatewayRequest, params: OperationParams): Promise<Begun> {
    const text = persisted.resolve(params);
    if (text === undefined || !authenticate) return { text, access: undefined };
    const admitted = await admit(request, text, params.operationName);
    if (!('refused' in admitted)) return { text, access: admitted.access };
    statsOf.set(request, admitted.refused.stats!);
    return admitted;
  }

  async function execute(request: GatewayRequest, op: OperationRun): Promise<ExecutedOperation | undefined> {
    const socket = request.node.socket;
    const signal = cancelSignal(socket);
    let executed: ExecutedOperation;
    try {
      executed = await executor.execute({
        document: op.document,
        operationName: op.operationName,
        variables: op.variables,
        access: op.access,
        dataAsJson: op.dataAsJson,
        header: request.header,
        signal,
        peer: socket.remoteAddress,
      });
    } catch (err) {
      if (signal.aborted) return undefined;
      throw err;
    }
    if (op.keepStats) statsOf.set(request, executed.stats);
    return executed;
  }

  async function run(request: GatewayRequest, params: Parameters<OperationPath['run']>[1]): Promise<RunOutcome> {
    let text: string | undefined;
    try {
      text = persisted.resolve(params);
    } catch (err) {
      if (!(err instanceof GraphQLError)) throw err;
      return { result: { errors: [err] }, stats: undefined };
    }
    if (text === undefined) return TO_YOGA;
    let access: RequestAccess | undefined;
    if (authenticate) {
      const admitted = await admit(request, text, params.operationName);
      if ('refused' in admitted) return admitted.refused;
      access = admitted.access;
    }
    const prepared = documents.prepare(text);
    if (!prepared.document || prepared.errors.length > 0) return { result: { errors: prepared.errors }, stats: undefined };
    const { operationName, variables, dataAsJson } = params;
    const plan = executor.plan(prepared.document, operationName);
    if (!plan || plan.operation.operation === 'subscription') return TO_YOGA;
    return execute(request, { document: prepared.document, operationName, variables, dataAsJson, access });
  }

  return { begin, execute, run, stats: (request) => statsOf.get(request) };
}

const cancelSignals = new WeakMap<Socket, Canceller>();
/** A request adds one listener per source and round and removes them when done; more than Node's 10 at once is a leak. */
const CONNECTION_MAX_LISTENERS = 10;

/**
 * The cancel signal of an operation: it aborts when the client's connection closes, one per
 * connection, not per request. An HTTP/1.1 client can only give up on a request by closing its
 * connection, and the requests of a keep-alive connection come one after another, so the one in
 * flight is the one it cancels. Every listener a request adds to it is removed when the request is
 * done (upstream/deadline.ts, execute/send/coalesce.ts): a connection's requests never pile listeners up on it.
 */
function cancelSignal(socket: Socket): Canceller {
  let signal = cancelSignals.get(socket);
  if (!signal) {
    const canceller = new Canceller(CONNECTION_MAX_LISTENERS);
    cancelSignals.set(socket, canceller);
    socket.once('close', () => canceller.abort(new Error('the client closed the connection')));
    signal = canceller;
  }
  return signal;
}
