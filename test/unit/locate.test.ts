/** config/locate.ts: where a key of gateway.toml stands, for diagnostics after parsing. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { locateKey } from '../../gateway/config/locate.js';

const TOML = [
  '# gqlgw', // 1
  'top = 1', // 2
  '', // 3
  '[gateway]', // 4
  'host = "127.0.0.1"', // 5
  '  port = 4000', // 6
  '"debug_headers" = true', // 7
  '', // 8
  '[sources.users]', // 9
  'url = "http://127.0.0.1:4001"', // 10
  'timeout_ms = 5000', // 11
  '', // 12
  '[ sources . "posts" ]', // 13
  'url = "http://127.0.0.1:4002"', // 14
  '', // 15
  '  [cache.memcached]', // 16
  'servers = ["127.0.0.1:11211"]', // 17
  '[[array.of.tables]]', // 18
  'url = "not a table header"', // 19
].join('\n');

describe('locateKey', () => {
  const cases: ReadonlyArray<[what: string, table: string[], key: string | undefined, at: [number, number]]> = [
    ['a key of the root table', [], 'top', [2, 1]],
    ['a key in [gateway]', ['gateway'], 'host', [5, 1]],
    ['an indented key: its first character', ['gateway'], 'port', [6, 3]],
    ['a quoted key', ['gateway'], 'debug_headers', [7, 1]],
    ['a key of a dotted table', ['sources', 'users'], 'timeout_ms', [11, 1]],
    ['the same key name in another table', ['sources', 'posts'], 'url', [14, 1]],
    ['a table header with spaces and quotes', ['sources', 'posts'], undefined, [13, 1]],
    ['a missing key: its table header', ['sources', 'users'], 'connections', [9, 1]],
    ['a key that is a table: its header', ['cache'], 'memcached', [16, 3]],
    ['an indented table header', ['cache', 'memcached'], 'servers', [17, 1]],
    ['a table that is not written: 1:1', ['metrics'], 'path', [1, 1]],
    ['a key not in the root: 1:1', [], 'nowhere', [1, 1]],
    ['an array of tables is not a table header', ['array', 'of', 'tables'], 'url', [1, 1]],
  ];
  for (const [what, table, key, [line, column]] of cases) {
    test(`${what} → ${line}:${column}`, () => {
      assert.deepEqual(locateKey(TOML, table, key), { line, column });
    });
  }

  test('CRLF line ends count as one line end', () => {
    assert.deepEqual(locateKey('[gateway]\r\nhost = "x"\r\nport = 1\r\n', ['gateway'], 'port'), { line: 3, column: 1 });
  });

  test('a key name is matched literally, not as a pattern', () => {
    assert.deepEqual(locateKey('[t]\naxb = 1\na.b = 2\n', ['t'], 'a.b'), { line: 3, column: 1 });
  });
});
