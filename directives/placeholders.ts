import type { Placeholder } from './template.js';
import type { FieldContext } from './context.js';
import { didYouMean } from './suggest.js';

/**
 * Checks that every `{parent.F}` names a plain (not fetched) field of the parent type and every
 * `{args.A}` an argument of the field. Returns one message per bad placeholder.
 */
export function checkPlaceholders(
  directive: string,
  placeholders: readonly Placeholder[],
  ctx: FieldContext,
): string[] {
  const messages: string[] = [];
  for (const p of placeholders) {
    if (p.kind === 'parent') {
      const field = ctx.parentFields.get(p.name);
      if (!field) {
        const known = [...ctx.parentFields.keys()].join(', ') || 'none';
        messages.push(`${directive} on ${ctx.coordinate}: {parent.${p.name}} names no field of ${ctx.typeName}${didYouMean(p.name, ctx.parentFields.keys(), (n) => `{parent.${n}}`)} (fields: ${known})`);
      } else if (field.fetched) {
        messages.push(`${directive} on ${ctx.coordinate}: {parent.${p.name}} names a field that is itself fetched; placeholders read the parent's own data`);
      }
    } else if (p.kind === 'args' && !ctx.argNames.has(p.name)) {
      const known = [...ctx.argNames].join(', ') || 'none';
      messages.push(`${directive} on ${ctx.coordinate}: {args.${p.name}} names no argument of ${ctx.coordinate}${didYouMean(p.name, ctx.argNames, (n) => `{args.${n}}`)} (arguments: ${known})`);
    }
  }
  return messages;
}
