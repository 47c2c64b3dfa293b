/**
 * Runs the GitHub-shaped example: the service (examples/github/service.ts, :4011) and a gateway on
 * examples/github/gateway.toml (http://127.0.0.1:4010/graphql), until SIGINT or SIGTERM.
 *   npm run build && node dist/examples/github/start.js
 */
import { fileURLToPath } from 'node:url';
import { startGateway } from '../../gateway/server/start.js';
import { startGithubService } from './service.js';

const configPath = fileURLToPath(new URL('../../../examples/github/gateway.toml', import.meta.url));
const SAMPLE =
  '{ repo(owner: "octocat", name: "hello-world") { stars licenseName ownerProfile { name city } issues { title assignees { login } } } }';

async function main(): Promise<void> {
  const service = await startGithubService({ port: Number(process.env.GITHUB_EXAMPLE_PORT ?? 4011) });
  const gateway = await startGateway({ configPath }).catch(async (error: unknown) => {
    await service.close();
    throw error;
  });
  process.stdout.write(
    `github example service ${service.url}\ngqlgw listening on ${gateway.url}\ntry:\n  curl -s ${gateway.url} -H 'content-type: application/json' -d '${JSON.stringify({ query: SAMPLE })}'\n`,
  );
  const stop = (): void => {
    void Promise.allSettled([gateway.close(), service.close()]).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
