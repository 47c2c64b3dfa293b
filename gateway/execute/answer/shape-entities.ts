import { defaultFieldResolver, getNamedType, isAbstractType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import type { Blueprint } from '../../blueprint/types.js';
import { ENTITIES_COORDINATE } from '../../blueprint/federation.js';
import type { ResultStore } from '../send/result-store.js';

/** What these resolvers read of the shaper's context (execute/answer/shape.ts ShapeContext). */
interface StoreContext {
  readonly store: ResultStore;
}

type StoreResolver<C> = (coordinate: string, nonNull: boolean, sourceName: string) => GraphQLFieldResolver<unknown, C>;

/**
 * The shaping schema's part for entities (docs/federation.md), laid over
 * what execute/answer/shape.ts built: every field whose value may be a partial object completed by a
 * @lookup (its named type has one, or is a union or interface that may hold one) reads through
 * the store's completions (ResultStore.completedValue), and `Query._entities` reads the store like
 * a fetched field. The schema as it is when nothing in the blueprint needs either.
 */
export function readingEntities<C extends StoreContext>(
  blueprint: Blueprint,
  shaped: GraphQLSchema,
  fromStore: StoreResolver<C>,
): GraphQLSchema {
  const completable = completableTypes(blueprint);
  if (completable.size === 0 && !blueprint.federation) return shaped;
  return mapSchema(shaped, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      const coordinate = `${typeName}.${fieldName}`;
      const base =
        coordinate === ENTITIES_COORDINATE && blueprint.federation
          ? fromStore(coordinate, true, 'gateway')
          : ((field.resolve ?? defaultFieldResolver) as GraphQLFieldResolver<unknown, C>);
      if (!completable.has(getNamedType(field.type).name)) return base === field.resolve ? field : { ...field, resolve: base };
      const resolve: GraphQLFieldResolver<unknown, C> = (source, args, ctx, info) =>
        ctx.store.completedValue(base(source, args, ctx, info));
      return { ...field, resolve };
    },
  });
}

/** Object types with a @lookup, and the unions and interfaces that may hold one. */
function completableTypes(blueprint: Blueprint): Set<string> {
  const out = new Set<string>();
  if (blueprint.lookups.size === 0) return out;
  const { schema } = blueprint;
  for (const type of Object.values(schema.getTypeMap())) {
    if (blueprint.lookups.has(type.name)) out.add(type.name);
    else if (isAbstractType(type) && schema.getPossibleTypes(type).some((t) => blueprint.lookups.has(t.name))) out.add(type.name);
  }
  return out;
}
