import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';

/** `@from(key)`: the field's value is the parent JSON object's `key`. */
export function compileFrom(use: DirectiveUse, ctx: FieldContext, problems: Problem[]): string | undefined {
  const key = use.args.key;
  if (typeof key !== 'string' || key === '') {
    problems.push({ message: `@from on ${ctx.coordinate} needs a non-empty key`, node: use.node });
    return undefined;
  }
  return key;
}
