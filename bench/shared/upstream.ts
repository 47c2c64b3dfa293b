/**
 * The HTTP client every peer uses to reach the backend: one undici Pool per source name, like
 * the gateway's one pool per gateway.toml source, with the same connection count, so the peers
 * and gqlgw differ only in what they do between the calls.
 */
import { Pool } from 'undici';

/**
 * Keep-alive connections per source. Matches the gateway's per-source default
 * (`SourceConfig.connections`) so the comparison is like for like.
 */
export const UPSTREAM_CONNECTIONS = 64;

export interface UpstreamSource {
  /** GETs `path` from the backend and parses the JSON body; rejects on a non-200 status. */
  getJson(path: string): Promise<unknown>;
}

export interface Upstream {
  readonly posts: UpstreamSource;
  readonly users: UpstreamSource;
  close(): Promise<void>;
}

export function createUpstream(backendUrl: string, connections: number = UPSTREAM_CONNECTIONS): Upstream {
  const posts = new Pool(backendUrl, { connections });
  const users = new Pool(backendUrl, { connections });
  const pools = [posts, users];
  const source = (pool: Pool): UpstreamSource => ({
    async getJson(path: string): Promise<unknown> {
      const { statusCode, body } = await pool.request({ method: 'GET', path });
      if (statusCode !== 200) {
        await body.dump();
        throw new Error(`backend GET ${path} answered ${statusCode}`);
      }
      return body.json();
    },
  });
  return {
    posts: source(posts),
    users: source(users),
    async close() {
      await Promise.all(pools.map((p) => p.close()));
    },
  };
}
