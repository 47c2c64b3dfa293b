/**
 * What `gqlgw check` says about a schema, for diagnostics tests: writes it with one source per
 * name (unreachable URLs: nothing is started) and returns every diagnostic as `line:col: message`,
 * or [] when the schema compiles.
 */
import assert from 'node:assert/strict';
import { buildBlueprint } from '../../gateway/blueprint/build.js';
import { GatewayConfigError } from '../../gateway/config/diagnostics.js';
import { loadConfig } from '../../gateway/config/load.js';
import { writeGatewayFiles } from './gateway.js';

export async function schemaProblems(sdl: string, sourceNames: readonly string[]): Promise<string[]> {
  const sources = Object.fromEntries(sourceNames.map((name, i) => [name, { url: `http://127.0.0.1:${i + 1}` }]));
  const files = await writeGatewayFiles({ schemas: { 's.graphqls': sdl }, sources });
  try {
    buildBlueprint(loadConfig(files.configPath));
    return [];
  } catch (err) {
    assert.ok(err instanceof GatewayConfigError, String(err));
    return err.diagnostics.map((d) => `${d.line}:${d.column}: ${d.message}`);
  } finally {
    await files.cleanup();
  }
}
