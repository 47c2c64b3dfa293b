/** Reads the backend's request counter (GET /__stats), from which subrequests per query are computed. */
import { request } from 'undici';

export async function backendRequestCount(backendUrl: string): Promise<number> {
  const { statusCode, body } = await request(`${backendUrl}/__stats`);
  const stats = (await body.json()) as { requests?: unknown };
  if (statusCode !== 200 || typeof stats.requests !== 'number') throw new Error(`backend /__stats answered ${statusCode}`);
  return stats.requests;
}
