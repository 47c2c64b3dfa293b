/**
 * The graphql-jit + DataLoader peer: node:http, each distinct query parsed, validated and
 * compiled once (as graphql-jit's README does), executed by the compiled function and
 * serialised by its generated `stringify`.
 */
import { parse, validate, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { createBlogContext, createBlogSchema } from './blog-graphql.js';
import type { BodyHandler, JsonReply } from '../shared/http-server.js';
import type { Upstream } from '../shared/upstream.js';

interface GraphQLRequest {
  readonly query?: unknown;
  readonly variables?: Record<string, unknown>;
  readonly operationName?: string;
}

function compile(schema: GraphQLSchema, query: string, operationName: string | undefined): CompiledQuery | JsonReply {
  let document;
  try {
    document = parse(query);
  } catch (error) {
    return { status: 400, body: JSON.stringify({ errors: [{ message: String(error) }] }) };
  }
  const errors = validate(schema, document);
  if (errors.length > 0) return { status: 400, body: JSON.stringify({ errors }) };
  const compiled = compileQuery(schema, document, operationName);
  if (!isCompiledQuery(compiled)) return { status: 400, body: JSON.stringify(compiled) };
  return compiled;
}

export function jitHandler(upstream: Upstream): BodyHandler {
  const schema = createBlogSchema(upstream);
  const compiledByQuery = new Map<string, CompiledQuery>();
  return async (requestBody) => {
    let request: GraphQLRequest;
    try {
      request = JSON.parse(requestBody) as GraphQLRequest;
    } catch {
      return { status: 400, body: '{"errors":[{"message":"malformed JSON"}]}' };
    }
    if (typeof request.query !== 'string') return { status: 400, body: '{"errors":[{"message":"no query"}]}' };
    const cacheKey = `${request.operationName ?? ''}\n${request.query}`;
    let compiled = compiledByQuery.get(cacheKey);
    if (compiled === undefined) {
      const result = compile(schema, request.query, request.operationName);
      if (!('query' in result)) return result;
      compiled = result;
      compiledByQuery.set(cacheKey, compiled);
    }
    const result = await compiled.query(undefined, createBlogContext(upstream), request.variables ?? {});
    return { status: 200, body: compiled.stringify(result) };
  };
}
