import { Pool } from 'undici';
import type { SourceConfig } from '../config/types.js';
import { failure, type UpstreamOutcome } from './outcome.js';

/**
 * One source's HTTP client: a keep-alive undici Pool whose size is the source's concurrency limit.
 * Every request has the gateway's own total deadline (headers and body together; undici's timeouts
 * only bound the gaps), a body size cap, and its body always consumed or destroyed so the
 * connection goes back to the pool.
 */
export class SourceClient {
  private readonly pool: Pool;
  private readonly basePath: string;

  constructor(private readonly config: SourceConfig) {
    const url = new URL(config.url);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections: config.connections,
      keepAliveTimeout: 10_000,
      headersTimeout: config.timeoutMs + 1000,
      bodyTimeout: config.timeoutMs + 1000,
    });
  }

  get name(): string {
    return this.config.name;
  }

  /** GET `path` (already resolved and encoded) with the given headers. Never rejects. */
  async get(path: string, headers: Readonly<Record<string, string>>): Promise<UpstreamOutcome> {
    const { name, timeoutMs, maxResponseBytes } = this.config;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const res = await this.pool.request({
        path: this.basePath + path,
        method: 'GET',
        headers: { accept: 'application/json', ...headers },
        signal: controller.signal,
      });
      const status = res.statusCode;
      if (status === 404) {
        await res.body.dump();
        return { kind: 'not-found' };
      }
      if (status < 200 || status >= 300) {
        await res.body.dump();
        return failure('UPSTREAM_HTTP_ERROR', name, `source "${name}" answered HTTP ${status}`, `GET ${path} → ${status}`, status);
      }
      const declared = Number(res.headers['content-length']);
      if (declared > maxResponseBytes) {
        res.body.destroy();
        return failure('UPSTREAM_BAD_RESPONSE', name, `source "${name}" answered a body over ${maxResponseBytes} bytes`, `GET ${path}: content-length ${declared}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > maxResponseBytes) {
          res.body.destroy();
          return failure('UPSTREAM_BAD_RESPONSE', name, `source "${name}" answered a body over ${maxResponseBytes} bytes`, `GET ${path}: body over the cap`);
        }
        chunks.push(chunk as Buffer);
      }
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      try {
        return { kind: 'ok', body: JSON.parse(text) as unknown };
      } catch {
        return failure('UPSTREAM_BAD_RESPONSE', name, `source "${name}" answered a body that is not JSON`, `GET ${path}: ${text.slice(0, 80)}`);
      }
    } catch (err) {
      if (controller.signal.aborted) {
        return failure('UPSTREAM_TIMEOUT', name, `source "${name}" did not answer within ${timeoutMs} ms`, `GET ${path}`);
      }
      const code = (err as { code?: string }).code ?? 'ERROR';
      return failure('UPSTREAM_UNREACHABLE', name, `source "${name}" could not be reached`, `GET ${path}: ${code} ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
