/**
 * What an answer's `data` must look like whatever the values: every object holds exactly the
 * response keys its selection set collects (GraphQL's CollectFields: `@skip`/`@include` applied,
 * fragments of the object's type merged, each key once, in document order), and every `Int64`
 * is a string of digits (SPEC, "Exact data in both directions"). Checked on every
 * answer, so a field missing from `data`, a skipped field that came back, or keys out of order
 * fail even when every gateway agrees.
 */
import type { Operation, Selection } from './operations.js';
import { UNIONS } from './operations.js';

type Fields = Map<string, Selection[]>;

function passes(s: Selection, vars: Record<string, unknown>, varOf: Map<Selection, string>): boolean {
  const c = s.condition;
  if (c === undefined) return true;
  const value = c.viaVariable ? vars[varOf.get(s)!] : c.value;
  return c.directive === 'skip' ? value !== true : value === true;
}

function collect(selections: readonly Selection[], typename: string | undefined, ctx: Context, into: Fields): Fields {
  for (const s of selections) {
    if (!passes(s, ctx.vars, ctx.varOf)) continue;
    if (s.kind === 'fragment') {
      if (typename === undefined || s.on === typename) collect(s.selections, typename, ctx, into);
      continue;
    }
    const key = s.alias ?? s.name;
    const list = into.get(key);
    if (list === undefined) into.set(key, [s]);
    else list.push(s);
  }
  return into;
}

interface Context {
  readonly vars: Record<string, unknown>;
  readonly varOf: Map<Selection, string>;
  readonly problems: string[];
}

/** Where check() is: the selections of the value at `path`, on `type` when that is a union. */
interface Place {
  readonly selections: readonly Selection[];
  readonly type: string | undefined;
  readonly path: string;
}

function check(value: unknown, { selections, type, path }: Place, ctx: Context): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => check(v, { selections, type, path: `${path}.${i}` }, ctx));
    return;
  }
  if (typeof value !== 'object') {
    ctx.problems.push(`${path}: an object expected, got ${JSON.stringify(value)}`);
    return;
  }
  const object = value as Record<string, unknown>;
  const typename = type !== undefined && UNIONS[type] !== undefined ? (object.__typename as string) : undefined;
  const fields = collect(selections, typename, ctx, new Map());
  const want = [...fields.keys()];
  const got = Object.keys(object);
  if (want.join(',') !== got.join(',')) ctx.problems.push(`${path || 'data'}: keys ${got.join(',')} where ${want.join(',')} are selected`);
  for (const [key, copies] of fields) {
    const int64 = copies[0]!.kind === 'field' && copies[0]!.name === 'rank';
    if (int64 && object[key] !== null && typeof object[key] !== 'string')
      ctx.problems.push(`${path}.${key}: an Int64 written as ${JSON.stringify(object[key])}, not a string`);
    const sub = copies.flatMap((c) => (c.kind === 'field' && c.selections !== undefined ? c.selections : []));
    const first = copies[0]!;
    if (sub.length > 0 && first.kind === 'field')
      check(object[key], { selections: sub, type: first.name === 'pet' ? 'Pet' : undefined, path: `${path}.${key}` }, ctx);
  }
}

/**
 * Problems with `data`'s keys for `op` under `variables` (the parsed variables of the request);
 * `varOf` names the variable each selection's condition reads (render.ts numbers them in order).
 */
export function shapeProblems(op: Operation, data: unknown, variables: Record<string, unknown>): string[] {
  const varOf = new Map<Selection, string>();
  numberConditions(op.selections, varOf, { next: 0 });
  const ctx: Context = { vars: variables, varOf, problems: [] };
  check(data, { selections: op.selections, type: undefined, path: '' }, ctx);
  return ctx.problems;
}

/** The variable names render.ts gives, in the same order (arguments and conditions share the count). */
function numberConditions(selections: readonly Selection[], varOf: Map<Selection, string>, counter: { next: number }): void {
  for (const s of selections) {
    if (s.kind === 'field') {
      if (s.argument?.viaVariable) counter.next++;
      if (s.condition?.viaVariable) varOf.set(s, `v${counter.next++}`);
      if (s.selections !== undefined) numberConditions(s.selections, varOf, counter);
    } else {
      if (s.condition?.viaVariable) varOf.set(s, `v${counter.next++}`);
      numberConditions(s.selections, varOf, counter);
    }
  }
}
