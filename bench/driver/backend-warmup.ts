/**
 * Warms the backend before the first row is measured. The backend is started once and serves
 * every row; a fresh Node process answers more slowly until V8 has compiled its hot code, so
 * without this the first row of the first run would meet a colder backend than every other row
 * (bench/README.md "Compared rows back to back").
 */
import { Pool } from 'undici';
import { USERS } from '../shared/data.js';

/** The three kinds of request the rows send: the posts, a batch of users, one user. */
function backendPaths(): string[] {
  const ids = [...USERS.keys()];
  return ['/posts?limit=100', `/users?ids=${ids.join(',')}`, ...ids.map((id) => `/users/${id}`)];
}

/**
 * Sends the rows' kinds of request to the backend from `concurrency` connections for `seconds`,
 * reading every answer; resolves with how many were answered 200 (the caller says so when none were).
 */
export async function warmBackend(url: string, seconds: number, concurrency = 16): Promise<number> {
  const pool = new Pool(url, { connections: concurrency });
  const paths = backendPaths();
  const until = performance.now() + seconds * 1000;
  let ok = 0;
  const worker = async (start: number): Promise<void> => {
    for (let i = start; performance.now() < until; i += concurrency) {
      const { statusCode, body } = await pool.request({ method: 'GET', path: paths[i % paths.length]! });
      await body.text();
      if (statusCode === 200) ok++;
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, (_, k) => worker(k)));
  } finally {
    await pool.close();
  }
  return ok;
}
