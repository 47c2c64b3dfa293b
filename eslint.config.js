// ESLint flat config. Beyond typescript-eslint's recommended rules it enforces the house rules of
// docs/lint.md: no shadowed names, at most four parameters (more want an options object), and
// "imports go one way" between the folders of gateway/ (see docs/lint.md for the layer order).
import tseslint from 'typescript-eslint';

/** One restricted-import pattern: any import whose specifier matches `regex`. */
function banned(regex, message) {
  return { regex, message };
}

// Import specifiers are relative (`../server/limits.js`) or packages (`prom-client`); a folder is
// recognised by a path segment, so these match from any depth.
const gatewayDir = banned('(^|/)gateway/', 'directives/ is pure: it knows nothing of gateway/.');
const http = [
  banned('^(node:)?(http|https|net)$', 'no HTTP here: that is gateway/server/ and gateway/upstream/.'),
  banned('^(undici|graphql-yoga|@graphql-yoga/.*)$', 'no HTTP here: that is gateway/server/ and gateway/upstream/.'),
];
const metrics = banned('^prom-client$', 'metrics live in gateway/observability/; report through the execute listener.');
const yoga = banned('^(graphql-yoga|@graphql-yoga/.*)$', 'graphql-yoga is wired only in gateway/server/.');
const io = banned('^(node:)?(fs|fs/promises|net|http|https|child_process)$', 'directives/ does no I/O.');
const folder = (name, who) => banned(`(^|/)${name}/`, `${who} must not import ${name}/: imports go one way (docs/lint.md).`);
const cli = banned('(^|/)cli\\.js$', 'nothing imports the CLI.');
const hall = banned('(^|/)executor\\.js$', "execute/'s rooms do not import the executor that runs them.");
const outsideProduct = banned('(^|/)(test|bench|examples)/', 'the product does not import tests, the benchmark or the examples.');

/** Folder of gateway/ → what it must not import. Layers, lowest first:
 *  directives → errors.ts → config → blueprint → plan → cache, upstream → auth → execute → live → observability → server → cli.ts */
const boundaries = {
  'directives/**/*.ts': [gatewayDir, io, ...http, metrics],
  // The error codes and their constructors: the lowest layer of gateway/, which every folder imports.
  'gateway/errors.ts': [
    ...['config', 'blueprint', 'plan', 'cache', 'upstream', 'execute', 'auth', 'live', 'observability', 'server', 'import'].map((f) =>
      folder(f, 'errors.ts'),
    ),
    ...http,
    metrics,
  ],
  'gateway/config/**/*.ts': [
    ...['blueprint', 'plan', 'cache', 'upstream', 'auth', 'execute', 'observability', 'server'].map((f) => folder(f, 'config/')),
    ...http,
    metrics,
  ],
  'gateway/blueprint/**/*.ts': [
    ...['plan', 'cache', 'upstream', 'auth', 'execute', 'observability', 'server'].map((f) => folder(f, 'blueprint/')),
    ...http,
    metrics,
  ],
  'gateway/plan/**/*.ts': [
    ...['cache', 'upstream', 'auth', 'execute', 'observability', 'server'].map((f) => folder(f, 'plan/')),
    ...http,
    metrics,
  ],
  'gateway/cache/**/*.ts': [...['plan', 'auth', 'execute', 'observability', 'server'].map((f) => folder(f, 'cache/')), yoga, metrics],
  'gateway/upstream/**/*.ts': [
    ...['plan', 'cache', 'auth', 'execute', 'observability', 'server'].map((f) => folder(f, 'upstream/')),
    yoga,
    metrics,
  ],
  'gateway/execute/**/*.ts': [...['observability', 'server', 'live'].map((f) => folder(f, 'execute/')), yoga, metrics],
  // execute/'s rooms, lowest first: send (how to ask together) → ask (what to ask) → answer (what to
  // answer) → executor.ts, the hall that runs one operation through them (gateway/execute/README.md).
  'gateway/execute/send/**/*.ts': [
    ...['observability', 'server', 'live', 'ask', 'answer'].map((f) => folder(f, 'execute/send/')),
    hall,
    yoga,
    metrics,
  ],
  'gateway/execute/ask/**/*.ts': [
    ...['observability', 'server', 'live', 'answer'].map((f) => folder(f, 'execute/ask/')),
    hall,
    yoga,
    metrics,
  ],
  'gateway/execute/answer/**/*.ts': [...['observability', 'server', 'live'].map((f) => folder(f, 'execute/answer/')), hall, yoga, metrics],
  // Small tools that know nothing of the gateway: the lowest floor of gateway/ beside errors.ts.
  'gateway/util/**/*.ts': [
    ...['config', 'blueprint', 'plan', 'cache', 'upstream', 'execute', 'auth', 'live', 'observability', 'server', 'import'].map((f) =>
      folder(f, 'util/'),
    ),
    ...http,
    yoga,
    metrics,
  ],
  'gateway/observability/**/*.ts': [folder('server', 'observability/'), yoga],
  // Live data (subscriptions, polls, webhooks): above execute and auth, below the server; it reports
  // through its listener (observability/ implements it) and speaks no HTTP (server/ has the transports).
  'gateway/live/**/*.ts': [...['observability', 'server'].map((f) => folder(f, 'live/')), ...http, yoga, metrics],
  // The token check of [auth] and the types of who asks: below the executor, which reads them.
  'gateway/auth/**/*.ts': [...['execute', 'live', 'observability', 'server'].map((f) => folder(f, 'auth/')), yoga, metrics],
  // The importer reads an OpenAPI document and writes schema text: it needs none of the gateway.
  'gateway/import/**/*.ts': [
    ...['config', 'blueprint', 'plan', 'cache', 'upstream', 'execute', 'observability', 'server'].map((f) => folder(f, 'import/')),
    ...http,
    metrics,
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/out/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      'no-shadow': 'off',
      '@typescript-eslint/no-shadow': 'error',
      'max-params': ['error', 4],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['gateway/**/*.ts', 'directives/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [outsideProduct, cli] }] },
  },
  // A function of the product reads top to bottom on one screen or two: at most 80 lines, blank
  // lines and comments not counted. A longer one says why in an eslint-disable comment.
  {
    files: ['gateway/**/*.ts', 'directives/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  ...Object.entries(boundaries).map(([files, patterns]) => ({
    files: [files],
    rules: { 'no-restricted-imports': ['error', { patterns: [outsideProduct, cli, ...patterns] }] },
  })),
);
