import { createHash } from 'node:crypto';
import { print, type DocumentNode } from 'graphql';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { Blueprint } from '../blueprint/types.js';
import type { TracingConfig } from '../config/types.js';
import type { SharedCall } from '../execute/send/coalesce.js';
import type {
  CacheEvent,
  ObserveRequests,
  ObservedSubrequest,
  RequestObserver,
  RequestStart,
  SubrequestStart,
} from '../execute/send/listener.js';
import type { UpstreamOutcome } from '../upstream/outcome.js';

/**
 * OpenTelemetry traces of GraphQL requests (docs/observability.md), exported over OTLP/HTTP. This module
 * is the only one that imports OpenTelemetry, and the server imports it dynamically, only with
 * `[tracing]`: without it nothing of OpenTelemetry is loaded and the executor observes nothing.
 *
 * Per request: a SERVER span for the operation (continuing an incoming `traceparent`), a child
 * `gqlgw.round` per round, a CLIENT span per subrequest under its round, each subrequest sent with
 * its own `traceparent`; a lookup a cache tier answered is a `gqlgw.cache.hit` event on its round.
 * A call shared by coalescing links the round of every request that waited for it. Finished spans
 * wait in a bounded queue (BoundedExport): export never blocks or fails a request, and what does not
 * fit or fails to export is counted as dropped.
 */
export interface Tracing {
  /** The request observers of a blueprint's executor. */
  observe(blueprint: Blueprint): ObserveRequests;
  /** Exports what is queued (within the export timeout) and stops. */
  shutdown(): Promise<void>;
}

export function createTracing(config: TracingConfig, onDropped: (spans: number) => void): Tracing {
  const exporterOptions = { url: config.otlpEndpoint, timeoutMillis: config.exportTimeoutMs };
  const exporter: SpanExporter =
    config.protocol === 'http/json' ? new JsonExporter(exporterOptions) : new ProtobufExporter(exporterOptions);
  const processor = new BoundedExport(exporter, config, onDropped);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) }),
    spanProcessors: [processor],
  });
  const tracer = provider.getTracer('gqlgw');
  const shared: SharedSpans = { spans: new WeakMap(), pending: new WeakMap() };
  const hashes = new WeakMap<DocumentNode, string>();
  const hashOf = (document: DocumentNode | string): string => {
    if (typeof document === 'string') return createHash('sha256').update(document).digest('hex');
    let hash = hashes.get(document);
    if (hash === undefined) {
      hash = createHash('sha256')
        .update(document.loc?.source.body ?? print(document))
        .digest('hex');
      hashes.set(document, hash);
    }
    return hash;
  };
  return {
    observe(blueprint) {
      const shownPaths = claimFreePaths(blueprint);
      return (start) => new RequestTrace(tracer, { start, hash: hashOf(start.document), shownPaths, shared });
    },
    async shutdown() {
      await provider.shutdown().catch(() => undefined);
    },
  };
}

/**
 * The spans of calls other requests may join, and the links waiting for a call whose span has not
 * started yet. Weak: a call is forgotten with its last request.
 */
interface SharedSpans {
  readonly spans: WeakMap<SharedCall, Span>;
  readonly pending: WeakMap<SharedCall, Link[]>;
}

/**
 * Per coordinate, the path shown in `url.path` for a field whose path reads claims: the template's
 * path part as written (`/users/{auth.sub}`), so no claim reaches a span.
 */
function claimFreePaths(blueprint: Blueprint): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const [coordinate, field] of blueprint.fields) {
    const fetch = field.fetch;
    if (fetch && fetch.template.placeholders.some((p) => p.kind === 'auth')) out.set(coordinate, fetch.template.text.split('?')[0]!);
  }
  return out;
}

const propagator = new W3CTraceContextPropagator();
const getter: TextMapGetter<RequestStart['header']> = {
  keys: () => ['traceparent', 'tracestate'],
  get: (header, key) => header(key) ?? undefined,
};
const setter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/** The W3C headers that carry `span`'s context to a source. */
function traceHeaders(span: Span): Record<string, string> {
  const headers: Record<string, string> = {};
  propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, setter);
  return headers;
}

/** The span status code of a failed subrequest's outcome. */
function failedCode(outcome: UpstreamOutcome): string | undefined {
  return outcome.kind === 'error' ? outcome.error.code : undefined;
}

/** The HTTP status an answer had: 2xx answers are recorded as 200 (the outcome keeps no status). */
function statusOf(answer: UpstreamOutcome): number | undefined {
  if (answer.kind === 'ok') return 200;
  if (answer.kind === 'not-found') return 404;
  return answer.error.status;
}

/** One request's spans: its server span, the round open now, and its client spans. */
class RequestTrace implements RequestObserver {
  private readonly server: Span;
  private readonly context: Context;
  private round: Span | undefined;
  private roundContext: Context | undefined;
  /** Calls this request already linked itself to (once per call, however many of its keys it waits for). */
  private linked: Set<SharedCall> | undefined;

  constructor(
    private readonly tracer: Tracer,
    private readonly request: {
      readonly start: RequestStart;
      readonly hash: string;
      readonly shownPaths: ReadonlyMap<string, string>;
      readonly shared: SharedSpans;
    },
  ) {
    const { start, hash } = request;
    const parent = propagator.extract(ROOT_CONTEXT, start.header, getter);
    const type = start.operationType ?? 'query';
    const attributes: Attributes = { 'graphql.operation.type': type, 'gqlgw.document.hash': hash };
    if (start.operationName !== undefined) attributes['graphql.operation.name'] = start.operationName;
    const name = start.operationName === undefined ? type : `${type} ${start.operationName}`;
    this.server = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    this.context = trace.setSpan(parent, this.server);
  }

  roundStarted(index: number, lookups: number): void {
    this.roundEnded();
    this.round = this.tracer.startSpan(
      'gqlgw.round',
      { kind: SpanKind.INTERNAL, attributes: { 'gqlgw.round.index': index, 'gqlgw.round.lookups': lookups } },
      this.context,
    );
    this.roundContext = trace.setSpan(this.context, this.round);
  }

  roundEnded(): void {
    this.round?.end();
    this.round = undefined;
    this.roundContext = undefined;
  }

  cacheHits(event: CacheEvent): void {
    const round = this.round;
    if (!round || !round.isRecording()) return;
    const attributes = { 'gqlgw.cache.tier': event.tier, 'gqlgw.coordinate': event.coordinate, 'gqlgw.source': event.source };
    const n = event.count ?? 1;
    for (let i = 0; i < n; i++) round.addEvent('gqlgw.cache.hit', attributes);
  }

  subrequest(start: SubrequestStart, call: SharedCall | undefined): ObservedSubrequest {
    const path = this.request.shownPaths.get(start.coordinate) ?? start.path.split('?')[0]!;
    const attributes: Attributes = {
      'http.request.method': start.method,
      'url.path': path,
      'gqlgw.coordinate': start.coordinate,
      'gqlgw.source': start.source,
    };
    if (start.batchSize !== undefined) attributes['gqlgw.batch.size'] = start.batchSize;
    const span = this.tracer.startSpan(
      `${start.method} ${start.source}`,
      { kind: SpanKind.CLIENT, attributes },
      this.roundContext ?? this.context,
    );
    if (call) {
      const { spans, pending } = this.request.shared;
      spans.set(call, span);
      const links = pending.get(call);
      if (links) {
        span.addLinks(links);
        pending.delete(call);
      }
    }
    return {
      headers: traceHeaders(span),
      end(answer, outcome) {
        if (answer) {
          const status = statusOf(answer);
          if (status !== undefined) span.setAttribute('http.response.status_code', status);
        }
        const code = outcome ? failedCode(outcome) : 'CANCELLED';
        if (code !== undefined) {
          span.setAttribute('error.type', code);
          span.setStatus({ code: SpanStatusCode.ERROR, message: code });
        }
        span.end();
      },
    };
  }

  joined(call: SharedCall): void {
    this.linked ??= new Set();
    if (this.linked.has(call)) return;
    this.linked.add(call);
    const link: Link = { context: (this.round ?? this.server).spanContext(), attributes: { 'gqlgw.link': 'coalesced' } };
    const { spans, pending } = this.request.shared;
    const span = spans.get(call);
    if (span) span.addLink(link);
    else pending.set(call, [...(pending.get(call) ?? []), link]);
  }

  ended(errorCode: string | undefined): void {
    this.roundEnded();
    if (errorCode !== undefined) {
      this.server.setAttribute('error.type', errorCode);
      this.server.setStatus({ code: SpanStatusCode.ERROR, message: errorCode });
    }
    this.server.end();
  }
}

/**
 * The exporter's queue: at most `max_queue_spans` finished spans wait; one export request (of at
 * most `max_batch_spans`) is in flight at a time, sent once `export_delay_ms` passed or a batch is
 * full. A span that finds the queue full, and every span of an export that failed or did not answer
 * within its timeout, is dropped and counted. Nothing here waits for the collector on a request's path.
 */
/** How long a shutdown waits for queued spans to be exported. */
const SHUTDOWN_FLUSH_MS = 2000;

export class BoundedExport implements SpanProcessor {
  private queue: ReadableSpan[] = [];
  private exporting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly config: Pick<TracingConfig, 'maxQueueSpans' | 'maxBatchSpans' | 'exportDelayMs' | 'exportTimeoutMs'>,
    private readonly onDropped: (spans: number) => void,
  ) {}

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.queue.length >= this.config.maxQueueSpans) {
      this.onDropped(1);
      return;
    }
    this.queue.push(span);
    this.schedule(this.queue.length >= this.config.maxBatchSpans ? 0 : this.config.exportDelayMs);
  }

  private schedule(delayMs: number): void {
    if (this.exporting) return; // the export in flight schedules the next one
    if (this.timer) {
      if (delayMs > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.exportNext();
    }, delayMs);
    this.timer.unref();
  }

  /** Sends the next batch; resolves when it is answered, failed or timed out (never rejects). */
  private exportNext(): Promise<void> {
    if (this.exporting || this.queue.length === 0) return this.exporting ?? Promise.resolve();
    const batch = this.queue.splice(0, this.config.maxBatchSpans);
    this.exporting = new Promise<void>((resolve) => {
      let done = false;
      const finish = (ok: boolean): void => {
        if (done) return;
        done = true;
        clearTimeout(guard);
        if (!ok) this.onDropped(batch.length);
        this.exporting = undefined;
        if (this.queue.length > 0) this.schedule(this.queue.length >= this.config.maxBatchSpans ? 0 : this.config.exportDelayMs);
        resolve();
      };
      // The exporter times out itself; this bounds an exporter that never calls back.
      const guard = setTimeout(() => finish(false), this.config.exportTimeoutMs + 1000);
      guard.unref();
      try {
        this.exporter.export(batch, (result) => finish(result.code === ExportResultCode.SUCCESS));
      } catch {
        finish(false);
      }
    });
    return this.exporting;
  }

  async forceFlush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // Each round exports or drops at least one span: this ends.
    while (this.exporting || this.queue.length > 0) await (this.exporting ?? this.exportNext());
  }

  /**
   * Exports what is queued for at most SHUTDOWN_FLUSH_MS (a collector that is down or hangs must not
   * hold the gateway's exit), then drops and counts the rest.
   */
  async shutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.min(SHUTDOWN_FLUSH_MS, this.config.exportTimeoutMs));
    });
    await Promise.race([this.forceFlush(), late]);
    clearTimeout(timer);
    if (this.queue.length > 0) this.onDropped(this.queue.length);
    this.queue = [];
    void this.exporter.shutdown().catch(() => undefined);
  }
}
