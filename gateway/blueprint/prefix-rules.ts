import { getDirectiveValues, type GraphQLSchema } from 'graphql';
import { compilePathTemplate } from '../../directives/template.js';
import { compilePrefixRule, type PrefixRule } from '../../directives/prefix-rule.js';

const RESULT = /\{result\./g;

/**
 * The `@invalidate(prefix: true)` rules of the schema's Mutation fields, by source: what every
 * @cache field of that source keys its entries' generations by. Malformed uses are skipped here;
 * compileInvalidations reports them.
 */
export function prefixRulesBySource(schema: GraphQLSchema): Map<string, PrefixRule[]> {
  const out = new Map<string, PrefixRule[]>();
  const def = schema.getDirective('invalidate');
  const mutation = schema.getMutationType();
  if (!def || !mutation) return out;
  for (const field of Object.values(mutation.getFields())) {
    for (const d of field.astNode?.directives ?? []) {
      if (d.name.value !== 'invalidate') continue;
      let args: Record<string, unknown>;
      try {
        args = getDirectiveValues(def, { directives: [d] }) ?? {};
      } catch {
        continue;
      }
      if (args.prefix !== true || typeof args.source !== 'string' || typeof args.path !== 'string') continue;
      const compiled = compilePathTemplate(args.path.replace(RESULT, '{parent.'));
      if (!compiled.ok) continue;
      const rules = out.get(args.source) ?? [];
      rules.push(compilePrefixRule(compiled.template));
      out.set(args.source, rules);
    }
  }
  return out;
}
