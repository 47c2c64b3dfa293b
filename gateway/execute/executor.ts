import { GraphQLError, getVariableValues, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Blueprint } from '../blueprint/types.js';
import type { Abortable } from '../upstream/canceller.js';
import { ByteBudget } from '../upstream/byte-budget.js';
import { buildPlan } from '../plan/build.js';
import type { Plan } from '../plan/types.js';
import { InFlight } from './coalesce.js';
import { BatchCollector } from './batch-collector.js';
import { SubrequestKeys } from './subrequest-keys.js';
import type { ExecutionListener, ObserveRequests, RequestObserver } from './listener.js';
import { runMutationFields, type MutationDeps } from './mutation.js';
import { SubrequestBudget, SubrequestLimitError } from './budget.js';
import { createCostGate, type CostPolicy } from './cost-gate.js';
import { createDispatch, traceLayer, type DispatchDeps } from './dispatch.js';
import type { RequestState, RoundDeps } from './request-context.js';
import { runRounds } from './run-rounds.js';
import { ResponseShaper } from './shape.js';
import { presentValueErrors } from './value-errors.js';
import { checkLongIntegers, checkVariables } from './check-variables.js';
import { measureAnswer, ResponseLimitError, responseLimitError, WriteMeter, type AnswerLimits } from './answer-size.js';
import { HeaderForwarder } from './forwarded-headers.js';
import type { OperationStats } from './operation-stats.js';
import { ResultStore } from './result-store.js';
import { collectLookups, Lookups } from './walk.js';
import { unauthenticatedRequest, type Authenticate, type RequestAccess } from '../auth/access.js';
import { seedEntities } from './entities.js';
import { FirstKeyMap } from './first-key-map.js';
import { FTV1_HEADER, ftv1Trace } from './ftv1.js';

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
   * straight from the fetched data, execute/write-data.ts) with a result without `data`.
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
  /** Extra dispatch layers (execute/dispatch.ts), such as tracing's client span. */
  readonly layers?: DispatchDeps['layers'];
  readonly listener?: ExecutionListener;
  /** Put upstream details into error extensions (debug mode). */
  readonly debugHeaders: boolean;
  /** With [auth]: checks the token of each request that comes without `access` first (an invalid one is a 401, nothing runs). */
  readonly authenticate?: Authenticate;
  /** With [tracing]: the observer of each request (observability/tracing.ts). */
  readonly observe?: ObserveRequests;
  /** limits.max_json_depth: deeper variables are refused before coercion. */
  readonly maxJsonDepth: number;
  /** limits.max_operation_upstream_bytes: the body bytes one operation may take from its sources. */
  readonly maxOperationUpstreamBytes: number;
  /** limits.max_result_nodes and max_response_bytes: an answer over either is never shaped. */
  readonly answerLimits: AnswerLimits;
  /** The planned bound, its limit and the client budgets (execute/cost-gate.ts); absent: none of them. */
  readonly cost?: Omit<CostPolicy, 'federation' | 'onRefused'>;
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
 */
export function createExecutor(options: ExecutorOptions): Executor {
  const { blueprint, answerLimits } = options;
  const clientHeader = options.cost?.budgets ? options.cost.clientHeader : undefined;
  const shaper = new ResponseShaper(blueprint, options.maxJsonDepth);
  const listener = options.listener ?? {};
  const deps: MutationDeps = {
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
  const plans = new WeakMap<DocumentNode, Map<string, Plan | undefined>>();
  const costGate =
    options.cost &&
    createCostGate({
      ...options.cost,
      federation: blueprint.federation,
      onRefused: (reason) => listener.onClientRateLimited?.({ reason }),
    });

  // The plan asked last: the fast path asks for it, then execute() for the same request.
  let last: { readonly document: DocumentNode; readonly key: string; readonly plan: Plan | undefined } | undefined;

  function plan(document: DocumentNode, operationName?: string | null): Plan | undefined {
    if (last !== undefined && last.document === document && last.key === (operationName ?? '')) return last.plan;
    let byName = plans.get(document);
    if (!byName) {
      byName = new Map();
      plans.set(document, byName);
    }
    const key = operationName ?? '';
    if (!byName.has(key)) byName.set(key, buildPlan(blueprint, document, operationName));
    last = { document, key, plan: byName.get(key) };
    return last.plan;
  }

  /** execute() with its request observed, when requests are (tracing). */
  function execute(request: ExecuteRequest): Promise<ExecutedOperation> {
    if (!options.observe) return run(request, undefined);
    const p = plan(request.document, request.operationName);
    const observer = options.observe({
      operationName: p?.operation.name?.value ?? request.operationName ?? undefined,
      operationType: p?.operation.operation,
      document: request.document,
      header: request.header,
    });
    if (!observer) return run(request, undefined);
    return run(request, observer).then(
      (executed) => {
        observer.ended(requestErrorCode(executed.result));
        return executed;
      },
      (err: unknown) => {
        observer.ended('INTERNAL_SERVER_ERROR');
        throw err;
      },
    );
  }

  async function run(request: ExecuteRequest, observer: RequestObserver | undefined): Promise<ExecutedOperation> {
    const started = performance.now();
    const startedAt = Date.now();
    const stats: OperationStats = { rounds: 0, subrequests: 0, batches: 0 };
    let access = request.access;
    if (access === undefined && options.authenticate) {
      const checked = await options.authenticate(request.header('authorization') ?? undefined);
      if ('refused' in checked) return { result: { errors: [unauthenticatedRequest(checked.refused)] }, stats };
      access = checked.access;
    }
    const p = plan(request.document, request.operationName);
    // A subgraph's root holds `_service` (docs/federation.md): read like any plain field.
    const root: object = blueprint.federation ? { _service: { sdl: blueprint.federation.sdl } } : {};
    const store = new ResultStore();
    let result: ExecutionResult;
    let dataJson: string | undefined;
    if (!p) {
      // Unknown operation: graphql-js reports it precisely, and nothing is fetched.
      result = await shaper.shape(request, root, { store, debugHeaders: options.debugHeaders });
      return { result, stats };
    }
    // A router asks a subgraph for its federated trace (docs/federation.md).
    const tracing = blueprint.federation !== undefined && request.header(FTV1_HEADER) === 'ftv1';
    const definitions = p.operation.variableDefinitions ?? [];
    let variables: Record<string, unknown> = NO_VARIABLES;
    if (definitions.length > 0) {
      const refused = request.variables
        ? (checkVariables(request.variables, options.maxJsonDepth) ?? checkLongIntegers(definitions, request.variables))
        : undefined;
      if (refused) return { result: { errors: [refused] }, stats };
      const read = request.variables ? p.variables?.(request.variables) : undefined;
      if (read) {
        variables = read;
      } else {
        const coerced = getVariableValues(blueprint.schema, definitions, (request.variables ?? {}) as Record<string, unknown>);
        if (coerced.errors) return { result: { errors: coerced.errors }, stats };
        variables = coerced.coerced;
      }
    }
    if (costGate) {
      const client = { claims: access?.claims, header: clientHeader && request.header(clientHeader), peer: request.peer };
      const verdict = costGate.admit(p, variables, client);
      stats.cost = verdict.cost;
      if (verdict.refused) return { result: { errors: [verdict.refused] }, stats };
    }
    const state: RequestState = {
      variables,
      store,
      memo: new Map(),
      stats,
      budget: new SubrequestBudget(stats, options.maxSubrequests),
      forwarder: new HeaderForwarder(request.header, access?.claims),
      args: new FirstKeyMap(),
      signal: request.signal,
      warnings: options.debugHeaders ? [] : undefined,
      coalesce: p.operation.operation !== 'mutation',
      poll: request.poll,
      access,
      observer,
      roundEnds: tracing ? [] : undefined,
      upstreamBytes: new ByteBudget(options.maxOperationUpstreamBytes),
    };
    try {
      if (p.operation.operation === 'mutation') {
        await runMutationFields(p.root, root, state, deps);
      } else {
        const walk = { variables, store, out: new Lookups(), access };
        if (blueprint.federation) seedEntities(p.root, root, { blueprint, state, walk });
        collectLookups(p.root, root, p.rootType, walk);
        await runRounds(walk.out, state, deps);
      }
      // The coerced variables: defaults of omitted variables applied once, as the GraphQL spec says.
      const shapeRequest = { document: request.document, operationName: request.operationName, variables };
      // A plain success the data writer writes within its meter needs no measuring walk
      // (answer-size.ts WriteMeter); anything else is measured first, and a write the meter stopped
      // is written again once the walk has let the answer through. A completed object is read
      // through the store (ResultStore.completedValue), which the writer does not do.
      const writes = request.dataAsJson === true && !store.hasCompletions && !tracing;
      let writeAgain = false;
      if (writes) {
        const meter = WriteMeter.within(answerLimits);
        const written = shaper.writeData(shapeRequest, root, store, meter);
        if (meter.passes(written)) dataJson = written;
        else writeAgain = written !== undefined || meter.stopped;
      }
      if (dataJson === undefined) {
        const measuring = measureAnswer({ selection: p.root, value: root, typeName: p.rootType }, store, variables, answerLimits);
        if (measuring) await measuring;
        if (writeAgain) dataJson = shaper.writeData(shapeRequest, root, store, WriteMeter.unbounded());
      }
      if (dataJson !== undefined) {
        result = {};
      } else {
        result = await shaper.shape(shapeRequest, root, { store, debugHeaders: options.debugHeaders });
        result = presentValueErrors(result, p, blueprint, options.debugHeaders);
      }
      if (tracing) {
        // `extensions` holds the trace and nothing else.
        const times = { startedAt, started, roundEnds: state.roundEnds ?? [], ended: performance.now() };
        result = { ...result, extensions: { ftv1: ftv1Trace(p, result, times) } };
      } else if (state.warnings && state.warnings.length > 0)
        result = { ...result, extensions: { ...result.extensions, warnings: state.warnings } };
    } catch (err) {
      if (err instanceof ResponseLimitError) {
        result = { errors: [responseLimitError(err)] };
      } else if (err instanceof SubrequestLimitError) {
        result = { errors: [new GraphQLError(err.message, { extensions: { code: 'SUBREQUEST_LIMIT', limit: err.limit } })] };
      } else {
        throw err;
      }
    }
    listener.onOperation?.({
      operationName: p.operation.name?.value ?? 'anonymous',
      durationMs: performance.now() - started,
      rounds: stats.rounds,
      subrequests: stats.subrequests,
      batches: stats.batches,
    });
    return { result, stats, dataJson };
  }

  return { execute, plan };
}

/** The code of a request error (a result with errors and no data), else undefined. */
function requestErrorCode(result: ExecutionResult): string | undefined {
  if (!result.errors?.length || result.data !== undefined || !('errors' in result)) return undefined;
  const code = result.errors[0]!.extensions?.code;
  return typeof code === 'string' ? code : 'GRAPHQL_ERROR';
}
