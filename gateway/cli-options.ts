/**
 * The commands and flags of `gqlgw` (gateway/cli.ts parses them with node:util parseArgs). Kept
 * apart from cli.ts, which runs on import, so that the docs/reference.md test reads the same table.
 */
export const COMMANDS: readonly string[] = ['serve', 'check', 'plan', 'sdl', 'import'];

export const CLI_OPTIONS = {
  config: { type: 'string', short: 'c' },
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  workers: { type: 'string' },
  operation: { type: 'string' },
  file: { type: 'string', short: 'f' },
  help: { type: 'boolean', short: 'h' },
  watch: { type: 'boolean', short: 'w' },
  strict: { type: 'boolean' },
  source: { type: 'string' },
  out: { type: 'string' },
  variables: { type: 'string' },
} as const;
