/** gateway.toml: unknown keys and wrong types stop start-up with the key's path and place. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfig, DEFAULTS } from '../../gateway/config/load.js';
import { GatewayConfigError, formatDiagnostic } from '../../gateway/config/diagnostics.js';

function problems(toml: string): string[] {
  try {
    parseConfig(toml, '/x/gateway.toml', 'gateway.toml');
    return [];
  } catch (err) {
    assert.ok(err instanceof GatewayConfigError);
    return err.diagnostics.map(formatDiagnostic);
  }
}

test('the keys of docs/reference.md load, with defaults for what is left out', () => {
  const config = parseConfig(
    `[gateway]
host = "127.0.0.1"
port = 4000
schema = ["schema/*.graphqls"]
debug_headers = false

[sources.users]
url = "http://127.0.0.1:4001/"
timeout_ms = 5000
forward_headers = ["Authorization"]

[cache]
l2_max_entries = 100000

[cache.memcached]
servers = ["127.0.0.1:11211"]

[metrics]
path = "/metrics"
`,
    '/x/gateway.toml',
  );
  assert.equal(config.port, 4000);
  assert.deepEqual(config.schema, ['schema/*.graphqls']);
  const users = config.sources.get('users')!;
  assert.equal(users.url, 'http://127.0.0.1:4001', 'trailing slash dropped');
  assert.deepEqual(users.forwardHeaders, ['authorization'], 'header names lower-cased');
  assert.equal(users.maxResponseBytes, DEFAULTS.maxResponseBytes);
  assert.deepEqual(config.cache.memcached?.servers, ['127.0.0.1:11211']);
  assert.equal(config.cache.memcached?.timeoutMs, DEFAULTS.memcachedTimeoutMs);
  assert.equal(config.metrics.path, '/metrics');
  assert.deepEqual(config.limits, DEFAULTS.limits);
});

test('unknown keys and wrong types name the key path, line and column, all at once', () => {
  assert.deepEqual(
    problems(`[gateway]
port = "4000"
debug = true

[sources.users]
url = "http://127.0.0.1:4001"
timeout_ms = 1.5
forward_headers = "authorization"

[cache]
l2_max_entries = -1

[cache.memcached]
servers = ["localhost"]

[metric]
path = "/m"

[limits]
max_json_depth = 5000
`),
    [
      'gateway.toml:2:1: gateway.port must be an integer, found string "4000"',
      'gateway.toml:3:1: unknown key gateway.debug; did you mean "debug_headers"?',
      'gateway.toml:7:1: sources.users.timeout_ms must be an integer, found number 1.5',
      'gateway.toml:8:1: sources.users.forward_headers must be a list of strings, found string "authorization"',
      'gateway.toml:11:1: cache.l2_max_entries must be between 0 and 9007199254740991, found -1',
      'gateway.toml:14:1: cache.memcached.servers entry "localhost" must be "host:port"',
      'gateway.toml:16:1: unknown key metric; did you mean "metrics"?',
      'gateway.toml:20:1: limits.max_json_depth must be between 1 and 1000, found 5000',
    ],
  );
});

test('a source without url, and a bad url, are errors', () => {
  assert.deepEqual(problems(`[sources.users]\ntimeout_ms = 10\n[sources.posts]\nurl = "ftp://x"\n`), [
    'gateway.toml:1:1: sources.users.url is required',
    'gateway.toml:4:1: sources.posts.url must be an http:// or https:// URL, found "ftp://x"',
  ]);
});

test('invalid TOML is reported with its line and column', () => {
  const [p] = problems(`[gateway]\nport = = 4\n`);
  assert.match(p!, /^gateway\.toml:2:\d+: invalid TOML: /);
});
