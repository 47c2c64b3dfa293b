/**
 * The ways a GraphQL request enters the gateway, for tests that send one request through each and
 * compare the answers (docs/hardening.md: byte-identical answers on every entrance):
 * - `fast`: POST with `content-type: application/json` and a length (the JSON fast path);
 * - `yoga`: the same POST with a chunked body (no length), which the fast path never takes;
 * - `get`: GET with `?query=` (yoga);
 * - `graphqlResponse`: the fast-path POST with `Accept: application/graphql-response+json`.
 * `fastPathServed` reads `gqlgw_http_fast_path_total`, so a test can check the fast path really
 * answered what it should (else yoga would be compared with yoga).
 */
import { metricValue } from './prom-text.js';

export type Entrance = 'fast' | 'yoga' | 'get' | 'graphqlResponse';
export const ENTRANCES: readonly Entrance[] = ['fast', 'yoga', 'get', 'graphqlResponse'];
/** The entrances the fast path answers. */
export const FAST_ENTRANCES: readonly Entrance[] = ['fast', 'graphqlResponse'];

export interface GraphQLRequestBody {
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  readonly operationName?: string;
}

/** Sends `request` (or, to a POST entrance, a raw JSON body text) to the GraphQL endpoint `url` through `entrance`, with `headers`. */
export function sendThrough(
  entrance: Entrance,
  url: string,
  request: GraphQLRequestBody | string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = typeof request === 'string' ? request : JSON.stringify(request);
  switch (entrance) {
    case 'fast':
      return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    case 'graphqlResponse':
      return fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
        body,
      });
    case 'yoga': {
      const bytes = new TextEncoder().encode(body);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes);
          controller.close();
        },
      });
      return fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: stream,
        duplex: 'half',
      } as RequestInit);
    }
    case 'get': {
      if (typeof request === 'string') throw new Error('a raw body goes only to a POST entrance');
      const params = new URLSearchParams({ query: request.query });
      if (request.variables !== undefined) params.set('variables', JSON.stringify(request.variables));
      if (request.operationName !== undefined) params.set('operationName', request.operationName);
      return fetch(`${url}?${params.toString()}`, { headers });
    }
  }
}

/** `gqlgw_http_fast_path_total` of the gateway at `origin`. */
export async function fastPathServed(origin: string): Promise<number> {
  return metricValue(await (await fetch(`${origin}/metrics`)).text(), 'gqlgw_http_fast_path_total');
}
