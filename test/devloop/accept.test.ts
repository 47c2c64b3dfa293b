/**
 * `[check] accept` (docs/reference.md "[check]", SPEC "Every warning can be accepted"): every
 * warning `gqlgw check` prints names its kind and coordinate as the entry that accepts it, and
 * `--strict` passes once every warning is accepted; `accept_n_plus_one` still accepts N+1s.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { writeGatewayFiles, type GatewayFiles } from '../support/gateway.js';

/** One warning of every kind: always-null, dotted-key, n-plus-one (twice) and per-caller-cache. */
const SDL = `type Query {
  users: [User] @fetch(source: "api", path: "/users")
  me: User @fetch(source: "private", path: "/me") @cache(ttl: 60)
  nothing: String
}
type User {
  id: ID
  city: String @from(key: "address.city")
  best: User @fetch(source: "api", path: "/users/{parent.id}/best")
  boss: User @fetch(source: "api", path: "/users/{parent.id}/boss")
}
`;

const EVERY = ['always-null:Query.nothing', 'dotted-key:User.city', 'n-plus-one:User.best', 'per-caller-cache:Query.me'];

async function configWith(check: string): Promise<GatewayFiles> {
  return writeGatewayFiles({
    schemas: { 's.graphqls': SDL },
    sources: { api: { url: 'http://127.0.0.1:1' }, private: { url: 'http://127.0.0.1:1', forwardHeaders: ['authorization'] } },
    extraToml: `[check]\n${check}`,
  });
}

describe('[check] accept', () => {
  const files: GatewayFiles[] = [];
  let none: GatewayFiles;
  let all: GatewayFiles;
  let wrong: GatewayFiles;
  before(async () => {
    none = await configWith('');
    all = await configWith(`accept = ${JSON.stringify(EVERY)}\naccept_n_plus_one = ["User.boss"]`);
    wrong = await configWith('accept = ["per-caller-cash:Query.me", "n-plus-one:User.bes", "User.best"]');
    files.push(none, all, wrong);
  });
  after(async () => {
    for (const f of files) await f.cleanup();
  });

  test('each warning prints the entry that accepts it; --strict fails while one is left', async () => {
    const run = await runCli(['check', '--config', none.configPath, '--strict']);
    assert.equal(run.status, 1);
    const shown = [...run.stderr.matchAll(/: warning: .* \[([a-z-]+:[A-Za-z.]+)\]$/gm)].map((m) => m[1]).sort();
    assert.deepEqual(shown, [...EVERY, 'n-plus-one:User.boss'].sort());
    assert.match(run.stderr, /5 warnings in \S*s\.graphqls; --strict makes warnings fail/);
  });

  test('--strict passes when every warning is accepted (accept and accept_n_plus_one)', async () => {
    const run = await runCli(['check', '--config', all.configPath, '--strict']);
    assert.deepEqual([run.status, run.stderr], [0, '']);
    assert.equal(run.stdout, `${all.configPath}: ok\n`);
  });

  test('an entry naming no warning kind or no field is an error at its place, with "did you mean"', async () => {
    const run = await runCli(['check', '--config', wrong.configPath]);
    assert.equal(run.status, 1);
    const errors = run.stderr.split('\n').filter((l) => l.includes('check.accept entry'));
    assert.equal(errors.length, 3, run.stderr);
    assert.match(
      errors[0]!,
      /gateway\.toml:\d+:\d+: check\.accept entry "per-caller-cash:Query\.me" names no warning kind.*did you mean "per-caller-cache"\?/,
    );
    assert.match(
      errors[1]!,
      /check\.accept entry "n-plus-one:User\.bes" names no field of the schema: "User\.bes"; did you mean "User\.best"\?/,
    );
    assert.match(errors[2]!, /check\.accept entry "User\.best" names no warning kind/);
  });
});
