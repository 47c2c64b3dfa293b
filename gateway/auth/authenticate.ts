import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { AuthConfig } from '../config/types.js';
import { ANONYMOUS, type Authenticate, type Authentication, type RequestAccess } from './access.js';
import { KeySet, KeySetUnavailable } from './key-set.js';

/** Clock skew allowed on `exp` and `nbf` (docs/observability.md). */
export const CLOCK_SKEW_S = 30;

const MISSING: Authentication = Object.freeze({ refused: 'this gateway needs a bearer token in the Authorization header' });
const FREE: Authentication = Object.freeze({ access: ANONYMOUS });

/**
 * The token check of `[auth]` (docs/observability.md): a `Bearer` token in
 * Authorization is verified with jose against the key set (signature with an allowed algorithm,
 * `exp`/`nbf` with 30 s of skew, `iss`, `aud`). An invalid one is refused whatever `required` says;
 * a missing one only with `required = true` (an Authorization of another scheme counts as missing).
 * A refusal's message says what was wrong with the token, never the token or a claim.
 */
export function createAuthenticator(config: AuthConfig): { authenticate: Authenticate; keys: KeySet } {
  const keys = new KeySet(config);
  const options = {
    issuer: config.issuer,
    audience: config.audience,
    algorithms: [...config.algorithms],
    clockTolerance: CLOCK_SKEW_S,
  };

  async function verify(token: string): Promise<Authentication> {
    const malformed = malformedWhy(token, options.algorithms);
    if (malformed) return { refused: malformed };
    let getKey: JWTVerifyGetKey;
    try {
      getKey = await keys.current();
    } catch (err) {
      return { refused: unavailable(err) };
    }
    try {
      return accessOf((await jwtVerify(token, getKey, options)).payload);
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') return { refused: whyRefused(err) };
    }
    // The token names a key we do not hold: the provider may have rotated its keys.
    const fresh = keys.refetch();
    if (!fresh) return { refused: 'the bearer token is signed by an unknown key' };
    try {
      getKey = await fresh;
    } catch (err) {
      return { refused: unavailable(err) };
    }
    try {
      return accessOf((await jwtVerify(token, getKey, options)).payload);
    } catch (err) {
      return { refused: whyRefused(err) };
    }
  }

  const authenticate: Authenticate = (authorization) => {
    const token = bearerToken(authorization);
    if (token === undefined) return config.required ? MISSING : FREE;
    return verify(token);
  };
  return { authenticate, keys };
}

/** The token of `Bearer <token>` (scheme case-insensitive); undefined for none or another scheme. */
function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization);
  return m ? m[1] : undefined;
}

/**
 * Why a token is refused before any key is looked at (so a malformed token never causes a key-set
 * fetch): it is no JWS compact JWT with a JSON header and claims set, or its algorithm is not one
 * this gateway accepts. Undefined: well-formed, its signature is still to be checked.
 */
function malformedWhy(token: string, algorithms: readonly string[]): string | undefined {
  try {
    const header = decodeProtectedHeader(token);
    decodeJwt(token);
    if (typeof header.alg !== 'string' || !algorithms.includes(header.alg))
      return 'the bearer token is signed with an algorithm this gateway does not accept';
    return undefined;
  } catch {
    return 'the bearer token is not a valid JWT';
  }
}

function accessOf(claims: JWTPayload): Authentication {
  const access: RequestAccess = { claims: Object.freeze({ ...claims }), scopes: scopesOf(claims) };
  return { access };
}

/** The scopes a token grants: `scope` split at white space, or `scp` as a list (or one string). */
export function scopesOf(claims: JWTPayload): ReadonlySet<string> {
  const out = new Set<string>();
  if (typeof claims.scope === 'string') for (const s of claims.scope.split(/\s+/)) if (s) out.add(s);
  const scp = claims.scp;
  if (Array.isArray(scp)) for (const s of scp) if (typeof s === 'string') out.add(s);
  if (typeof scp === 'string') for (const s of scp.split(/\s+/)) if (s) out.add(s);
  return out;
}

/** What was wrong with a token, from jose's error code and claim; never its text or values. */
function whyRefused(err: unknown): string {
  const { code, claim } = err as { code?: string; claim?: string };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'the bearer token has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'nbf') return 'the bearer token is not valid yet';
      if (claim === 'iss') return 'the bearer token is from another issuer';
      if (claim === 'aud') return 'the bearer token is for another audience';
      return `the bearer token's "${claim ?? 'claims'}" claim is invalid`;
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'the bearer token has an invalid signature';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return 'the bearer token is signed with an algorithm this gateway does not accept';
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return 'the bearer token is signed by an unknown key';
    default:
      return 'the bearer token is not a valid JWT';
  }
}

function unavailable(err: unknown): string {
  const why = err instanceof KeySetUnavailable ? err.message : 'the key set could not be read';
  return `the bearer token cannot be verified now: ${why}`;
}
