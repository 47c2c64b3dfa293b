import {
  getNamedType,
  isCompositeType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLCompositeType,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';
import { bindPlaceholders, type PathTemplate, type Placeholder } from './template.js';
import type { FieldContext } from './context.js';
import { didYouMean } from './suggest.js';
import { claimProblem } from './auth.js';

export interface BoundTemplate {
  /** The template with each `{parent.*}` reading through every step's @from. */
  readonly template: PathTemplate;
  /** One message per bad placeholder. */
  readonly messages: string[];
  /** The (bound) placeholders whose value is a list (`tagIds: [ID!]!`, `{args.ids}`). */
  readonly lists: readonly Placeholder[];
}

/**
 * Checks every placeholder of a template against the schema and binds it: `{parent.a.b}` steps
 * through fields of the parent type and of each step's object type (none of them fetched, none a
 * list before the last step), reading each through its @from; `{args.a.b}` through the field's
 * arguments and input fields. The last step must be a scalar, an enum or a list of them: a URL
 * never carries an object.
 */
export function bindTemplate(directive: string, template: PathTemplate, ctx: FieldContext): BoundTemplate {
  const messages: string[] = [];
  const lists: Placeholder[] = [];
  const isList = new Set<Placeholder>();
  const bound = bindPlaceholders(template, (p) => {
    if (p.kind === 'keys') return p;
    const at = `${directive} on ${ctx.coordinate}: {${p.kind}.${p.name}}`;
    if (p.kind === 'auth') {
      const problem = claimProblem(p.steps[0]!, ctx.authClaims);
      if (problem) messages.push(`${at} ${problem}`);
      return p;
    }
    const step = p.kind === 'parent' ? stepParent(p.steps, ctx, 'scalar') : stepArgs(p.steps, ctx);
    if (typeof step === 'string') {
      messages.push(step.startsWith(':') ? `${at}${step}` : `${at} ${step}`);
      return p;
    }
    const b = { ...p, read: step.read };
    if (step.list) isList.add(b);
    return b;
  });
  for (const p of bound.placeholders) if (isList.has(p)) lists.push(p);
  return { template: bound, messages, lists };
}

/** The JSON steps a placeholder reads and whether its value is a list; or why it names nothing. */
export type Step = { read: readonly string[]; list: boolean } | string;

/**
 * Walks `{parent.a.b}` through the parent type: each step a field of the type before it (object or
 * interface), none of them fetched, none a list before the last, read through its @from. The last
 * step ends at a scalar or enum (`ends: 'scalar'`, a URL) or at anything (`'any'`, a JSON body,
 * which sends an object or a list as JSON). A message starting with ":" follows the placeholder
 * directly; any other follows it after a space.
 */
export function stepParent(steps: readonly string[], ctx: FieldContext, ends: 'scalar' | 'any'): Step {
  let owner: { name: string; getFields(): Record<string, { type: GraphQLOutputType }> } = ctx.parentType;
  const read: string[] = [];
  for (let i = 0; i < steps.length; i++) {
    const name = steps[i]!;
    const field = owner.getFields()[name];
    if (!field) {
      const names = Object.keys(owner.getFields());
      const known = names.join(', ') || 'none';
      if (i > 0) return `: "${name}" is no field of ${owner.name}${didYouMean(name, names)} (fields: ${known})`;
      return `names no field of ${owner.name}${didYouMean(name, names, (n) => `{parent.${n}}`)} (fields: ${known})`;
    }
    if (ctx.isFetched(owner.name, name)) {
      return `names a field that is itself fetched; placeholders read the parent's own data`;
    }
    read.push(...(isObjectType(owner) ? ctx.readOf(owner.name, name) : [name]));
    const named = getNamedType(field.type);
    const list = isListType(isNonNullType(field.type) ? field.type.ofType : field.type);
    if (i === steps.length - 1) {
      if (ends === 'scalar' && isCompositeType(named))
        return `ends at ${named.name}, which has fields: name one of them, such as {parent.${[...steps, firstField(named)].join('.')}}`;
      return { read, list };
    }
    if (list) return `steps through the list field ${owner.name}.${name}; a placeholder can only step through single objects`;
    if (!isObjectType(named) && !isInterfaceType(named))
      return `: ${owner.name}.${name} is a ${named.name}, which has no field "${steps[i + 1]}"`;
    owner = named;
  }
  return { read, list: false };
}

function stepArgs(steps: readonly string[], ctx: FieldContext): Step {
  const first = ctx.field.args.find((a) => a.name === steps[0]);
  if (!first) {
    const names = ctx.field.args.map((a) => a.name);
    return `names no argument of ${ctx.coordinate}${didYouMean(steps[0]!, names, (n) => `{args.${n}}`)} (arguments: ${names.join(', ') || 'none'})`;
  }
  let type: GraphQLInputType = first.type;
  for (let i = 1; i <= steps.length; i++) {
    const named = getNamedType(type);
    const list = isListType(isNonNullType(type) ? type.ofType : type);
    if (i === steps.length) {
      if (isInputObjectType(named)) {
        return `ends at the input type ${named.name}: name one of its fields, such as {args.${[...steps, Object.keys(named.getFields())[0] ?? 'field'].join('.')}}`;
      }
      return { read: steps, list };
    }
    const name = steps[i]!;
    if (list) return `steps through a list (${steps.slice(0, i).join('.')}); a placeholder can only step through single input objects`;
    if (!isInputObjectType(named)) return `: ${steps.slice(0, i).join('.')} is a ${named.name}, which has no field "${name}"`;
    const field = named.getFields()[name];
    if (!field) {
      const names = Object.keys(named.getFields());
      return `: "${name}" is no field of the input type ${named.name}${didYouMean(name, names)} (fields: ${names.join(', ') || 'none'})`;
    }
    type = field.type;
  }
  return { read: steps, list: false };
}

function firstField(type: GraphQLCompositeType): string {
  return (isUnionType(type) ? undefined : Object.keys(type.getFields())[0]) ?? 'id';
}
