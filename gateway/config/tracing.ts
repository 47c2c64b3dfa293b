import type { TableReader } from './table-reader.js';
import type { TracingConfig } from './types.js';

export const TRACING_DEFAULTS = {
  otlpEndpoint: 'http://127.0.0.1:4318/v1/traces',
  protocol: 'http/protobuf',
  serviceName: 'gqlgw',
  sampleRatio: 1.0,
  maxQueueSpans: 2048,
  maxBatchSpans: 512,
  exportTimeoutMs: 10_000,
  exportDelayMs: 1000,
} as const;

/** Reads `[tracing]` (docs/observability.md); undefined when the table is absent: tracing is off. */
export function readTracing(t: TableReader | undefined): TracingConfig | undefined {
  if (!t) return undefined;
  const otlpEndpoint = t.string('otlp_endpoint', TRACING_DEFAULTS.otlpEndpoint, checkEndpoint);
  const protocol = t.string('protocol', TRACING_DEFAULTS.protocol, (v) =>
    v === 'http/protobuf' || v === 'http/json' ? undefined : `must be "http/protobuf" or "http/json", found "${v}"`,
  ) as TracingConfig['protocol'];
  const serviceName = t.string('service_name', TRACING_DEFAULTS.serviceName, (v) => (v === '' ? 'must not be empty' : undefined));
  const sampleRatio = t.number('sample_ratio', TRACING_DEFAULTS.sampleRatio, 0, 1);
  const maxQueueSpans = t.int('max_queue_spans', TRACING_DEFAULTS.maxQueueSpans, 1, 1_000_000);
  const maxBatchSpans = t.int('max_batch_spans', TRACING_DEFAULTS.maxBatchSpans, 1, 100_000);
  const exportTimeoutMs = t.int('export_timeout_ms', TRACING_DEFAULTS.exportTimeoutMs, 1, 600_000);
  const exportDelayMs = t.int('export_delay_ms', TRACING_DEFAULTS.exportDelayMs, 0, 600_000);
  t.finish();
  return Object.freeze({ otlpEndpoint, protocol, serviceName, sampleRatio, maxQueueSpans, maxBatchSpans, exportTimeoutMs, exportDelayMs });
}

function checkEndpoint(v: string): string | undefined {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : `must be an http:// or https:// URL, found "${v}"`;
  } catch {
    return `must be an absolute URL such as "http://127.0.0.1:4318/v1/traces", found "${v}"`;
  }
}
