/**
 * A local OTLP/HTTP trace receiver on 127.0.0.1 for tracing tests: accepts `POST /v1/traces` as
 * protobuf (`application/x-protobuf`, decoded here with a small wire-format reader) or JSON
 * (`application/json`), and keeps every span it received in one plain shape. `mode = 'hang'`
 * accepts requests and never answers (a collector that hangs).
 *
 *   const otlp = await startOtlpReceiver();
 *   // [tracing] otlp_endpoint = otlp.url
 *   const spans = await otlp.waitForSpans((s) => s.filter((x) => x.traceId === id).length >= 5);
 */
import http from 'node:http';
import { listenLocal } from './listen.js';
import { until } from './wait.js';

export type AttributeValue = string | number | boolean;

export interface ReceivedSpan {
  /** Lower-case hex. */
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly events: ReadonlyArray<{ readonly name: string; readonly attributes: Readonly<Record<string, AttributeValue>> }>;
  readonly links: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>;
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: number; readonly message: string };
  /** The resource's service.name. */
  readonly service: string;
}

export interface OtlpReceiver {
  /** http://127.0.0.1:PORT/v1/traces */
  readonly url: string;
  readonly spans: readonly ReceivedSpan[];
  /** Export requests received, by content type. */
  readonly requests: ReadonlyArray<{ readonly contentType: string; readonly bytes: number }>;
  /** The raw bodies received (to search for what must never be exported). */
  readonly bodies: readonly Buffer[];
  mode: 'ok' | 'hang';
  waitForSpans(done: (spans: readonly ReceivedSpan[]) => boolean, what: string, limitMs?: number): Promise<readonly ReceivedSpan[]>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: Array<{ contentType: string; bytes: number }> = [];
  const bodies: Buffer[] = [];
  const state = { mode: 'ok' as 'ok' | 'hang' };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (state.mode === 'hang') return; // never answers; the socket is destroyed on close()
      const body = Buffer.concat(chunks);
      const contentType = String(req.headers['content-type'] ?? '');
      requests.push({ contentType, bytes: body.length });
      bodies.push(body);
      try {
        spans.push(...(contentType.includes('json') ? fromJson(JSON.parse(body.toString('utf8'))) : fromProtobuf(body)));
      } catch (err) {
        res.writeHead(400).end(String(err));
        return;
      }
      const json = contentType.includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
    });
  });
  const port = await listenLocal(server);
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    requests,
    bodies,
    get mode() {
      return state.mode;
    },
    set mode(m) {
      state.mode = m;
    },
    async waitForSpans(done, what, limitMs = 5000) {
      await until(() => done(spans), what, limitMs);
      return spans;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// --- OTLP/JSON ---------------------------------------------------------------------------------

interface JsonKeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}

/** OTLP/JSON ids are hex strings (the SDK may also write base64: both are accepted). */
function jsonId(v: unknown): string {
  if (typeof v !== 'string' || v === '') return '';
  return /^[0-9a-f]+$/i.test(v) ? v.toLowerCase() : Buffer.from(v, 'base64').toString('hex');
}

function fromJson(body: {
  resourceSpans?: Array<{
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }>;
  }>;
}): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const service = String(jsonAttributes(rs.resource?.attributes)['service.name'] ?? '');
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        const status = (s.status ?? {}) as { code?: number; message?: string };
        out.push({
          traceId: jsonId(s.traceId),
          spanId: jsonId(s.spanId),
          parentSpanId: jsonId(s.parentSpanId),
          name: String(s.name),
          kind: Number(s.kind ?? 0),
          attributes: jsonAttributes(s.attributes as JsonKeyValue[]),
          events: ((s.events ?? []) as Array<{ name: string; attributes?: JsonKeyValue[] }>).map((e) => ({
            name: e.name,
            attributes: jsonAttributes(e.attributes),
          })),
          links: ((s.links ?? []) as Array<{ traceId: string; spanId: string }>).map((l) => ({
            traceId: jsonId(l.traceId),
            spanId: jsonId(l.spanId),
          })),
          status: { code: Number(status.code ?? 0), message: status.message ?? '' },
          service,
        });
      }
    }
  }
  return out;
}

// --- OTLP/protobuf: just enough of the wire format for ExportTraceServiceRequest ----------------

/** The fields of one message: field number → its values (varints as bigint, the rest as bytes). */
type Fields = Map<number, Array<bigint | Buffer>>;

function readMessage(buf: Buffer): Fields {
  const fields: Fields = new Map();
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (i >= buf.length) throw new Error('truncated varint');
      const b = buf[i++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const tag = Number(varint());
    const field = tag >>> 3;
    const wire = tag & 7;
    let value: bigint | Buffer;
    if (wire === 0) value = varint();
    else if (wire === 1) {
      value = buf.subarray(i, i + 8);
      i += 8;
    } else if (wire === 2) {
      const len = Number(varint());
      value = buf.subarray(i, i + len);
      i += len;
    } else if (wire === 5) {
      value = buf.subarray(i, i + 4);
      i += 4;
    } else throw new Error(`unsupported wire type ${wire}`);
    const list = fields.get(field) ?? [];
    list.push(value);
    fields.set(field, list);
  }
  return fields;
}

const bytesOf = (f: Fields, n: number): Buffer[] => (f.get(n) ?? []) as Buffer[];
const first = (f: Fields, n: number): Buffer | undefined => bytesOf(f, n)[0];
const text = (f: Fields, n: number): string => first(f, n)?.toString('utf8') ?? '';
const hex = (f: Fields, n: number): string => first(f, n)?.toString('hex') ?? '';
const int = (f: Fields, n: number): number => Number((f.get(n)?.[0] as bigint | undefined) ?? 0n);

function protoAttributes(list: Buffer[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kvBytes of list) {
    const kv = readMessage(kvBytes);
    const any = readMessage(first(kv, 2) ?? Buffer.alloc(0));
    const key = text(kv, 1);
    if (any.has(1)) out[key] = text(any, 1);
    else if (any.has(2)) out[key] = int(any, 2) !== 0;
    else if (any.has(3)) out[key] = Number(BigInt.asIntN(64, any.get(3)![0] as bigint));
    else if (any.has(4)) out[key] = first(any, 4)!.readDoubleLE(0);
  }
  return out;
}

function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rsBytes of bytesOf(readMessage(body), 1)) {
    const rs = readMessage(rsBytes);
    const resource = readMessage(first(rs, 1) ?? Buffer.alloc(0));
    const service = String(protoAttributes(bytesOf(resource, 1))['service.name'] ?? '');
    for (const ssBytes of bytesOf(rs, 2)) {
      for (const spanBytes of bytesOf(readMessage(ssBytes), 2)) {
        const s = readMessage(spanBytes);
        const status = readMessage(first(s, 15) ?? Buffer.alloc(0));
        out.push({
          traceId: hex(s, 1),
          spanId: hex(s, 2),
          parentSpanId: hex(s, 4),
          name: text(s, 5),
          kind: int(s, 6),
          attributes: protoAttributes(bytesOf(s, 9)),
          events: bytesOf(s, 11).map((e) => {
            const ev = readMessage(e);
            return { name: text(ev, 2), attributes: protoAttributes(bytesOf(ev, 3)) };
          }),
          links: bytesOf(s, 13).map((l) => {
            const link = readMessage(l);
            return { traceId: hex(link, 1), spanId: hex(link, 2) };
          }),
          status: { code: int(status, 3), message: text(status, 2) },
          service,
        });
      }
    }
  }
  return out;
}
