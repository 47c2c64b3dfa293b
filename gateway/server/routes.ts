import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { requestFacts, type Answers } from './answers.js';
import { readRequest, type GatewayRequest } from './http-request.js';

export { GRAPHQL_PATH, HEALTH_PATH } from '../config/own-paths.js';

/** What answers one route: it may finish later (a promise), and then a rejection is unexpected. */
export type RouteHandler = (request: GatewayRequest, res: ServerResponse) => void | Promise<void>;

/** One row of a route table: an exact path, or with `prefix` every path that starts with it. */
export interface Route {
  readonly path: string;
  readonly prefix?: boolean;
  readonly handler: RouteHandler;
}

/**
 * A server's request listener over an ordered route table: the request is read once
 * (http-request.ts), the first route whose path matches answers it, a path no route matches is
 * 404, and an error nobody expected is answered here, once, for every route: a 500 when nothing
 * was sent yet, else the connection is cut (a half-sent answer must not look whole).
 */
export function routeTable(routes: readonly Route[], answers: Answers): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const request = readRequest(req);
    const fail = (err: unknown): void => {
      if (res.headersSent) res.destroy();
      else answers.write(res, answers.unexpected(err, requestFacts(request)));
    };
    const route = routes.find((r) => (r.prefix ? request.path.startsWith(r.path) : request.path === r.path));
    try {
      const done = route ? route.handler(request, res) : answers.write(res, answers.notFound());
      if (done) done.catch(fail);
    } catch (err) {
      fail(err);
    }
  };
}

/**
 * `GET <[metrics] path>`: the Prometheus text. With `[metrics] token`, only for
 * `Authorization: Bearer <token>` (compared in constant time); 401 otherwise.
 */
export function metricsRoute(options: {
  readonly answers: Answers;
  readonly render: () => Promise<string>;
  readonly contentType: string;
  readonly token: string | undefined;
}): RouteHandler {
  const { answers, render, contentType } = options;
  const expected = options.token === undefined ? undefined : digest(`Bearer ${options.token}`);
  return async (request, res) => {
    if (request.method !== 'GET') return answers.write(res, answers.notFound());
    if (expected && !timingSafeEqual(digest(request.header('authorization') ?? ''), expected))
      return answers.write(res, answers.unauthorized());
    let text: string | undefined;
    try {
      text = await render();
    } catch {
      text = undefined;
    }
    answers.write(res, answers.metrics(text, contentType));
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
