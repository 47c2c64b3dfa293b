import { getDirectiveValues, isObjectType, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
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

/** What compileAuthGuards answers: the guard of each field, and of each type with `@auth`. */
export interface AuthGuards {
  /**
   * A field's guard, from its coordinate, its parent object type, its named type and its compiled
   * fetch; undefined when it is open.
   */
  field(coordinate: string, parentType: string, namedType: string, fetch: FetchBlueprint | undefined): AuthGuard | undefined;
  /** What reading an object of this type needs (`@auth` on it or on an interface it implements). */
  type(typeName: string): AuthGuard | undefined;
}

/**
 * Which fields need a caller with a valid token (docs/observability.md): `@auth` on the field,
 * `@auth` on the type it returns (alone or as a list), `@auth` on the object type it belongs to or
 * on an interface that type implements (so a guarded type holds on every path that reaches it:
 * `_entities`, union members, interface fields, fragments), and a fetch that reads `{auth.*}` in
 * its path or body or whose source sends a `{auth.*}` header. Their scopes add up. Reports `@auth`
 * without [auth].
 */
export function compileAuthGuards(
  schema: GraphQLSchema,
  fieldUses: ReadonlyMap<string, ReadonlyMap<string, ReadonlyMap<string, DirectiveUse>>>,
  config: GatewayConfig,
  problems: Problem[],
): AuthGuards {
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
  const ofType = new Map<string, readonly string[]>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const scopes = [byType.get(type.name), ...type.getInterfaces().map((i) => byType.get(i.name))].filter((s) => s !== undefined);
    if (scopes.length > 0) ofType.set(type.name, [...new Set(scopes.flat())]);
  }
  const guard = (...parts: Array<readonly string[] | undefined>): AuthGuard => {
    const scopes = [...new Set(parts.flatMap((p) => p ?? []))];
    return scopes.length === 0 ? OPEN : Object.freeze({ scopes: Object.freeze(scopes) });
  };
  return {
    field(coordinate, parentType, namedType, fetch) {
      const own = byField.get(coordinate);
      const typed = byType.get(namedType);
      const parent = ofType.get(parentType);
      const reads = fetch !== undefined && readsClaims(fetch);
      if (!own && !typed && !parent && !reads) return undefined;
      return guard(own, typed, parent);
    },
    type(typeName) {
      const scopes = ofType.get(typeName);
      return scopes ? guard(scopes) : undefined;
    },
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
