import type { IncomingMessage, ServerResponse } from 'node:http';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { GraphQLSchema } from 'graphql';
import type { LimitsConfig } from '../config/types.js';
import type { Executor } from '../execute/executor.js';
import type { OperationStats } from '../execute/state.js';
import { useGatewayExecutor } from './execute-plugin.js';
import { useDebugHeaders } from './debug-headers.js';
import { boundedParseCaches, useDocumentLimits } from './limits.js';
import { useHttpAnswers } from './http-answers.js';

export interface YogaOptions {
  readonly schema: GraphQLSchema;
  readonly executor: Executor;
  /** debug_headers: X-GQL-* headers, and unmasked errors with upstream details and suggestions. */
  readonly debugHeaders: boolean;
  readonly limits: LimitsConfig;
  /** Extra plugins (limits, metrics) placed after the executor. */
  readonly plugins?: readonly Plugin[];
}

/**
 * The GraphQL-over-HTTP server: POST and GET /graphql, GraphiQL in a browser, /healthz.
 * Features are plugins in an ordered list; a feature that is off is not in the list.
 * Request bodies over limits.max_body_bytes get 413 before they are read (Content-Length) or as
 * soon as the stream passes the limit; documents are held to the other limits by useDocumentLimits;
 * status codes and error texts follow useHttpAnswers (docs/hardening.md).
 */
export function createGatewayYoga(options: YogaOptions) {
  const statsOf = new WeakMap<Request, OperationStats>();
  const plugins: Plugin[] = [useDocumentLimits(options.limits), useHttpAnswers({ debug: options.debugHeaders }), useGatewayExecutor(options.executor, statsOf)];
  if (options.debugHeaders) plugins.push(useDebugHeaders(statsOf));
  plugins.push(...(options.plugins ?? []));
  return createYoga({
    schema: options.schema,
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/healthz',
    graphiql: { title: 'gqlgw' },
    landingPage: false,
    logging: false,
    multipart: false,
    batching: false,
    maxRequestBodySize: options.limits.maxBodyBytes,
    parserAndValidationCache: boundedParseCaches(),
    // isDev false: never put an internal error's message or stack into a response.
    maskedErrors: options.debugHeaders ? false : { isDev: false },
    plugins,
  });
}

/**
 * Hands a request to yoga. When its body was already read (the fast path declined it after
 * reading), yoga gets it through its Fetch API with the same method, URL, headers and body, and
 * its answer is written back; the client's disconnect still aborts the execution.
 */
export function answerWithYoga(
  yoga: ReturnType<typeof createGatewayYoga>,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer | undefined,
): void {
  if (body === undefined) {
    void yoga.requestListener(req, res);
    return;
  }
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/graphql'}`;
  void (async () => {
    try {
      const response = await yoga.fetch(url, { method: req.method, headers, body, signal: controller.signal }, { req, res });
      const payload = Buffer.from(await response.arrayBuffer());
      const out: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        out[name] = value;
      });
      out['content-length'] = String(payload.length);
      res.writeHead(response.status, out).end(payload);
    } catch {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end('{"errors":[{"message":"Unexpected error."}]}');
      else res.destroy();
    }
  })();
}
