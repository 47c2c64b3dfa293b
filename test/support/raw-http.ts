/**
 * One HTTP request with exactly the method, request target and headers given: no URL
 * normalisation, and `Host` only when the caller sets it (so a test can send `//graphql`, or a
 * `Host` header no fetch would send).
 */
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';

export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}

export function rawRequest(
  port: number,
  options: { readonly method: string; readonly target: string; readonly headers?: OutgoingHttpHeaders; readonly body?: string },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: OutgoingHttpHeaders = { host: `127.0.0.1:${port}`, ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: options.method,
      path: options.target,
      headers,
      setHost: false,
      agent: false,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.end(options.body);
  });
}
