import { getNamedType, getNullableType, isListType } from 'graphql';
import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';
import { didYouMean } from './suggest.js';

/**
 * `@listSize(assumed: N, slicing: "limit")` compiled (docs/hardening.md "Cost before anything is
 * sent"): how many items a list field is assumed to have when an operation's planned bound is
 * computed. `slicing` names an `Int` argument of the field; when the request gives it a value
 * (literal, variable or the argument's default) that value is the size, else `assumed`, else
 * `[limits] assumed_list_size`.
 */
export interface ListSize {
  readonly assumed: number | undefined;
  readonly slicing: string | undefined;
}

export function compileListSize(use: DirectiveUse, ctx: FieldContext, problems: Problem[]): ListSize | undefined {
  const before = problems.length;
  const where = `@listSize on ${ctx.coordinate}`;
  const assumed = use.args.assumed as number | null | undefined;
  const slicing = use.args.slicing as string | null | undefined;
  if (!isListType(getNullableType(ctx.field.type))) {
    problems.push({
      message: `${where} has no effect: ${ctx.coordinate} is no list (its type is ${String(ctx.field.type)})`,
      node: use.node,
    });
  }
  if (assumed !== undefined && assumed !== null && assumed < 0) {
    problems.push({ message: `${where}: assumed must be 0 or more items, found ${assumed}`, node: use.node });
  }
  if ((assumed === undefined || assumed === null) && (slicing === undefined || slicing === null)) {
    problems.push({ message: `${where} needs assumed: N or slicing: "ARGUMENT" (or both)`, node: use.node });
  }
  if (slicing !== undefined && slicing !== null) {
    const arg = ctx.field.args.find((a) => a.name === slicing);
    if (!arg) {
      problems.push({
        message: `${where}: slicing names no argument of ${ctx.coordinate}${didYouMean(slicing, [...ctx.argNames])} (arguments: ${[...ctx.argNames].join(', ') || 'none'})`,
        node: use.node,
      });
    } else if (getNamedType(arg.type).name !== 'Int' || isListType(getNullableType(arg.type))) {
      problems.push({ message: `${where}: slicing argument ${slicing} must be an Int, found ${String(arg.type)}`, node: use.node });
    }
  }
  if (problems.length > before) return undefined;
  return Object.freeze({ assumed: assumed ?? undefined, slicing: slicing ?? undefined });
}
