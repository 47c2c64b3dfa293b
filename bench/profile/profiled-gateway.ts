/**
 * gqlgw with a CPU profiler attached, for the cost breakdown:
 *   node dist/bench/profile/profiled-gateway.js --config FILE --out PROFILE.cpuprofile
 * Serves through the same `startGateway` the CLI uses and prints the same ready line. Reads
 * commands on stdin: `start` begins sampling (after the warm-up, so start-up is not in the
 * profile), `stop` writes the .cpuprofile and prints `profile written`. Exits on SIGTERM.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createInterface } from 'node:readline';
import { startGateway } from '../../gateway/server/start.js';

function option(name: string): string {
  const i = process.argv.indexOf(name);
  const value = i < 0 ? undefined : process.argv[i + 1];
  if (value === undefined) {
    process.stderr.write(`usage: profiled-gateway.js --config FILE --out FILE [--interval-us N]; missing ${name}\n`);
    process.exit(2);
  }
  return value;
}

const configPath = option('--config');
const outPath = option('--out');
const intervalIndex = process.argv.indexOf('--interval-us');
const intervalUs = intervalIndex < 0 ? 250 : Number(process.argv[intervalIndex + 1]);

const gateway = await startGateway({ configPath, port: 0 });
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
process.stdout.write(`gqlgw listening on ${gateway.url}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  const command = line.trim();
  if (command === 'start') {
    void session.post('Profiler.start').then(() => process.stdout.write('profile started\n'));
  } else if (command === 'stop') {
    void session.post('Profiler.stop').then(({ profile }) => {
      writeFileSync(outPath, JSON.stringify(profile));
      process.stdout.write('profile written\n');
    });
  }
});
process.once('SIGTERM', () => {
  void gateway.close().finally(() => process.exit(0));
});
