/**
 * The gateways of a property run, started once and reloaded for every family of cases (gateway/
 * server/start.ts `reload()`, what SIGHUP does): starting one is the expensive part (a reload
 * costs about a tenth of a second), so a run pays three start-ups and a reload per family.
 *
 * - `reference`: the reference schema, `coalesce` and `batch_across_requests` off, run by the
 *   interpreter (`[gateway] plan = "interpreted"`), so every case checks the compiled plan against it;
 * - `optimised`: the optimised schema (`@batch` with a small `max`, `@cache`), both switches on, L2
 *   and memcached, the compiled plan (the default);
 * - `second`: the optimised schema on the same memcached, its own L2 (cold): a warm memcached.
 *
 * The source `s` forwards `authorization`, and every caller of a case sends a token naming the case
 * (run-case.ts), so no cache entry of one case can answer another (entries are partitioned by the
 * forwarded value).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startGateway, type RunningGateway } from '../../gateway/server/start.js';
import { writeGatewayFiles, type GatewayFiles } from '../support/gateway.js';
import { startMemcached, listItems, type RunningMemcached } from '../support/memcached.js';
import { pollUntil } from '../support/wait.js';
import { schemaText } from './schema-text.js';
import type { Knobs } from './world.js';

export type Role = 'reference' | 'optimised' | 'second';

interface Served {
  readonly files: GatewayFiles;
  readonly running: RunningGateway;
}

export interface GatewayFamily {
  /** The GraphQL endpoint of each role. */
  url(role: Role): string;
  /** Writes the family's schema into every gateway and reloads them; throws when one refuses it. */
  load(knobs: Knobs): Promise<void>;
  /** Resolves once memcached holds every entry the optimised gateway wrote so far. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

function toml(role: Role, sourceUrl: string, memcached: string): string {
  const optimised = role !== 'reference';
  return [
    '[gateway]',
    'host = "127.0.0.1"',
    'port = 0',
    'schema = ["schema.graphqls"]',
    // X-GQL-Cost and X-GQL-Subrequests: the planned bound is checked against what was sent (run-case.ts).
    'debug_headers = true',
    `plan = "${optimised ? 'compiled' : 'interpreted'}"`,
    '',
    '[sources.s]',
    `url = ${JSON.stringify(sourceUrl)}`,
    'forward_headers = ["authorization"]',
    `coalesce = ${optimised}`,
    `batch_across_requests = ${optimised}`,
    '',
    ...(optimised ? ['[cache.memcached]', `servers = ["${memcached}"]`, 'timeout_ms = 1000', ''] : []),
  ].join('\n');
}

interface Target {
  readonly sourceUrl: string;
  readonly memcached: string;
}

async function write(files: GatewayFiles, role: Role, knobs: Knobs, target: Target): Promise<void> {
  await writeFile(path.join(files.dir, 'schema.graphqls'), schemaText(knobs, { source: 's', optimised: role !== 'reference' }));
  await writeFile(files.configPath, toml(role, target.sourceUrl, target.memcached));
}

const ROLES: readonly Role[] = ['reference', 'optimised', 'second'];

export async function startGatewayFamily(sourceUrl: string, firstKnobs: Knobs): Promise<GatewayFamily> {
  const mc: RunningMemcached = await startMemcached();
  const target: Target = { sourceUrl, memcached: mc.address };
  const served = new Map<Role, Served>();
  for (const role of ROLES) {
    const files = await writeGatewayFiles({ schemas: {}, toml: '' });
    await write(files, role, firstKnobs, target);
    served.set(role, { files, running: await startGateway({ configPath: files.configPath, port: 0, host: '127.0.0.1' }) });
  }
  return {
    url: (role) => served.get(role)!.running.url,
    async load(knobs) {
      for (const role of ROLES) {
        const { files, running } = served.get(role)!;
        await write(files, role, knobs, target);
        const report = running.reload();
        if (report.status === 'failed') {
          throw new Error(`the ${role} gateway refused the schema: ${report.diagnostics.map((d) => d.message).join('; ')}`);
        }
      }
    },
    async settled() {
      let last = -1;
      const unchanged = (n: number): boolean => {
        const same = n === last;
        last = n;
        return same;
      };
      await pollUntil(async () => (await listItems(mc.address)).length, unchanged, 2000, 5);
    },
    async close() {
      for (const { files, running } of served.values()) {
        await running.close();
        await files.cleanup();
      }
      await mc.stop();
    },
  };
}
