import {
  getDirectiveValues,
  getNullableType,
  isInputObjectType,
  isListType,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import type { BodyPlaceholder, BodyTemplate } from '../../directives/body-template.js';
import type { CompiledRequest } from '../../directives/request.js';
import type { Problem } from '../../directives/problem.js';

/** A coerced input value (an object, a list of them) with each input field under its wire name. */
export type WireValue = (value: unknown) => unknown;

/** A @fetch body, with the wire form of each `{args.…}` whose value holds an input object with wire names. */
export type WiredBody = NonNullable<CompiledRequest['body']> & { readonly argsWire?: ReadonlyMap<BodyPlaceholder, WireValue> };

/**
 * Input fields' wire names (docs/reference.md, `@from` on an input field): `assigneeId: ID
 * @from(key: "assignee_id")` is `assignee_id` wherever its input object renders into a body
 * (`{args.input}`, or inside a string as JSON text); a placeholder still names it by its schema name
 * (`{args.patch.assigneeId}`), and argument values stay keyed by schema names everywhere else.
 * `@from` on an input field takes only a non-empty `key`, one wire name per field of an input type.
 */
export class InputWireNames {
  /** Input type → schema field name → wire name, for the types with at least one. */
  private readonly names = new Map<string, Map<string, string>>();
  private readonly wires = new Map<string, WireValue>();
  private readonly reaches = new Map<string, boolean>();

  constructor(schema: GraphQLSchema, problems: Problem[]) {
    const fromDef = schema.getDirective('from')!;
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isInputObjectType(type)) continue;
      const byWire = new Map<string, string>();
      for (const field of Object.values(type.getFields())) {
        const node = field.astNode?.directives?.find((d) => d.name.value === 'from');
        const wire = node
          ? wireName(getDirectiveValues(fromDef, { directives: [node] }) ?? {}, `${type.name}.${field.name}`, problems, node)
          : field.name;
        const other = byWire.get(wire);
        if (other !== undefined)
          problems.push({
            message: `input ${type.name}: ${field.name} and ${other} have the same wire name "${wire}"`,
            node: node ?? field.astNode ?? undefined,
          });
        byWire.set(wire, field.name);
        if (wire !== field.name) {
          if (!this.names.has(type.name)) this.names.set(type.name, new Map());
          this.names.get(type.name)!.set(field.name, wire);
        }
      }
    }
  }

  /** The body with `argsWire` set when one of its `{args.…}` values holds wire names; else the body itself. */
  body(body: CompiledRequest['body'], field: GraphQLField<unknown, unknown>): WiredBody | undefined {
    const argsWire = body && this.argsWire(body.template, field);
    return argsWire ? { ...body, argsWire } : body;
  }

  /** The wire form of each `{args.…}` of `template` whose value holds an input object with wire names; undefined: none does. */
  argsWire(template: BodyTemplate, field: GraphQLField<unknown, unknown>): ReadonlyMap<BodyPlaceholder, WireValue> | undefined {
    if (this.names.size === 0) return undefined;
    const argsWire = new Map<BodyPlaceholder, WireValue>();
    for (const p of template.placeholders) {
      if (p.kind !== 'args') continue;
      let type: GraphQLInputType | undefined = field.args.find((a) => a.name === p.path[0])?.type;
      for (let i = 1; type && i < p.path.length; i++) {
        const object = getNullableType(type);
        type = isInputObjectType(object) ? object.getFields()[p.path[i]!]?.type : undefined;
      }
      const wire = type && this.wireOf(type);
      if (wire) argsWire.set(p, wire);
    }
    return argsWire.size > 0 ? argsWire : undefined;
  }

  /** The wire form of values of `type`; undefined when no input object it holds has a wire name. */
  private wireOf(type: GraphQLInputType): WireValue | undefined {
    const t = getNullableType(type);
    if (isListType(t)) {
      const element = this.wireOf(t.ofType);
      return element && ((v) => (Array.isArray(v) ? v.map((e) => (e === null || e === undefined ? e : element(e))) : element(v)));
    }
    if (!isInputObjectType(t) || !this.reachesWire(t, new Set())) return undefined;
    let wire = this.wires.get(t.name);
    if (wire) return wire;
    const fields = new Map<string, { readonly name: string; wire: WireValue | undefined }>();
    wire = (v) => {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(v)) {
        const f = fields.get(key);
        out[f ? f.name : key] = f?.wire && value !== null && value !== undefined ? f.wire(value) : value;
      }
      return out;
    };
    // Set before the fields are read, so that a recursive input type finds it.
    this.wires.set(t.name, wire);
    const names = this.names.get(t.name);
    for (const field of Object.values(t.getFields())) {
      fields.set(field.name, { name: names?.get(field.name) ?? field.name, wire: this.wireOf(field.type) });
    }
    return wire;
  }

  /** Whether `type` or an input object it holds has a field with a wire name. */
  private reachesWire(type: GraphQLInputObjectType, seen: Set<string>): boolean {
    const known = this.reaches.get(type.name);
    if (known !== undefined) return known;
    if (seen.has(type.name)) return false;
    const top = seen.size === 0;
    seen.add(type.name);
    let reaches = this.names.has(type.name);
    for (const field of Object.values(type.getFields())) {
      if (reaches) break;
      let inner = getNullableType(field.type);
      while (isListType(inner)) inner = getNullableType(inner.ofType);
      if (isInputObjectType(inner)) reaches = this.reachesWire(inner, seen);
    }
    // A false found inside a cycle may be the cycle's own start: only a whole walk's answer is kept.
    if (reaches || top) this.reaches.set(type.name, reaches);
    return reaches;
  }
}

/** The wire name `@from` gives an input field, or its own name after reporting a misuse. */
function wireName(args: Record<string, unknown>, coordinate: string, problems: Problem[], node: Problem['node']): string {
  const name = coordinate.slice(coordinate.indexOf('.') + 1);
  if (args.path != null || args.types != null || args.value != null || typeof args.key !== 'string' || args.key === '') {
    problems.push({
      message: `@from on input field ${coordinate} takes only key: its name on the wire, such as @from(key: "assignee_id")`,
      node,
    });
    return name;
  }
  return args.key;
}
