import type { IncomingMessage, ServerResponse } from 'node:http';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { GraphQLSchema } from 'graphql';
import type { Executor } from '../execute/executor.js';
import type { OperationStats } from '../execute/state.js';
import { requestFacts, writeAnswer, type Answers } from './answers.js';
import type { DocumentStore } from './documents.js';
import { usePreparedDocuments } from './documents.js';
import { useGatewayExecutor } from './execute-plugin.js';
import { renderGraphiQLPage } from './graphiql.js';
import { useHttpAnswers } from './http-answers.js';
import { usePersistedDocuments, type PersistedDocuments } from './persisted.js';

export interface YogaOptions {
  readonly schema: GraphQLSchema;
  readonly executor: Executor;
  readonly answers: Answers;
  readonly documents: DocumentStore;
  readonly persisted: PersistedDocuments;
  readonly maxBodyBytes: number;
  /** [gateway] graphiql: the GraphiQL page for browsers. */
  readonly graphiql: boolean;
}

/**
 * The GraphQL-over-HTTP entrance for every request the fast path does not take: GET /graphql,
 * other content types, GraphiQL in a browser, /healthz. Features are plugins in an ordered list.
 * What a request runs is decided by `persisted` (APQ, trusted documents), how its document is
 * checked by `documents` (limits, parse, validation: yoga never parses itself), and what the answer
 * is by `answers` — the same three the fast path calls. Request bodies over limits.max_body_bytes
 * get 413 before they are read (Content-Length) or as soon as the stream passes the limit.
 * CORS is not yoga's: `answers` and `cors.ts` decide it for both entrances.
 */
export function createGatewayYoga(options: YogaOptions) {
  const statsOf = new WeakMap<Request, OperationStats>();
  const plugins: Plugin[] = [
    usePersistedDocuments(options.persisted),
    usePreparedDocuments(options.documents),
    useHttpAnswers(options.answers, statsOf),
    useGatewayExecutor(options.executor, statsOf),
  ];
  return createYoga({
    schema: options.schema,
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/healthz',
    graphiql: options.graphiql ? { title: 'gqlgw' } : false,
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

/**
 * Hands a request to yoga. When its body was already read (the fast path declined it after
 * reading), yoga gets it through its Fetch API with the same method, URL, headers and body, and
 * its answer is written back; the client's disconnect still aborts the execution.
 */
export function answerWithYoga(
  entrance: { readonly yoga: ReturnType<typeof createGatewayYoga>; readonly answers: Answers },
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer | undefined,
): void {
  const { yoga, answers } = entrance;
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
    } catch (err) {
      if (!res.headersSent) writeAnswer(res, answers.unexpected(err, requestFacts(req)));
      else res.destroy();
    }
  })();
}
