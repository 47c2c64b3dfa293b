/**
 * `${NAME}` in gateway.toml string values and `[sources.X] headers` (docs/reference.md):
 * expansion, defaults, `$$`, set-but-empty, and file:line:col diagnostics with the fix.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../gateway/config/load.js';
import { GatewayConfigError } from '../../gateway/config/diagnostics.js';

const BASE = `[gateway]
schema = ["\${SCHEMA_DIR:-schema}/*.graphqls"]
host = "\${HOST:-127.0.0.1}"

[sources.users]
url = "http://127.0.0.1:\${USERS_PORT}"
headers = { "X-Api-Key" = "\${USERS_API_KEY}", "x-note" = "costs $$5 or $x" }
`;

function problems(text: string, env: NodeJS.ProcessEnv): string[] {
  try {
    parseConfig(text, '/tmp/gateway.toml', 'gateway.toml', env);
    return [];
  } catch (err) {
    assert.ok(err instanceof GatewayConfigError, String(err));
    return err.message.split('\n');
  }
}

test('${NAME}, ${NAME:-default} and $$ in every string value; header names lower-cased', () => {
  const config = parseConfig(BASE, '/tmp/gateway.toml', 'gateway.toml', { USERS_PORT: '4001', USERS_API_KEY: 'k-123', SCHEMA_DIR: '' });
  const users = config.sources.get('users')!;
  assert.equal(users.url, 'http://127.0.0.1:4001');
  assert.deepEqual(users.headers, { 'x-api-key': 'k-123', 'x-note': 'costs $5 or $x' });
  assert.deepEqual(config.schema, ['schema/*.graphqls'], 'set but empty takes the default with :-');
  assert.equal(config.host, '127.0.0.1');
});

test('a set but empty variable without default is the empty string', () => {
  const config = parseConfig(BASE, '/tmp/gateway.toml', 'gateway.toml', { USERS_PORT: '4001', USERS_API_KEY: '' });
  assert.equal(config.sources.get('users')!.headers?.['x-api-key'], '');
});

test('an unset variable is an error at its file:line:col, with the fix', () => {
  assert.deepEqual(problems(BASE, { USERS_PORT: '4001' }), [
    'gateway.toml:7:28: environment variable USERS_API_KEY is not set: set it, or give a default with ${USERS_API_KEY:-default}',
  ]);
  assert.deepEqual(problems(BASE, {}), [
    'gateway.toml:6:25: environment variable USERS_PORT is not set: set it, or give a default with ${USERS_PORT:-default}',
    'gateway.toml:7:28: environment variable USERS_API_KEY is not set: set it, or give a default with ${USERS_API_KEY:-default}',
  ]);
});

// A header both forwarded and fixed is a fallback token (docs/reference.md), no error: test/auth/subjects.test.ts.
test('malformed references and bad headers are errors', () => {
  const text = `[sources.a]
url = "http://127.0.0.1:1"
headers = { "x-key" = "\${1BAD}" }

[sources.b]
url = "http://127.0.0.1:2"
forward_headers = ["authorization"]
headers = { "Authorization" = "fixed", "Host" = "x", "bad name" = "v" }

[sources.c]
url = "http://127.0.0.1:3"
headers = ["x"]
`;
  assert.deepEqual(problems(text, {}), [
    'gateway.toml:3:24: "${1BAD}" does not name an environment variable: write ${NAME} or ${NAME:-default} (letters, digits, _), or $$ for a literal $',
    'gateway.toml:8:1: sources.b.headers: "Host" is set by the gateway itself; remove it',
    'gateway.toml:8:1: sources.b.headers: "bad name" is not a valid header name',
    'gateway.toml:12:1: sources.c.headers must be a table of strings ({ "name" = "value" }), found a list',
  ]);
});
