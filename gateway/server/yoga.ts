import { createYoga, type Plugin } from 'graphql-yoga';
import type { GraphQLSchema } from 'graphql';
import type { Executor } from '../execute/executor.js';
import type { OperationStats } from '../execute/state.js';
import { useGatewayExecutor } from './execute-plugin.js';
import { useDebugHeaders } from './debug-headers.js';

export interface YogaOptions {
  readonly schema: GraphQLSchema;
  readonly executor: Executor;
  readonly debugHeaders: boolean;
  /** Extra plugins (limits, metrics) placed after the executor. */
  readonly plugins?: readonly Plugin[];
}

/**
 * The GraphQL-over-HTTP server: POST and GET /graphql, GraphiQL in a browser, /healthz.
 * Features are plugins in an ordered list; a feature that is off is not in the list.
 */
export function createGatewayYoga(options: YogaOptions) {
  const statsOf = new WeakMap<Request, OperationStats>();
  const plugins: Plugin[] = [useGatewayExecutor(options.executor, statsOf)];
  if (options.debugHeaders) plugins.push(useDebugHeaders(statsOf));
  plugins.push(...(options.plugins ?? []));
  return createYoga({
    schema: options.schema,
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/healthz',
    graphiql: { title: 'gqlgw' },
    landingPage: false,
    logging: false,
    maskedErrors: !options.debugHeaders,
    plugins,
  });
}
