import type { DirectiveUse } from './context.js';
import type { Problem } from './problem.js';
import { didYouMean } from './suggest.js';

/**
 * `@auth(scopes:)` and the `{auth.CLAIM}` placeholders (docs/observability.md).
 * Pure: what a claim name may be and what an @auth use compiles to; the blueprint decides which
 * fields a type's @auth guards.
 */

/**
 * The claims a `{auth.*}` placeholder may read without being declared: the registered claims of
 * RFC 7519 and the common OpenID Connect and OAuth ones. Any other claim is listed in `[auth] claims`,
 * so that a typo (`{auth.sbu}`) is an error with a suggestion rather than a silently null value.
 */
export const STANDARD_CLAIMS: readonly string[] = Object.freeze([
  'sub',
  'iss',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'scope',
  'scp',
  'client_id',
  'azp',
  'sid',
  'name',
  'email',
  'email_verified',
  'preferred_username',
  'given_name',
  'family_name',
  'nickname',
  'locale',
  'groups',
  'roles',
]);

/**
 * Why `{auth.NAME}` (its first step `claim`) cannot be used, or undefined when it can. `claims` is
 * every claim the config allows (standard ones and `[auth] claims`); undefined without `[auth]`.
 */
export function claimProblem(claim: string, claims: ReadonlySet<string> | undefined): string | undefined {
  if (!claims) return `needs an [auth] table in gateway.toml (without it no token is read, so there are no claims)`;
  if (claims.has(claim)) return undefined;
  return `names no known claim${didYouMean(claim, claims, (n) => `{auth.${n}}`)} (a claim that is not standard is listed in [auth] claims = ["${claim}"])`;
}

/** The scopes an `@auth` use requires (all of them); problems for empty or repeated ones. */
export function compileAuth(use: DirectiveUse, where: string, hasAuth: boolean, problems: Problem[]): readonly string[] {
  if (!hasAuth) {
    problems.push({
      message: `@auth on ${where} needs an [auth] table in gateway.toml (jwks, issuer, audience); without it no token is checked`,
      node: use.node,
    });
  }
  const scopes = (use.args.scopes as readonly string[] | undefined) ?? [];
  for (const s of scopes) {
    if (s === '' || /\s/.test(s))
      problems.push({ message: `@auth on ${where}: scope "${s}" must be one word without spaces`, node: use.node });
  }
  return Object.freeze([...new Set(scopes)]);
}
