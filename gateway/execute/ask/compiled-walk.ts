import type { Plan, PlanEntry, PlanSelection } from '../../plan/types.js';
import { conditionsHold } from './conditions.js';
import { isInheritedName, readDotted } from '../../../directives/dotted.js';
import { concreteTypeOf } from './concrete-type.js';
import { refusal } from './access.js';
import { collectLookups, INTERPRETED_WALKER, type Walk, type Walker } from './walk.js';
import { JIT_MAX_FIELDS } from '../../plan/compile-limit.js';

/** The compiled walk of one selection on objects of one type: collectLookups(selection, object, type, walk). */
type Collect = (object: object, walk: Walk) => void;
/** The compiled walk below one field's value: descend(entry, value, walk). */
type Descend = (value: unknown, walk: Walk) => void;

const walkers = new WeakMap<Plan, Walker>();

/**
 * The walk of a plan compiled to straight-line functions (docs/performance.md "A plan compiled per
 * operation"), made once per plan and kept beside it. It is the interpreter's walk (execute/ask/walk.ts)
 * with every decision that depends only on the operation taken once: which entries apply to a
 * type, literal @skip/@include, which fields fetch and which are walked into, how a field's value
 * is read. It finds the same lookups in the same order and claims the same refusals; a selection
 * with completions (docs/federation.md), and a plan of more than JIT_MAX_FIELDS entries, are walked
 * by the interpreter.
 */
export function compiledWalker(plan: Plan): Walker {
  let walker = walkers.get(plan);
  if (walker === undefined) {
    // Compiling costs time linear in the plan, like graphql-jit's: a large one is walked by the interpreter (plan/compile-limit.ts).
    walker = entriesWithin(plan.root, JIT_MAX_FIELDS) ? new WalkCompiler(plan) : INTERPRETED_WALKER;
    walkers.set(plan, walker);
  }
  return walker;
}

/** Whether the selection has at most `max` entries, its children's counted. */
function entriesWithin(selection: PlanSelection, max: number): boolean {
  let left = max;
  const count = (s: PlanSelection): boolean => {
    left -= s.entries.length;
    for (const entry of s.entries) if (left < 0 || (entry.children !== undefined && !count(entry.children))) return false;
    return left >= 0;
  };
  return count(selection);
}

class WalkCompiler implements Walker {
  private readonly collects = new Map<PlanSelection, Map<string, Collect>>();
  private readonly descends = new Map<PlanEntry, Descend>();
  private readonly rootCollect: Collect;

  constructor(private readonly plan: Plan) {
    this.rootCollect = this.collectOf(plan.root, plan.rootType);
  }

  collect(selection: PlanSelection, object: object, typeName: string, walk: Walk): void {
    if (selection === this.plan.root && typeName === this.plan.rootType) this.rootCollect(object, walk);
    else this.collectOf(selection, typeName)(object, walk);
  }

  descend(entry: PlanEntry, value: unknown, walk: Walk): void {
    (this.descends.get(entry) ?? this.descendOf(entry))(value, walk);
  }

  private collectOf(selection: PlanSelection, typeName: string): Collect {
    let byType = this.collects.get(selection);
    if (byType === undefined) {
      byType = new Map();
      this.collects.set(selection, byType);
    }
    let collect = byType.get(typeName);
    if (collect === undefined) {
      collect = selection.completions?.has(typeName)
        ? (object, walk) => collectLookups(selection, object, typeName, walk)
        : this.compileCollect(selection, typeName);
      byType.set(typeName, collect);
    }
    return collect;
  }

  /**
   * Generated code, as execute/answer/write-data.ts generates it: `p` the object, `w` the walk, `x` a
   * refusal, `v` a field's value; constants go in as `r[i]` references or JSON string literals.
   */
  private compileCollect(selection: PlanSelection, typeName: string): Collect {
    const refs: unknown[] = [];
    const ref = (value: unknown): string => `r[${refs.push(value) - 1}]`;
    let code = '';
    for (const entry of selection.entries) {
      if (entry.possibleTypes && !entry.possibleTypes.has(typeName)) continue;
      const variable = entry.conditions.some((c) => typeof c.value !== 'boolean');
      if (!variable && !conditionsHold(entry.conditions, {})) continue;
      let body = '';
      if (entry.blueprint.fetch) body = `w.out.push(${ref(entry)}, p);\n`;
      else if (entry.fetchBelow) body = `${this.read(entry, ref)}${ref(this.descendOf(entry))}(v, w);\n`;
      if (entry.blueprint.auth !== undefined) {
        const refused = `x = ${ref(refusal)}(${ref(entry.blueprint.auth)}, w.access);\n`;
        body = `${refused}if (x !== undefined) w.store.claim(p, ${ref(entry.fieldNode)}, x);\nelse {\n${body}}\n`;
      }
      if (body === '') continue;
      code += variable ? `if (${ref(conditionsHold)}(${ref(entry.conditions)}, w.variables)) {\n${body}}\n` : body;
    }
    if (code === '') return NOTHING;
    const make = new Function('r', `"use strict";\nreturn function (p, w) {\nlet v, x;\n${code}};`) as (r: unknown[]) => Collect;
    return make(refs);
  }

  /** Code that sets `v` to the value of a field without @fetch, as the interpreter reads it (walk.ts collectLookups). */
  private read(entry: PlanEntry, ref: (value: unknown) => string): string {
    const { read, namespace } = entry.blueprint;
    const key = JSON.stringify(read[0]!);
    let code: string;
    if (read.length > 1) code = `v = ${ref(readDotted)}(p, ${ref(read)});\n`;
    // Only own keys are fields (directives/dotted.ts ownValue): decided here, once per field.
    else code = isInheritedName(read[0]!) ? `v = Object.hasOwn(p, ${key}) ? p[${key}] : undefined;\n` : `v = p[${key}];\n`;
    if (namespace) code += `if (v === undefined || v === null) v = w.store.namespace(p, ${key});\n`;
    return code;
  }

  /** The walk below `entry`'s value: into an object, every item of a list (at any depth), nothing else. */
  private descendOf(entry: PlanEntry): Descend {
    let d = this.descends.get(entry);
    if (d !== undefined) return d;
    const children = entry.children;
    if (children === undefined) d = NOTHING;
    else {
      let into: Collect;
      if (entry.childIsAbstract) {
        const discriminator = entry.blueprint.discriminator!;
        // An item whose type cannot be told has nothing looked up below it; the shaper reports it.
        into = (object, walk) => {
          const typeName = concreteTypeOf(discriminator, object);
          if (typeName !== undefined) this.collectOf(children, typeName)(object, walk);
        };
      } else into = this.collectOf(children, entry.childType);
      const self: Descend = (value, walk) => {
        if (value === null || typeof value !== 'object' || value instanceof Error) return;
        if (!Array.isArray(value)) return into(value, walk);
        for (let i = 0; i < value.length; i++) self(value[i], walk);
      };
      d = self;
    }
    this.descends.set(entry, d);
    return d;
  }
}

const NOTHING = (): void => undefined;
