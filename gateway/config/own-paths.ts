/**
 * The paths the gateway serves itself (server/ routes them): no `[metrics] path` and no webhook may
 * take one. Decided here, the lowest layer that reads them.
 */
/** The GraphQL path: the route of both entrances, yoga's endpoint and the streaming transports'. */
export const GRAPHQL_PATH = '/graphql';
/** Yoga's health check. */
export const HEALTH_PATH = '/healthz';
/** `GET /readyz`: 200 while serving, 503 once shutdown began. */
export const READINESS_PATH = '/readyz';
/** GraphiQL's assets, every path under it. */
export const GRAPHIQL_ASSET_PREFIX = '/graphiql/';

/** Whether `path` is one the gateway serves itself. */
export function isOwnPath(path: string): boolean {
  return path === GRAPHQL_PATH || path === HEALTH_PATH || path === READINESS_PATH || path.startsWith(GRAPHIQL_ASSET_PREFIX);
}
