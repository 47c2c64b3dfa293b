import { GraphQLError, getVariableValues, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Blueprint } from '../blueprint/types.js';
import { CODE, subrequestLimit, UNCODED_ERROR } from '../errors.js';
import type { Abortable } from '../util/canceller.js';
import { buildPlan } from '../plan/build.js';
import type { Plan } from '../plan/types.js';
import { InFlight } from './send/coalesce.js';
import { BatchCollector } from './send/batch-collector.js';
import { SubrequestKeys } from './send/subrequest-keys.js';
import type { ExecutionListener, ObserveRequests, RequestObserver } from './send/listener.js';
import { runMutationFields, type MutationDeps } from './ask/mutation.js';
import { SubrequestLimitError } from './send/budget.js';
import { createCostGate, type CostGate, type CostPolicy } from './ask/cost-gate.js';
import { createDispatch, traceLayer, type DispatchDeps } from './send/dispatch.js';
import { requestState, type RequestState, type RoundDeps } from './send/request-context.js';
import { runRounds } from './ask/run-rounds.js';
import { ResponseShaper, type ShapeRequest } from './answer/shape.js';
import { presentValueErrors } from './answer/value-errors.js';
import { checkLongIntegers, checkVariables } from './ask/check-variables.js';
import { measureAnswer, ResponseLimitError, responseLimitError, WriteMeter, type AnswerLimits } from './answer/answer-size.js';
import { HeaderForwarder } from './send/forwarded-headers.js';
import type { OperationStats } from './send/operation-stats.js';
import { ResultStore } from './send/result-store.js';
import { INTERPRETED_WALKER, Lookups } from './ask/walk.js';
import { compiledWalker } from './ask/compiled-walk.js';
import type { PlanMode } from '../config/types.js';
import { unauthenticatedRequest, type Authenticate, type RequestAccess } from '../auth/access.js';
import { seedEntities } from './ask/entities.js';
import type { TraceTimes } from './answer/ftv1.js';
import { builtOnFirstCall } from '../util/built-on-first-call.js';

/** The coerced variables of an operation that declares none (graphql-js ignores any sent). */
const NO_VARIABLES: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

export interface ExecuteRequest {
  readonly document: DocumentNode;
  readonly operationName?: string | null;
  readonly variables?: Readonly<Record<string, unknown>> | null;
  /** Reads a request header (lower-case name), for forward_headers. */
  readonly header: (name: string) => string | null | undefined;
  /** Aborts when the client went away: pending subrequests are cancelled and execute() rejects with its reason. */
  readonly signal?: Abortable;
  /**
   * The entrance sends the answer as JSON: a plain success may come back as `dataJson` (written
   * straight from the fetched data, execute/answer/write-data.ts) with a result without `data`.
   */
  readonly dataAsJson?: boolean;
  /** The peer address of the connection: who the client is for `[rate_limit]` when nothing else names it. */
  readonly peer?: string;
  /** A poll's tick (gateway/live/): this field (`Type.field`) is refetched, its cache entries only revalidated. */
  readonly poll?: string;
  /** Who asks, when the entrance checked the token already (server/operation.ts); else `authenticate` checks it. */
  readonly access?: RequestAccess;
}

/** What execute() gives back: the GraphQL result and what it cost. */
export interface ExecutedOperation {
  readonly result: ExecutionResult;
  readonly stats: Readonly<OperationStats>;
  /** The response's `data` as JSON text (asked with `dataAsJson`); `result` then has no `data`. */
  readonly dataJson?: string;
}

export interface ExecutorOptions extends Omit<RoundDeps, 'listener' | 'inFlight' | 'keys' | 'dispatch' | 'collector'> {
  readonly blueprint: Blueprint;
  readonly clients: DispatchDeps['clients'];
  /** Extra dispatch layers (execute/send/dispatch.ts), such as tracing's client span. */
  readonly layers?: DispatchDeps['layers'];
  readonly listener?: ExecutionListener;
  /** Put upstream details into error extensions (debug mode). */
  readonly debugMode: boolean;
  /** With [auth]: checks the token of each request that comes without `access` first (an invalid one is a 401, nothing runs). */
  readonly authenticate?: Authenticate;
  /** With [tracing]: the observer of each request (observability/tracing.ts). */
  readonly observe?: ObserveRequests;
  /** limits.max_json_depth: deeper variables are refused before coercion. */
  readonly maxJsonDepth: number;
  /** limits.max_result_nodes and max_response_bytes: an answer over either is never shaped. */
  readonly answerLimits: AnswerLimits;
  /** The planned bound, its limit and the client budgets (execute/ask/cost-gate.ts); absent: none of them. */
  readonly cost?: Omit<CostPolicy, 'federation' | 'onRefused'>;
  /** `[gateway] plan`: 'interpreted' runs every operation through the interpreter, the reference; default compiled. */
  readonly plan?: PlanMode;
}

export interface Executor {
  execute(request: ExecuteRequest): Promise<ExecutedOperation>;
  /** The (cached) plan of an operation of a validated document. */
  plan(document: DocumentNode, operationName?: string | null): Plan | undefined;
}

/**
 * Runs validated operations round by round (docs/caching.md): the lookups reachable from
 * the data so far form a round; after the round the walk goes on into what it fetched. Then the
 * response is shaped over the fetched data. Plans are cached per document and operation name.
 * Each operation runs in three phases (OperationRunner), as graphql-js's execute does
 * (buildExecutionContext, then the operation, then the response).
 */
export function createExecutor(options: ExecutorOptions): Executor {
  const runner = new OperationRunner(options);
  return {
    execute: (request) => runner.execute(request),
    plan: (document, operationName) => runner.plan(document, operationName),
  };
}

/**
 * One executor's operations, each in three phases a request meets top to bottom:
 * - `prepare`: everything decided before anything is sent (the variables, the cost gate, the
 *   request's state: request-context.ts requestState); a refusal is the answer, and nothing runs;
 * - `fetch`: the rounds (run-rounds.ts) or a mutation's serial steps (mutation.ts);
 * - `respond`: the answer over the fetched data: written as JSON, or measured against
 *   limits.max_result_nodes and max_response_bytes and then written or shaped.
 * `run` holds them together with what surrounds them: the token check, the plan, the limits that
 * end an operation as an answer (SUBREQUEST_LIMIT, RESPONSE_LIMIT), the trace and the operation's metric.
 */
class OperationRunner {
  private readonly blueprint: Blueprint;
  private readonly answerLimits: AnswerLimits;
  private readonly debugMode: boolean;
  private readonly clientHeader: string | undefined;
  private readonly shaper: ResponseShaper;
  private readonly listener: ExecutionListener;
  private readonly deps: MutationDeps;
  private readonly costGate: CostGate | undefined;
  private readonly plans = new WeakMap<DocumentNode, Map<string, Plan | undefined>>();
  /** The plan asked last: the fast path asks for it, then execute() for the same request. */
  private last: { readonly document: DocumentNode; readonly key: string; readonly plan: Plan | undefined } | undefined;

  constructor(private readonly options: ExecutorOptions) {
    const { blueprint } = options;
    this.blueprint = blueprint;
    this.answerLimits = options.answerLimits;
    this.debugMode = options.debugMode;
    this.clientHeader = options.cost?.budgets ? options.cost.clientHeader : undefined;
    this.shaper = new ResponseShaper(blueprint, options.maxJsonDepth);
    const listener = (this.listener = options.listener ?? {});
    this.deps = {
      ...options,
      // Tracing's client span is a layer only when requests are observed: without [tracing] it is not there.
      dispatch: createDispatch({
        clients: options.clients,
        listener,
        layers: options.observe ? [traceLayer, ...(options.layers ?? [])] : options.layers,
      }),
      listener,
      inFlight: new InFlight(),
      collector: new BatchCollector(),
      keys: new SubrequestKeys(),
      anonymous: new HeaderForwarder(() => undefined),
    };
    this.costGate =
      options.cost &&
      createCostGate({
        ...options.cost,
        federation: blueprint.federation,
        onRefused: (reason) => listener.onClientRateLimited?.({ reason }),
      });
  }

  /** The (cached) plan of an operation of a validated document. */
  plan(document: DocumentNode, operationName?: string | null): Plan | undefined {
    const key = operationName ?? '';
    const last = this.last;
    if (last !== undefined && last.document === document && last.key === key) return last.plan;
    let byName = this.plans.get(document);
    if (!byName) {
      byName = new Map();
      this.plans.set(document, byName);
    }
    if (!byName.has(key)) byName.set(key, buildPlan(this.blueprint, document, operationName));
    this.last = { document, key, plan: byName.get(key) };
    return this.last.plan;
  }

  /** run() with its request observed, when requests are (tracing). */
  execute(request: ExecuteRequest): Promise<ExecutedOperation> {
    const { observe } = this.options;
    if (!observe) return this.run(request, undefined);
    const p = this.plan(request.document, request.operationName);
    const observer = observe({
      operationName: p?.operation.name?.value ?? request.operationName ?? undefined,
      operationType: p?.operation.operation,
      document: request.document,
      header: request.header,
    });
    if (!observer) return this.run(request, undefined);
    return this.run(request, observer).then(
      (executed) => {
        observer.ended(requestErrorCode(executed.result));
        return executed;
      },
      (err: unknown) => {
        observer.ended(CODE.INTERNAL_SERVER_ERROR);
        throw err;
      },
    );
  }

  /** One operation: its token checked, then prepare → fetch → respond. */
  private async run(request: ExecuteRequest, observer: RequestObserver | undefined): Promise<ExecutedOperation> {
    const started = performance.now();
    const startedAt = Date.now();
    let access = request.access;
    if (access === undefined && this.options.authenticate) {
      const checked = await this.options.authenticate(request.header('authorization') ?? undefined);
      if ('refused' in checked) return { result: { errors: [unauthenticatedRequest(checked.refused)] }, stats: noStats() };
      access = checked.access;
    }
    const p = this.plan(request.document, request.operationName);
    // A subgraph's root holds `_service` (docs/federation.md): read like any plain field.
    const root: object = this.blueprint.federation ? { _service: { sdl: this.blueprint.federation.sdl } } : {};
    if (!p) {
      // Unknown operation: graphql-js reports it precisely, and nothing is fetched.
      const result = await this.shaper.shape(request, root, { store: new ResultStore(), debugMode: this.debugMode });
      return { result, stats: noStats() };
    }
    const state = this.prepare(request, p, access, observer);
    if (!isState(state)) return state;
    let executed: ExecutedOperation;
    try {
      await this.fetch(p, root, state);
      const answered = this.respond(request, p, root, state);
      executed = answered instanceof Promise ? await answered : answered;
      if (state.roundEnds)
        executed = await traced(executed, p, { startedAt, started, roundEnds: state.roundEnds, ended: performance.now() });
    } catch (err) {
      executed = { result: limitAnswer(err), stats: state.stats, dataJson: undefined };
    }
    this.listener.onOperation?.({
      operationName: p.operation.name?.value ?? 'anonymous',
      durationMs: performance.now() - started,
      rounds: state.stats.rounds,
      subrequests: state.stats.subrequests,
      batches: state.stats.batches,
    });
    return executed;
  }

  /**
   * Phase 1, before anything is sent (graphql-js's buildExecutionContext): the coerced variables,
   * the cost gate's verdict, then the request's state; or the answer refusing it (its errors).
   */
  private prepare(
    request: ExecuteRequest,
    p: Plan,
    access: RequestAccess | undefined,
    observer: RequestObserver | undefined,
  ): RequestState | ExecutedOperation {
    const stats = noStats();
    const variables = this.variablesOf(request, p);
    if (refusedVariables(variables)) return { result: { errors: variables }, stats };
    if (this.costGate) {
      const clientHeader = this.clientHeader;
      const client = { claims: access?.claims, header: clientHeader && request.header(clientHeader), peer: request.peer };
      const verdict = this.costGate.admit(p, variables, client);
      stats.cost = verdict.cost;
      if (verdict.refused) return { result: { errors: [verdict.refused] }, stats };
    }
    return requestState(this.deps, stats, {
      variables,
      forwarder: new HeaderForwarder(request.header, access?.claims),
      access,
      coalesce: p.operation.operation !== 'mutation',
      signal: request.signal,
      poll: request.poll,
      observer,
      warns: this.debugMode,
      // A router asks a subgraph for its federated trace (docs/federation.md).
      traced: this.blueprint.federation !== undefined && request.header(FTV1_HEADER) === 'ftv1',
    });
  }

  /** The operation's coerced variables, or the errors refusing them (limits.max_json_depth, long integers, coercion). */
  private variablesOf(request: ExecuteRequest, p: Plan): Record<string, unknown> | readonly GraphQLError[] {
    const definitions = p.operation.variableDefinitions ?? [];
    if (definitions.length === 0) return NO_VARIABLES;
    const sent = request.variables;
    const refused = sent ? (checkVariables(sent, this.options.maxJsonDepth) ?? checkLongIntegers(definitions, sent)) : undefined;
    if (refused) return [refused];
    const read = sent ? p.variables?.(sent) : undefined;
    if (read) return read;
    const coerced = getVariableValues(this.blueprint.schema, definitions, (sent ?? {}) as Record<string, unknown>);
    return coerced.errors ?? coerced.coerced;
  }

  /** Phase 2: the rounds of a query (from the root's lookups), or a mutation's serial steps. */
  private fetch(p: Plan, root: object, state: RequestState): Promise<void> {
    if (p.operation.operation === 'mutation') return runMutationFields(p.root, root, state, this.deps);
    const walk = { variables: state.variables, store: state.store, out: new Lookups(), access: state.access };
    if (this.blueprint.federation) seedEntities(p.root, root, { blueprint: this.blueprint, state, walk });
    // The walk compiled for this plan, or the interpreter, the reference ([gateway] plan).
    const walker = this.options.plan === 'interpreted' ? INTERPRETED_WALKER : compiledWalker(p);
    walker.collect(p.root, root, p.rootType, walk);
    return runRounds(walk.out, state, this.deps, walker);
  }

  /**
   * Phase 3: the answer. A plain success the data writer writes within its meter needs no
   * measuring walk (answer-size.ts WriteMeter); anything else is measured first, and a write the
   * meter stopped is written again once the walk has let the answer through. A completed object
   * is read through the store (ResultStore.completedValue), which the writer does not do.
   */
  private respond(request: ExecuteRequest, p: Plan, root: object, state: RequestState): ExecutedOperation | Promise<ExecutedOperation> {
    // The coerced variables: defaults of omitted variables applied once, as the GraphQL spec says.
    const shapeRequest: ShapeRequest = { document: request.document, operationName: request.operationName, variables: state.variables };
    if (request.dataAsJson !== true || state.store.hasCompletions || state.roundEnds)
      return this.measureThenShape(shapeRequest, p, root, state);
    const meter = WriteMeter.within(this.answerLimits);
    const written = this.shaper.writeData(shapeRequest, root, state.store, meter);
    if (meter.passes(written)) return answer({}, state, written);
    if (written !== undefined || meter.stopped) return this.measureThenWrite(shapeRequest, p, root, state);
    return this.measureThenShape(shapeRequest, p, root, state);
  }

  /** The answer written unbounded once the measuring walk let it through (it throws ResponseLimitError when over). */
  private async measureThenWrite(shapeRequest: ShapeRequest, p: Plan, root: object, state: RequestState): Promise<ExecutedOperation> {
    const measuring = this.measure(p, root, state);
    if (measuring) await measuring;
    const dataJson = this.shaper.writeData(shapeRequest, root, state.store, WriteMeter.unbounded());
    return dataJson !== undefined ? answer({}, state, dataJson) : this.shaped(shapeRequest, p, root, state);
  }

  /** The answer shaped once the measuring walk let it through (it throws ResponseLimitError when over). */
  private async measureThenShape(shapeRequest: ShapeRequest, p: Plan, root: object, state: RequestState): Promise<ExecutedOperation> {
    const measuring = this.measure(p, root, state);
    if (measuring) await measuring;
    return this.shaped(shapeRequest, p, root, state);
  }

  /** limits.max_result_nodes and max_response_bytes over the fetched data (answer-size.ts). */
  private measure(p: Plan, root: object, state: RequestState): Promise<void> | undefined {
    return measureAnswer({ selection: p.root, value: root, typeName: p.rootType }, state.store, state.variables, this.answerLimits);
  }

  /** The response shaped by graphql-js (or graphql-jit) over the fetched data, its value errors presented. */
  private async shaped(shapeRequest: ShapeRequest, p: Plan, root: object, state: RequestState): Promise<ExecutedOperation> {
    const result = await this.shaper.shape(shapeRequest, root, { store: state.store, debugMode: this.debugMode });
    return answer(presentValueErrors(result, p, this.blueprint, this.debugMode), state, undefined);
  }
}

/** Whether prepare() gave the request's state (else the answer that refused it). */
function isState(prepared: RequestState | ExecutedOperation): prepared is RequestState {
  return !('result' in prepared);
}

/** Whether variablesOf() gave the errors refusing the variables (coerced variables are never an array). */
function refusedVariables(variables: Record<string, unknown> | readonly GraphQLError[]): variables is readonly GraphQLError[] {
  return Array.isArray(variables);
}

function noStats(): OperationStats {
  return { rounds: 0, subrequests: 0, batches: 0 };
}

/** The executed operation: `result`, with the request's warnings (debug mode) unless a trace is asked for. */
function answer(result: ExecutionResult, state: RequestState, dataJson: string | undefined): ExecutedOperation {
  const { warnings } = state;
  if (!state.roundEnds && warnings && warnings.length > 0) result = { ...result, extensions: { ...result.extensions, warnings } };
  return { result, stats: state.stats, dataJson };
}

/** The request header by which a router asks a subgraph for its federated trace. */
const FTV1_HEADER = 'apollo-federation-include-trace';

/**
 * The answer with its federated trace (docs/federation.md): `extensions` holds the trace and nothing
 * else. The trace's protobuf encoding is imported on the first request that asks for one.
 */
const traced = builtOnFirstCall(async () => {
  const { ftv1Trace } = await import('./answer/ftv1.js');
  return async (executed: ExecutedOperation, p: Plan, times: TraceTimes): Promise<ExecutedOperation> => {
    const { result } = executed;
    return { result: { ...result, extensions: { ftv1: ftv1Trace(p, result, times) } }, stats: executed.stats, dataJson: executed.dataJson };
  };
});

/** The answer of an operation a limit ended (SUBREQUEST_LIMIT, RESPONSE_LIMIT); anything else is rethrown. */
function limitAnswer(err: unknown): ExecutionResult {
  if (err instanceof ResponseLimitError) return { errors: [responseLimitError(err)] };
  if (err instanceof SubrequestLimitError) {
    return { errors: [subrequestLimit(err.message, err.limit)] };
  }
  throw err;
}

/** The code of a request error (a result with errors and no data), else undefined. */
function requestErrorCode(result: ExecutionResult): string | undefined {
  if (!result.errors?.length || result.data !== undefined || !('errors' in result)) return undefined;
  const code = result.errors[0]!.extensions?.code;
  return typeof code === 'string' ? code : UNCODED_ERROR;
}
