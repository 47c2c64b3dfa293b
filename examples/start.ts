/**
 * `npm start`: runs the example blog services (users :4001, posts :4002, comments :4003) and the
 * gateway on the root gateway.toml (http://127.0.0.1:4000/graphql), until SIGINT or SIGTERM.
 * Compiled to dist/examples/start.js, so the repository root is two folders up.
 */
import { fileURLToPath } from 'node:url';
import { startGateway } from '../gateway/server/start.js';
import { startBlog } from './blog/index.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const configPath = fileURLToPath(new URL('../../gateway.toml', import.meta.url));

const SAMPLE_QUERY = '{ posts(limit: 3) { id title author { name } comments { body } } }';

async function main(): Promise<void> {
  const blog = await startBlog();
  const running = await startGateway({ configPath }).catch(async (error: unknown) => {
    await blog.close();
    throw error;
  });

  const body = JSON.stringify({ query: SAMPLE_QUERY });
  process.stdout.write(
    [
      `example services: users ${blog.urls.users}, posts ${blog.urls.posts}, comments ${blog.urls.comments}`,
      `gqlgw listening on ${running.url} (config ${configPath.slice(repoRoot.length)}; GraphiQL in a browser)`,
      'try:',
      `  curl -si ${running.url} -H 'content-type: application/json' -d '${body}'`,
      '',
    ].join('\n'),
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: shutting down\n`);
    Promise.allSettled([running.close(), blog.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
