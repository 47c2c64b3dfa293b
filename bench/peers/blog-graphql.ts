/**
 * The benchmark schema as a graphql-js user writes it by hand: plain SDL, resolvers that call
 * the backend, and a per-request DataLoader for Post.author (one /users?ids= call per tick).
 * Shared by the graphql-yoga and graphql-jit peers, which differ only in the engine.
 */
import DataLoader from 'dataloader';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import type { BackendPost, BackendUser } from '../shared/data.js';
import type { Upstream } from '../shared/upstream.js';

export const BLOG_TYPE_DEFS = /* GraphQL */ `
  type Query {
    posts(limit: Int = 100): [Post!]!
  }
  type Post {
    id: ID!
    title: String!
    authorId: ID!
    author: User
  }
  type User {
    id: ID!
    name: String!
  }
`;

/** Per-request context: a fresh DataLoader, so nothing is cached across requests. */
export interface BlogContext {
  readonly users: DataLoader<string, BackendUser | null>;
}

export function createBlogContext(upstream: Upstream): BlogContext {
  return {
    users: new DataLoader<string, BackendUser | null>(
      async (keys) => {
        const list = (await upstream.users.getJson(`/users?ids=${keys.map(encodeURIComponent).join(',')}`)) as BackendUser[];
        const byId = new Map(list.map((u) => [String(u.id), u]));
        return keys.map((k) => byId.get(k) ?? null);
      },
      { maxBatchSize: 100 },
    ),
  };
}

export function createBlogSchema(upstream: Upstream): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: BLOG_TYPE_DEFS,
    resolvers: {
      Query: {
        posts: (_root: unknown, args: { limit: number }) => upstream.posts.getJson(`/posts?limit=${args.limit}`),
      },
      Post: {
        authorId: (post: BackendPost) => post.author_id,
        author: (post: BackendPost, _args: unknown, context: BlogContext) => context.users.load(String(post.author_id)),
      },
    },
  });
}
