/**
 * Process entry of a benchmark server other than gqlgw:
 *   node dist/bench/serve.js ROLE [--port N] [--backend URL]
 * Prints `bench-ROLE listening on URL` when ready (like gqlgw's ready line); exits on SIGTERM/SIGINT.
 */
import { isRole, startRole } from './peers/roles.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

const role = process.argv[2] ?? '';
if (!isRole(role)) {
  process.stderr.write(`usage: serve.js ROLE [--port N] [--backend URL]; unknown role "${role}"\n`);
  process.exit(2);
}
const running = await startRole(role, { port: Number(option('--port') ?? 0), backendUrl: option('--backend') });
process.stdout.write(`bench-${role} listening on ${running.url}\n`);
const stop = (): void => {
  running.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
