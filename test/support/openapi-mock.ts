/**
 * A REST upstream generated from an OpenAPI description's examples, for the importer's tests:
 * every operation answers its first 2xx response's example (`example`, the first of `examples`,
 * Swagger's `examples["application/json"]`), or, without one, a value built from the schema's own
 * examples, enums and types. It is a real CountingUpstream on 127.0.0.1 that records every request;
 * `answerFor` gives the JSON a route answers, so tests compare the gateway's answer with it.
 *
 *   const mock = await startExampleMock(file, '/v2');
 *   mock.answerFor('GET /v2/pet/:petId');   // the JSON GET /v2/pet/1 answers
 */
import { dereference, type ParserOptions } from '@readme/openapi-parser';
import { startUpstream, type CountingUpstream, type RouteReply, type RouteTable } from './upstream.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface ExampleMock {
  readonly upstream: CountingUpstream;
  /** The JSON body a route key answers (undefined: no body). */
  answerFor(route: string): Json | undefined;
  close(): Promise<void>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export async function startExampleMock(file: string, basePath: string): Promise<ExampleMock> {
  const options = { dereference: { circular: 'ignore' }, resolve: { http: { canRead: false } } } as unknown as ParserOptions;
  const doc = (await dereference(file, options)) as unknown as JsonObject;
  const v2 = doc.swagger !== undefined;
  const routes: Array<{ key: string; params: number; reply: RouteReply; body: Json | undefined }> = [];
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op) || !isObject(op.responses)) continue;
      const status = Object.keys(op.responses)
        .filter((s) => /^2(\d\d|XX)$/i.test(s))
        .sort((a, b) => (a === '200' ? -1 : b === '200' ? 1 : a.localeCompare(b)))[0];
      if (status === undefined) continue;
      const response = op.responses[status];
      const body = isObject(response) ? exampleOf(response, v2) : undefined;
      const code = /^\d+$/.test(status) ? Number(status) : 200;
      const key = `${method.toUpperCase()} ${basePath}${path.replace(/\{([^}]+)\}/g, ':$1')}`;
      const reply: RouteReply = body === undefined ? { status: code === 204 ? 204 : code, body: '' } : { status: code, json: body };
      routes.push({ key, params: (key.match(/:/g) ?? []).length, reply, body });
    }
  }
  // Literal segments first: `/pet/findByStatus` before `/pet/:petId`.
  routes.sort((a, b) => a.params - b.params);
  const table: Record<string, () => RouteReply> = {};
  const answers = new Map<string, Json | undefined>();
  for (const r of routes) {
    if (table[r.key]) continue;
    table[r.key] = () => r.reply;
    answers.set(r.key, r.body);
  }
  const upstream = await startUpstream(table as RouteTable);
  return { upstream, answerFor: (route) => answers.get(route), close: () => upstream.close() };
}

function exampleOf(response: JsonObject, v2: boolean): Json | undefined {
  if (v2) {
    const examples = isObject(response.examples) ? response.examples : {};
    if (examples['application/json'] !== undefined) return examples['application/json'];
    return isObject(response.schema) ? fromSchema(response.schema, 0) : undefined;
  }
  const content = isObject(response.content) ? response.content : {};
  const type = Object.keys(content).find((t) => t.startsWith('application/json') || t.endsWith('+json'));
  const media = type === undefined ? undefined : content[type];
  if (!isObject(media)) return undefined;
  if (media.example !== undefined) return media.example;
  const first = isObject(media.examples) ? Object.values(media.examples)[0] : undefined;
  if (isObject(first) && first.value !== undefined) return first.value;
  return isObject(media.schema) ? fromSchema(media.schema, 0) : undefined;
}

/** A value for a schema from its own examples, enums and types (depth-limited: circular schemas end). */
function fromSchema(schema: JsonObject, depth: number): Json {
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]!;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]!;
  if (depth > 4) return null;
  if (Array.isArray(schema.allOf)) {
    const merged: JsonObject = {};
    for (const part of schema.allOf) if (isObject(part)) Object.assign(merged, fromSchema(part, depth + 1));
    return merged;
  }
  const alternatives = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (alternatives && isObject(alternatives[0])) return fromSchema(alternatives[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'array') return isObject(schema.items) ? [fromSchema(schema.items, depth + 1)] : [];
  if (type === 'object' || isObject(schema.properties)) {
    const out: JsonObject = {};
    for (const [key, prop] of Object.entries(isObject(schema.properties) ? schema.properties : {}))
      if (isObject(prop)) out[key] = fromSchema(prop, depth + 1);
    return out;
  }
  if (type === 'integer') return 1;
  if (type === 'number') return 1.5;
  if (type === 'boolean') return true;
  if (type === 'string') return 'string';
  return null;
}

function isObject(value: Json | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A selection: a key read as it is, read through a function (an enum's wire form → its name), or a nested selection. */
export interface Selection {
  readonly [key: string]: true | ((value: Json) => Json) | Selection;
}

/** The GraphQL selection set of a Selection: `{ id name owner { login } }`. */
export function selectionText(selection: Selection): string {
  return `{ ${Object.entries(selection)
    .map(([k, v]) => (v === true || typeof v === 'function' ? k : `${k} ${selectionText(v)}`))
    .join(' ')} }`;
}

/** What the gateway should answer for a selection over the mock's JSON: the selected keys, lists mapped, missing keys null. */
export function project(value: Json | undefined, selection: Selection): Json {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.map((v) => project(v, selection));
  if (!isObject(value)) return null;
  const out: JsonObject = {};
  for (const [key, sub] of Object.entries(selection)) {
    const v = value[key];
    if (sub === true) out[key] = v ?? null;
    else if (typeof sub === 'function') out[key] = v === undefined || v === null ? null : Array.isArray(v) ? v.map(sub) : sub(v);
    else out[key] = project(v, sub);
  }
  return out;
}
