import {
  getNamedType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';

/**
 * GraphiQL's default tab: a real query of the served schema, and one line on where the X-GQL-*
 * counts show. The query is the first root field that needs no argument, preferring a list whose
 * objects have an object field (a second round: `{ posts { id title author { name } } }` for the
 * example blog), with up to two of its leaf fields and the first leaf of that object field (a name
 * before an id). A schema without such a field gets `{ __typename }`.
 */
export function sampleQuery(schema: GraphQLSchema, debugMode: boolean): string {
  const counts = debugMode
    ? '# Each answer\'s X-GQL-Rounds / X-GQL-Subrequests / X-GQL-Batches counts show in the result under "extensions" > "gqlgw" (and as response headers).'
    : '# Set debug_headers = true in gateway.toml to see each answer\'s X-GQL-Rounds / X-GQL-Subrequests / X-GQL-Batches counts under "extensions" > "gqlgw".';
  return `${counts}\n${sampleSelection(schema.getQueryType())}\n`;
}

function sampleSelection(query: GraphQLObjectType | null | undefined): string {
  const roots = query ? usable(query).filter((f) => !f.name.startsWith('_')) : [];
  let best: { readonly field: GraphQLField<unknown, unknown>; readonly score: number } | undefined;
  for (const field of roots) {
    const type = getNamedType(field.type);
    const nested = isObjectType(type) && usable(type).some((f) => isObjectType(getNamedType(f.type)));
    const score = (isObjectType(type) ? 1 : 0) + (nested ? 1 : 0) + (nested && isList(field) ? 1 : 0);
    if (!best || score > best.score) best = { field, score };
  }
  if (!best) return '{\n  __typename\n}';
  const type = getNamedType(best.field.type);
  if (!isObjectType(type)) return `{\n  ${best.field.name}\n}`;
  const lines = [`{`, `  ${best.field.name} {`, ...leaves(type, 2).map((name) => `    ${name}`)];
  const inner = usable(type).find((f) => isObjectType(getNamedType(f.type)));
  const innerType = inner && getNamedType(inner.type);
  if (inner && isObjectType(innerType)) {
    const named = leaves(innerType, Infinity);
    const pick = named.find((n) => n !== 'id') ?? named[0] ?? '__typename';
    lines.push(`    ${inner.name} {`, `      ${pick}`, `    }`);
  }
  if (lines.length === 2) lines.push('    __typename');
  lines.push('  }', '}');
  return lines.join('\n');
}

/** The fields of `type` a query can select without arguments. */
function usable(type: GraphQLObjectType): Array<GraphQLField<unknown, unknown>> {
  return Object.values(type.getFields()).filter((f) => f.args.every((a) => !isNonNullType(a.type) || a.defaultValue !== undefined));
}

function leaves(type: GraphQLObjectType, max: number): string[] {
  return usable(type)
    .filter((f) => isLeafType(getNamedType(f.type)))
    .slice(0, max)
    .map((f) => f.name);
}

function isList(field: GraphQLField<unknown, unknown>): boolean {
  const type = isNonNullType(field.type) ? field.type.ofType : field.type;
  return isListType(type);
}
