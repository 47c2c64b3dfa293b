/**
 * The example blog: three small REST services (users, posts, comments) on node:http, one server
 * each, as three separate teams would run them. `startBlog()` starts all three and returns their
 * base URLs and one `close()`.
 */
import { commentsRoutes } from './comments.js';
import { startService, type RunningService } from './http.js';
import { postsRoutes } from './posts.js';
import { usersRoutes } from './users.js';

export { COMMENTS, POSTS, USERS } from './data.js';
export type { CommentRecord, PostRecord, UserRecord } from './data.js';

export interface BlogOptions {
  /** Defaults to 127.0.0.1. */
  readonly host?: string;
  /** Ports of the three services; 0 picks a free port. Defaults 4001 / 4002 / 4003 (as in gateway.toml). */
  readonly ports?: { readonly users?: number; readonly posts?: number; readonly comments?: number };
}

export interface RunningBlog {
  /** Base URL of each service by its gateway.toml source name. */
  readonly urls: { readonly users: string; readonly posts: string; readonly comments: string };
  /** Stops all three services and drops their open connections. */
  close(): Promise<void>;
}

export const DEFAULT_BLOG_PORTS = { users: 4001, posts: 4002, comments: 4003 } as const;

export async function startBlog(options: BlogOptions = {}): Promise<RunningBlog> {
  const host = options.host ?? '127.0.0.1';
  const ports = { ...DEFAULT_BLOG_PORTS, ...options.ports };
  const started: RunningService[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.all(started.map((s) => s.close()));
  };
  try {
    const users = await startService(usersRoutes, host, ports.users);
    started.push(users);
    const posts = await startService(postsRoutes, host, ports.posts);
    started.push(posts);
    const comments = await startService(commentsRoutes, host, ports.comments);
    started.push(comments);
    return { urls: { users: users.url, posts: posts.url, comments: comments.url }, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
