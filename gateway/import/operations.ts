import { isDotSegment } from '../../directives/url-link.js';
import type { LoadedDocument } from './load-document.js';
import { ImportError, type WarningList } from './problems.js';
import { childPointer, isObject, pointerOf, resolveRef, type Json, type JsonObject } from './pointer.js';

/**
 * The operations of an OpenAPI 3.x or Swagger 2.0 document in one shape, so that the rest of the
 * importer never asks which version it reads. Parts gqlgw cannot send or read (cookie and header
 * parameters, form and multipart bodies, callbacks, webhooks, non-JSON answers, HEAD/OPTIONS/TRACE)
 * become warnings here, at their pointers; an operation that cannot be sent at all is `skip`.
 */
export interface ApiParameter {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly required: boolean;
  /** A schema node, possibly a `$ref`; for Swagger 2.0 the parameter itself (type, items, enum). */
  readonly schema: JsonObject;
  readonly schemaPointer: string;
  readonly pointer: string;
  /** An array is sent as repeated parameters (`?id=1&id=2`); false: comma-joined. */
  readonly explode: boolean;
  readonly description: string;
}

export interface ApiLink {
  readonly name: string;
  readonly pointer: string;
  readonly operationId: string | undefined;
  readonly parameters: Readonly<Record<string, Json>>;
}

export interface ApiOperation {
  readonly pointer: string;
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  readonly path: string;
  readonly operationId: string | undefined;
  readonly summary: string | undefined;
  readonly parameters: readonly ApiParameter[];
  readonly body: { readonly schema: JsonObject; readonly pointer: string; readonly required: boolean } | undefined;
  /** The 2xx JSON answer's schema; undefined for an answer without a body (204, no content). */
  readonly response: { readonly schema: JsonObject; readonly pointer: string } | undefined;
  readonly links: readonly ApiLink[];
}

export interface ApiModel {
  /** The first server's URL, variables at their defaults, without a trailing slash. */
  readonly serverUrl: string;
  readonly operations: readonly ApiOperation[];
  /** Where named schemas live: `#/components/schemas` or `#/definitions`. */
  readonly schemaBase: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
type Method = ApiOperation['method'];

export function readOperations(doc: LoadedDocument, warnings: WarningList): ApiModel {
  const { root } = doc;
  const v2 = doc.version === '2.0';
  const operations: ApiOperation[] = [];
  const paths = isObject(root.paths) ? root.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const itemPointer = pointerOf(['paths', path]);
    if (path.split('?')[0]!.split('/').some(isDotSegment))
      throw new ImportError(
        doc.file,
        itemPointer,
        `the path "${path}" has a dot-segment ("." or ".."): requests would leave the source's base path`,
      );
    if (!isObject(rawItem)) continue;
    const item = resolveRef(root, rawItem, itemPointer)?.node ?? rawItem;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    if (Array.isArray(item.servers) && item.servers.length > 0)
      warnings.add(childPointer(itemPointer, 'servers'), 'a path-level server is not mapped: every field uses the source url');
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const pointer = childPointer(itemPointer, method);
      if (method === 'options' || method === 'head' || method === 'trace') {
        warnings.add(pointer, `${method.toUpperCase()} operations are not mapped: gqlgw sends GET, POST, PUT, PATCH and DELETE`);
        continue;
      }
      const read = readOperation({ root, v2, path, method, op, pointer, shared, itemPointer }, warnings);
      if (read) operations.push(read);
    }
  }
  if (isObject(root.webhooks)) warnings.add('#/webhooks', 'webhooks are not mapped: gqlgw calls APIs, it is not called by them');
  if (isObject(root['x-webhooks'])) warnings.add('#/x-webhooks', 'webhooks are not mapped: gqlgw calls APIs, it is not called by them');
  const security = v2 ? root.securityDefinitions : isObject(root.components) ? root.components.securitySchemes : undefined;
  if (isObject(security) && Object.keys(security).length > 0)
    warnings.add(
      v2 ? '#/securityDefinitions' : '#/components/securitySchemes',
      'authentication is not mapped: pass the caller\'s credentials with forward_headers = ["authorization"] or set them with headers in [sources]',
    );
  return { serverUrl: serverUrl(root, v2, warnings), operations, schemaBase: v2 ? '#/definitions' : '#/components/schemas' };
}

interface OperationInput {
  readonly root: JsonObject;
  readonly v2: boolean;
  readonly path: string;
  readonly method: Method;
  readonly op: JsonObject;
  readonly pointer: string;
  readonly shared: Json[];
  readonly itemPointer: string;
}

function readOperation(input: OperationInput, warnings: WarningList): ApiOperation | undefined {
  const { root, v2, op, pointer, method } = input;
  let skip = false;
  let body: ApiOperation['body'];
  const parameters: ApiParameter[] = [];
  const byKey = new Map<string, { node: JsonObject; pointer: string }>();
  const collect = (list: Json[], base: string) =>
    list.forEach((raw, i) => {
      const at = childPointer(base, 'parameters', i);
      if (!isObject(raw)) return;
      const r = resolveRef(root, raw, at);
      if (!r) return;
      byKey.set(`${String(r.node.in)} ${String(r.node.name)}`, { node: r.node, pointer: at });
    });
  collect(input.shared, input.itemPointer);
  collect(Array.isArray(op.parameters) ? op.parameters : [], pointer);
  for (const { node: p, pointer: at } of byKey.values()) {
    const name = String(p.name);
    const where = String(p.in);
    if (where === 'path' || where === 'query') {
      const param = readParameter(p, at, v2, warnings);
      if (param) parameters.push(param);
      else if (where === 'path' || p.required === true) skip = true;
    } else if (where === 'body' && isObject(p.schema)) {
      body = { schema: p.schema, pointer: childPointer(at, 'schema'), required: p.required === true };
    } else if (where === 'formData') {
      warnings.add(at, `form parameter "${name}" is not mapped: gqlgw sends JSON bodies; the operation is left out`);
      skip = true;
    } else if (where === 'cookie') {
      warnings.add(
        at,
        `cookie parameter "${name}" is not mapped: gqlgw sends no cookies${p.required === true ? '; the operation is left out' : ''}`,
      );
      if (p.required === true) skip = true;
    } else if (where === 'header') {
      warnings.add(
        at,
        `header parameter "${name}" is not mapped: set it for the whole source with headers or forward_headers in [sources]`,
      );
    }
  }
  if (!v2 && isObject(op.requestBody)) {
    const at = childPointer(pointer, 'requestBody');
    const rb = resolveRef(root, op.requestBody, at)?.node;
    const content = isObject(rb?.content) ? rb.content : {};
    const json = jsonMediaType(content);
    if (json && isObject(content[json]) && isObject((content[json] as JsonObject).schema)) {
      body = {
        schema: (content[json] as JsonObject).schema as JsonObject,
        pointer: childPointer(at, 'content', json, 'schema'),
        required: rb?.required === true,
      };
    } else if (Object.keys(content).length > 0) {
      const types = Object.keys(content).join(', ');
      warnings.add(at, `a ${types} body is not mapped: gqlgw sends JSON bodies; the operation is left out`);
      skip = true;
    }
  }
  if (isObject(op.callbacks)) warnings.add(childPointer(pointer, 'callbacks'), 'callbacks are not mapped: gqlgw is not called back');
  const response = readResponse(input, warnings);
  if (response === 'unreadable') skip = true;
  if (skip) return undefined;
  return {
    pointer,
    method,
    path: input.path,
    operationId: typeof op.operationId === 'string' && op.operationId !== '' ? op.operationId : undefined,
    summary: typeof op.summary === 'string' ? op.summary : undefined,
    parameters,
    body,
    response: response === 'unreadable' ? undefined : response?.body,
    links: response === 'unreadable' ? [] : (response?.links ?? []),
  };
}

function readParameter(p: JsonObject, at: string, v2: boolean, warnings: WarningList): ApiParameter | undefined {
  const name = String(p.name);
  const where = p.in as 'path' | 'query';
  let schema: JsonObject | undefined;
  let schemaPointer = at;
  let explode: boolean;
  if (v2) {
    schema = p;
    const format = typeof p.collectionFormat === 'string' ? p.collectionFormat : 'csv';
    explode = format === 'multi';
    if (format !== 'multi' && format !== 'csv' && p.type === 'array')
      warnings.add(at, `collectionFormat "${format}" of "${name}" is not mapped: the values are sent comma-joined`);
  } else {
    schema = isObject(p.schema) ? p.schema : undefined;
    schemaPointer = childPointer(at, 'schema');
    const style = typeof p.style === 'string' ? p.style : where === 'query' ? 'form' : 'simple';
    explode = typeof p.explode === 'boolean' ? p.explode : style === 'form';
    if (style !== 'form' && style !== 'simple') {
      warnings.add(at, `style "${style}" of parameter "${name}" is not mapped; the operation is left out`);
      return undefined;
    }
  }
  if (!schema) {
    warnings.add(at, `parameter "${name}" has no schema (a content map is not mapped); the operation is left out`);
    return undefined;
  }
  return {
    name,
    in: where,
    required: where === 'path' || p.required === true,
    schema,
    schemaPointer,
    pointer: at,
    explode,
    description: typeof p.description === 'string' ? p.description : '',
  };
}

type ReadResponse = { body: ApiOperation['response']; links: ApiLink[] } | 'unreadable' | undefined;

/** The first 2xx answer (200 first, then in status order): its JSON schema and links. */
function readResponse(input: OperationInput, warnings: WarningList): ReadResponse {
  const { root, v2, op, pointer } = input;
  if (!isObject(op.responses)) return undefined;
  const statuses = Object.keys(op.responses)
    .filter((s) => /^2(\d\d|XX)$/i.test(s))
    .sort((a, b) => (a === '200' ? -1 : b === '200' ? 1 : a.localeCompare(b)));
  const status = statuses[0];
  if (status === undefined) return undefined;
  const at = childPointer(pointer, 'responses', status);
  const raw = op.responses[status];
  const resolved = isObject(raw) ? resolveRef(root, raw, at) : undefined;
  if (!resolved) return undefined;
  const r = resolved.node;
  const links: ApiLink[] = [];
  if (isObject(r.links)) {
    for (const [name, rawLink] of Object.entries(r.links)) {
      const linkAt = childPointer(at, 'links', name);
      const link = isObject(rawLink) ? resolveRef(root, rawLink, linkAt)?.node : undefined;
      if (!link) continue;
      if (typeof link.operationRef === 'string' && typeof link.operationId !== 'string') {
        warnings.add(linkAt, `link "${name}" names its operation by operationRef, which is not mapped; use operationId`);
        continue;
      }
      links.push({
        name,
        pointer: linkAt,
        operationId: typeof link.operationId === 'string' ? link.operationId : undefined,
        parameters: isObject(link.parameters) ? link.parameters : {},
      });
    }
  }
  if (v2) return { body: isObject(r.schema) ? { schema: r.schema, pointer: childPointer(at, 'schema') } : undefined, links };
  const content = isObject(r.content) ? r.content : {};
  const json = jsonMediaType(content);
  if (json) {
    const media = content[json] as JsonObject;
    return {
      body: isObject(media.schema) ? { schema: media.schema, pointer: childPointer(at, 'content', json, 'schema') } : undefined,
      links,
    };
  }
  if (Object.keys(content).length === 0) return { body: undefined, links };
  if (input.method !== 'get') return { body: undefined, links };
  warnings.add(at, `a ${Object.keys(content).join(', ')} answer is not mapped: gqlgw reads JSON; the operation is left out`);
  return 'unreadable';
}

/** `application/json`, else the first `…+json` or `*\/*` media type. */
function jsonMediaType(content: JsonObject): string | undefined {
  const types = Object.keys(content);
  return (
    types.find((t) => t.split(';')[0]!.trim() === 'application/json') ??
    types.find((t) => /\+json\s*(;|$)/.test(t)) ??
    types.find((t) => t === '*/*' || t === 'application/*')
  );
}

function serverUrl(root: JsonObject, v2: boolean, warnings: WarningList): string {
  let url: string | undefined;
  let at = '#/servers/0/url';
  if (v2) {
    at = '#/host';
    if (typeof root.host === 'string') {
      const schemes = Array.isArray(root.schemes) ? root.schemes.map(String) : [];
      const scheme = schemes.includes('https') ? 'https' : (schemes[0] ?? 'https');
      url = `${scheme}://${root.host}${typeof root.basePath === 'string' ? root.basePath : ''}`;
    }
  } else {
    const first = Array.isArray(root.servers) ? root.servers[0] : undefined;
    if (isObject(first) && typeof first.url === 'string') {
      url = first.url;
      const vars = isObject(first.variables) ? first.variables : {};
      url = url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
        const v = vars[name];
        return isObject(v) && v.default !== undefined ? String(v.default) : whole;
      });
    }
  }
  if (url === undefined) {
    warnings.add(at, 'the document names no server: the source url is http://127.0.0.1; set the real one');
    return 'http://127.0.0.1';
  }
  if (!/^https?:\/\//.test(url)) {
    warnings.add(
      at,
      `the server url "${url}" is not an absolute http(s) URL: the source url is http://127.0.0.1 followed by it; set the real host`,
    );
    url = `http://127.0.0.1${url.startsWith('/') ? '' : '/'}${url}`;
  }
  return url.replace(/\/+$/, '');
}
