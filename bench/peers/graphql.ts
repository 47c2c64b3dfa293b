/**
 * The GraphQL-engine peers of the blog rows: the schema as a graphql-js user writes it by hand
 * (plain SDL, resolvers that call the backend, a per-request DataLoader for Post.author, one
 * `/users?ids=` call per tick), served by graphql-yoga 5 as its docs suggest, or by graphql-jit on
 * node:http (each distinct query parsed, validated and compiled once, serialised by its
 * generated `stringify`). The two differ only in the engine.
 */
import { createServer, type Server } from 'node:http';
import { makeExecutableSchema } from '@graphql-tools/schema';
import DataLoader from 'dataloader';
import { parse, validate } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { createYoga } from 'graphql-yoga';
import type { BackendPost, BackendUser } from '../shared/data.js';
import type { BodyHandler, Upstream } from '../shared/http.js';

const TYPE_DEFS = /* GraphQL */ `
  type Query { posts(limit: Int = 100): [Post!]! }
  type Post { id: ID!, title: String!, authorId: ID!, author: User }
  type User { id: ID!, name: String! }
`;

/** Per-request context: a fresh DataLoader, so nothing is cached across requests. */
interface BlogContext {
  readonly users: DataLoader<string, BackendUser | null>;
}

function blogContext(upstream: Upstream): BlogContext {
  const users = async (keys: readonly string[]): Promise<Array<BackendUser | null>> => {
    const byId = new Map(
      ((await upstream.users(`/users?ids=${keys.map(encodeURIComponent).join(',')}`)) as BackendUser[]).map((u) => [String(u.id), u]),
    );
    return keys.map((k) => byId.get(k) ?? null);
  };
  return { users: new DataLoader(users, { maxBatchSize: 100 }) };
}

function blogSchema(upstream: Upstream): ReturnType<typeof makeExecutableSchema> {
  return makeExecutableSchema({
    typeDefs: TYPE_DEFS,
    resolvers: {
      Query: { posts: (_root: unknown, args: { limit: number }) => upstream.posts(`/posts?limit=${args.limit}`) },
      Post: {
        authorId: (post: BackendPost) => post.author_id,
        author: (post: BackendPost, _args: unknown, context: BlogContext) => context.users.load(String(post.author_id)),
      },
    },
  });
}

export function createYogaServer(upstream: Upstream): Server {
  const yoga = createYoga({
    schema: blogSchema(upstream),
    context: () => blogContext(upstream),
    graphiql: false,
    landingPage: false,
    logging: false,
  });
  return createServer(yoga);
}

/** Answers with graphql-jit; a malformed request or query is a rejection, which the HTTP shell answers 500. */
export function jitHandler(upstream: Upstream): BodyHandler {
  const schema = blogSchema(upstream);
  const compiledByQuery = new Map<string, CompiledQuery>();
  return async (requestBody) => {
    const request = JSON.parse(requestBody) as { query: string; variables?: Record<string, unknown>; operationName?: string };
    const cacheKey = `${request.operationName ?? ''}\n${request.query}`;
    let compiled = compiledByQuery.get(cacheKey);
    if (compiled === undefined) {
      const document = parse(request.query);
      const errors = validate(schema, document);
      if (errors.length > 0) return { status: 400, body: JSON.stringify({ errors }) };
      const result = compileQuery(schema, document, request.operationName);
      if (!isCompiledQuery(result)) return { status: 400, body: JSON.stringify(result) };
      compiledByQuery.set(cacheKey, (compiled = result));
    }
    return { status: 200, body: compiled.stringify(await compiled.query(undefined, blogContext(upstream), request.variables ?? {})) };
  };
}
