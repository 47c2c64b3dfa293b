import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { STANDARD_CLAIMS, claimProblem } from '../../directives/auth.js';
import { claimsRead } from './claim-headers.js';
import type { TableReader } from './table-reader.js';
import type { AuthConfig, ClaimHeader } from './types.js';

/** The asymmetric algorithms accepted by default (docs/observability.md). */
export const DEFAULT_ALGORITHMS: readonly string[] = Object.freeze(['RS256', 'PS256', 'ES256', 'EdDSA']);
/** Every algorithm `[auth] algorithms` may list; HMAC ones only on purpose, `none` never. */
const KNOWN_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'HS256',
  'HS384',
  'HS512',
];

export const AUTH_DEFAULTS = { jwksRefetchIntervalS: 30, jwksTimeoutMs: 5000 } as const;

/**
 * Reads `[auth]`: `jwks` (a file relative to gateway.toml, read and checked now, or an https URL;
 * plain http only to a loopback address, for local identity providers and tests), `issuer` and
 * `audience` (both required: a token for another audience must never pass), `required`,
 * `algorithms`, and `claims` (custom claims `{auth.*}` may read).
 */
export function readAuth(t: TableReader | undefined, configDir: string): AuthConfig | undefined {
  if (!t) return undefined;
  for (const key of ['jwks', 'issuer', 'audience']) if (!t.has(key)) t.problem(undefined, `auth.${key} is required`);
  const jwksText = t.string('jwks', '', (v) => (v === '' ? 'must name a JWKS file or an https URL' : undefined));
  const issuer = t.string('issuer', '', (v) => (v === '' ? 'must not be empty' : undefined));
  const audience = t.string('audience', '', (v) => (v === '' ? 'must not be empty' : undefined));
  const required = t.bool('required', false);
  const algorithms = t.strings('algorithms', DEFAULT_ALGORITHMS);
  for (const a of algorithms) {
    if (a.toLowerCase() === 'none')
      t.problem('algorithms', 'auth.algorithms: "none" accepts unsigned tokens, which anyone can write; it cannot be enabled');
    else if (!KNOWN_ALGORITHMS.includes(a))
      t.problem('algorithms', `auth.algorithms: unknown algorithm "${a}" (one of ${KNOWN_ALGORITHMS.join(', ')})`);
  }
  if (algorithms.length === 0) t.problem('algorithms', 'auth.algorithms must list at least one algorithm');
  const claims = t.strings('claims', []);
  const jwksRefetchIntervalS = t.int('jwks_refetch_interval_s', AUTH_DEFAULTS.jwksRefetchIntervalS, 0, 86_400);
  const jwksTimeoutMs = t.int('jwks_timeout_ms', AUTH_DEFAULTS.jwksTimeoutMs, 1, 60_000);
  t.finish();
  const jwks = jwksText === '' ? undefined : readJwks(t, jwksText, configDir);
  if (!jwks) return undefined;
  return Object.freeze({
    jwks,
    issuer,
    audience,
    required,
    algorithms: Object.freeze([...algorithms]),
    claims: Object.freeze([...claims]),
    jwksRefetchIntervalS,
    jwksTimeoutMs,
  });
}

function readJwks(t: TableReader, text: string, configDir: string): AuthConfig['jwks'] | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      t.problem('jwks', `auth.jwks "${text}" is not a valid URL`);
      return undefined;
    }
    const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
      t.problem('jwks', `auth.jwks must be an https:// URL (plain http only to 127.0.0.1 or localhost), found "${text}"`);
      return undefined;
    }
    return Object.freeze({ kind: 'url', url: url.href });
  }
  const file = resolve(configDir, text);
  let keys: unknown;
  try {
    keys = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    t.problem('jwks', `auth.jwks: cannot read the JWKS file ${file}: ${(err as Error).message}`);
    return undefined;
  }
  if (!isKeySet(keys)) {
    t.problem('jwks', `auth.jwks: ${file} must hold a JSON Web Key Set, {"keys": [...]}`);
    return undefined;
  }
  return Object.freeze({ kind: 'file', file, keys });
}

function isKeySet(v: unknown): boolean {
  return typeof v === 'object' && v !== null && Array.isArray((v as { keys?: unknown }).keys);
}

/** A source header reading `{auth.*}`, with the reader of its source table (to report at `headers`). */
export interface ClaimHeaderUse {
  readonly reader: TableReader;
  readonly source: string;
  readonly header: ClaimHeader;
}

/** Every claim a source header reads must exist under [auth] (as for placeholders in the schema). */
export function checkClaimHeaders(uses: readonly ClaimHeaderUse[], auth: AuthConfig | undefined): void {
  const allowed = auth ? new Set([...STANDARD_CLAIMS, ...auth.claims]) : undefined;
  for (const { reader, source, header } of uses) {
    for (const claim of claimsRead(header)) {
      const problem = claimProblem(claim, allowed);
      if (problem) reader.problem('headers', `sources.${source}.headers: "${header.name}" reads {auth.${claim}}, which ${problem}`);
    }
  }
}
