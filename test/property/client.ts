/**
 * Sends a rendered request (render.ts) through one of the gateway's entrances and reads the answer
 * as data and errors by message, code and path: what the property compares.
 */
import type { RenderedRequest } from './render.js';

export type Entrance = 'post' | 'get' | 'graphqlResponse';
export const ENTRANCES: readonly Entrance[] = ['post', 'get', 'graphqlResponse'];

export interface ComparedError {
  readonly message: string;
  readonly code: unknown;
  readonly path: string;
}

export interface Answer {
  readonly status: number;
  readonly data: unknown;
  /** Sorted, so the order errors were found in does not count. */
  readonly errors: readonly ComparedError[];
  /** The body as received, for reports. */
  readonly text: string;
  /** The planned bound (`X-GQL-Cost`) and the subrequests it sent (`X-GQL-Subrequests`); undefined where absent. */
  readonly cost?: number;
  readonly sent?: number;
}

/** A debug header as a number; undefined where it is absent. */
function counted(response: Response, name: string): number | undefined {
  const value = response.headers.get(name);
  return value === null ? undefined : Number(value);
}

function send(url: string, entrance: Entrance, request: RenderedRequest, token: string | undefined): Promise<Response> {
  const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  if (entrance === 'get') {
    const params = new URLSearchParams({ query: request.query, variables: request.variables });
    return fetch(`${url}?${params.toString()}`, { headers: { accept: 'application/json', ...auth } });
  }
  const accept = entrance === 'graphqlResponse' ? 'application/graphql-response+json' : 'application/json';
  const body = `{"query":${JSON.stringify(request.query)},"variables":${request.variables}}`;
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept, ...auth }, body });
}

export async function ask(url: string, entrance: Entrance, request: RenderedRequest, token: string | undefined): Promise<Answer> {
  const response = await send(url, entrance, request, token);
  const text = await response.text();
  let body: { data?: unknown; errors?: { message: string; path?: unknown[]; extensions?: { code?: unknown } }[] };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return {
      status: response.status,
      data: undefined,
      errors: [{ message: `not JSON: ${text.slice(0, 200)}`, code: 'NOT_JSON', path: '' }],
      text,
    };
  }
  const errors = (body.errors ?? [])
    .map((e) => ({ message: e.message, code: e.extensions?.code, path: (e.path ?? []).join('.') }))
    .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  const cost = counted(response, 'x-gql-cost');
  const sent = counted(response, 'x-gql-subrequests');
  return { status: response.status, data: body.data, errors, text, cost, sent };
}
