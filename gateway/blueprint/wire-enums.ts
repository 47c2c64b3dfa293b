import { GraphQLEnumType, getDirectiveValues, type GraphQLEnumValueConfigMap, type GraphQLSchema } from 'graphql';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import type { Problem } from '../../directives/problem.js';

/**
 * Enum values with `@from(value: "open")` (docs/reference.md, *new*): the wire form becomes the
 * value's internal value, so graphql-js coerces an argument `OPEN` to `"open"` (what paths,
 * queries and bodies render) and serialises an upstream `"open"` as `OPEN`. A value without it
 * keeps its name as its wire form (the empty string is a wire form too). Two values of one enum
 * with one wire form, a missing value, or `key`/`path`/`types` on an enum value are problems. Returns a new schema; the given one is not changed.
 */
export function withWireEnumValues(schema: GraphQLSchema, problems: Problem[]): GraphQLSchema {
  const fromDef = schema.getDirective('from')!;
  let changed = false;
  const mapped = mapSchema(schema, {
    [MapperKind.ENUM_TYPE]: (type) => {
      const config = type.toConfig();
      const values: GraphQLEnumValueConfigMap = {};
      const byWire = new Map<string, string>();
      let own = false;
      for (const [name, value] of Object.entries(config.values)) {
        const node = value.astNode?.directives?.find((d) => d.name.value === 'from');
        let wire = name;
        if (node) {
          const args = getDirectiveValues(fromDef, { directives: [node] }) ?? {};
          const at = `@from on enum value ${type.name}.${name}`;
          if (args.key != null || args.path != null || args.types != null)
            problems.push({ message: `${at} takes only value (its wire form, such as @from(value: "open"))`, node });
          if (typeof args.value !== 'string')
            problems.push({
              message: `${at} needs value: the form the source sends and expects, such as @from(value: "open")`,
              node,
            });
          else {
            wire = args.value;
            own = true;
          }
        }
        const other = byWire.get(wire);
        if (other !== undefined)
          problems.push({
            message: `enum ${type.name}: ${name} and ${other} have the same wire form "${wire}"; give each its own @from(value:)`,
            node: node ?? value.astNode ?? undefined,
          });
        byWire.set(wire, name);
        values[name] = { ...value, value: wire };
      }
      if (!own) return type;
      changed = true;
      return new GraphQLEnumType({ ...config, values });
    },
  });
  return changed ? mapped : schema;
}
