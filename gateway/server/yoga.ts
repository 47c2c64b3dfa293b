import type { ServerResponse } from 'node:http';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { GraphQLSchema } from 'graphql';
import type { Answers } from './answers.js';
import type { GatewayRequest } from './http-request.js';
import type { DocumentStore } from './documents.js';
import { usePreparedDocuments } from './documents.js';
import { useOperationPath } from './execute-plugin.js';
import { renderGraphiQLPage } from './graphiql.js';
import { useHttpAnswers } from './http-answers.js';
import type { OperationPath } from './operation.js';
import { useExactNumbers } from './request-json.js';
import { GRAPHQL_PATH, HEALTH_PATH } from './routes.js';

export interface YogaOptions {
  readonly schema: GraphQLSchema;
  readonly operations: OperationPath;
  readonly answers: Answers;
  readonly documents: DocumentStore;
  readonly maxBodyBytes: number;
  /** [gateway] graphiql: the GraphiQL page for browsers. */
  readonly graphiql: boolean;
  /** What GraphiQL's first tab holds (sample-query.ts). */
  readonly defaultQuery: string;
}

/**
 * The GraphQL-over-HTTP entrance for every request the fast path does not take: GET /graphql,
 * other JSON content types, GraphiQL in a browser, /healthz (the route table in start.ts decides). Features are plugins in an ordered list.
 * What a request runs and how (persisted text, token, document, executor) is the operation path's
 * (operation.ts; yoga never parses itself), and what the answer is `answers`' — the same two the
 * fast path calls. Request bodies over limits.max_body_bytes
 * get 413 before they are read (Content-Length) or as soon as the stream passes the limit.
 * CORS is not yoga's: `answers` and `cors.ts` decide it for both entrances.
 */
export function createGatewayYoga(options: YogaOptions) {
  const plugins: Plugin[] = [
    useExactNumbers(),
    useOperationPath(options.operations, options.answers),
    usePreparedDocuments(options.documents),
    useHttpAnswers(options.answers, options.operations),
  ];
  return createYoga({
    schema: options.schema,
    graphqlEndpoint: GRAPHQL_PATH,
    healthCheckEndpoint: HEALTH_PATH,
    graphiql: options.graphiql ? { title: 'gqlgw', defaultQuery: options.defaultQuery } : false,
    renderGraphiQL: renderGraphiQLPage,
    cors: false,
    landingPage: false,
    logging: false,
    multipart: false,
    batching: false,
    maxRequestBodySize: options.maxBodyBytes,
    parserAndValidationCache: false,
    // Masking is decided in answers.ts; yoga passes errors through unchanged.
    maskedErrors: false,
    plugins,
  });
}

/** Where yoga is told a request came from: a fixed origin, so `Host` never changes a route (http-request.ts). */
const YOGA_ORIGIN = 'http://gateway';

/**
 * The one way into yoga. It gets the request's method, path (from the route table; never from
 * `Host`), headers and body: `body` when the fast path already read it, else the request stream.
 * A `application/graphql-response+json` body is handed on as `application/json`, which is what
 * yoga's parser reads. The client's disconnect aborts the execution. Yoga's answer is written
 * through `answers.write`; a rejection is an error nobody expected (the server answers it).
 */
export function createYogaEntrance(
  yoga: ReturnType<typeof createGatewayYoga>,
  answers: Answers,
): (request: GatewayRequest, res: ServerResponse, body: Buffer | undefined) => Promise<void> {
  return async (request, res, body) => {
    const req = request.node;
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    if (request.bodyType === 'application/graphql-response+json') headers.set('content-type', 'application/json');
    const method = request.method;
    const init = { method, headers, body: body ?? (method === 'GET' || method === 'HEAD' ? undefined : req), signal: controller.signal };
    const response = await yoga.fetch(`${YOGA_ORIGIN}${request.path}${request.search}`, init, { req, res, http: request });
    const payload = await response.text();
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      out[name] = value;
    });
    delete out['content-length'];
    answers.write(res, { status: response.status, headers: out, body: payload });
  };
}
