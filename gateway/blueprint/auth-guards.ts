import { getDirectiveValues, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { STANDARD_CLAIMS, compileAuth } from '../../directives/auth.js';
import type { DirectiveUse } from '../../directives/context.js';
import type { Problem } from '../../directives/problem.js';
import type { GatewayConfig } from '../config/types.js';
import type { AuthGuard, FetchBlueprint } from './types.js';

/** The claims `{auth.*}` may read under this config; undefined without [auth]. */
export function allowedClaims(config: GatewayConfig): ReadonlySet<string> | undefined {
  return config.auth ? new Set([...STANDARD_CLAIMS, ...config.auth.claims]) : undefined;
}

const OPEN: AuthGuard = Object.freeze({ scopes: Object.freeze([]) as readonly string[] });

/**
 * Which fields need a caller with a valid token (docs/observability.md), as a
 * function of a field's coordinate, its named type and its compiled fetch: `@auth` on the field,
 * `@auth` on the object type it returns (alone or as a list), and a fetch that reads `{auth.*}` in
 * its path or body or whose source sends a `{auth.*}` header. Their scopes add up. Reports `@auth`
 * without [auth].
 */
export function compileAuthGuards(
  schema: GraphQLSchema,
  fieldUses: ReadonlyMap<string, ReadonlyMap<string, ReadonlyMap<string, DirectiveUse>>>,
  config: GatewayConfig,
  problems: Problem[],
): (coordinate: string, namedType: string, fetch: FetchBlueprint | undefined) => AuthGuard | undefined {
  const hasAuth = config.auth !== undefined;
  const byType = new Map<string, readonly string[]>();
  const def = schema.getDirective('auth')!;
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    const nodes = [type.astNode, ...((type as GraphQLObjectType).extensionASTNodes ?? [])];
    for (const node of nodes) {
      for (const d of node?.directives ?? []) {
        if (d.name.value !== 'auth') continue;
        try {
          const args = getDirectiveValues(def, { directives: [d] }) ?? {};
          byType.set(type.name, [...(byType.get(type.name) ?? []), ...compileAuth({ node: d, args }, type.name, hasAuth, problems)]);
        } catch (err) {
          problems.push({ message: `@auth on ${type.name}: ${(err as Error).message}`, node: d });
        }
      }
    }
  }
  const byField = new Map<string, readonly string[]>();
  for (const [typeName, fields] of fieldUses) {
    for (const [fieldName, uses] of fields) {
      const use = uses.get('auth');
      if (use) byField.set(`${typeName}.${fieldName}`, compileAuth(use, `${typeName}.${fieldName}`, hasAuth, problems));
    }
  }
  return (coordinate, namedType, fetch) => {
    const own = byField.get(coordinate);
    const typed = byType.get(namedType);
    const reads = fetch !== undefined && readsClaims(fetch);
    if (!own && !typed && !reads) return undefined;
    const scopes = [...new Set([...(own ?? []), ...(typed ?? [])])];
    return scopes.length === 0 ? OPEN : Object.freeze({ scopes: Object.freeze(scopes) });
  };
}

/** Whether a fetch's path, body or source headers read a claim of the caller's token. */
function readsClaims(fetch: FetchBlueprint): boolean {
  return (
    fetch.template.placeholders.some((p) => p.kind === 'auth') ||
    (fetch.body?.template.placeholders.some((p) => p.kind === 'auth') ?? false) ||
    (fetch.source.claimHeaders?.length ?? 0) > 0
  );
}
