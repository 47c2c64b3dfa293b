import type { DirectiveUse, FieldContext } from './context.js';
import type { Problem } from './problem.js';
import { compilePathTemplate, type PathTemplate } from './template.js';
import { dottedNameHelp, parseDottedName } from './dotted.js';

/**
 * `@sideload(select, path, match = "id", when)`, repeatable (docs/rest-shapes.md "Sideloads"): on a
 * field with a single @fetch, the objects of the array at `select` in its answer's body (those whose
 * `when` key equals its value) answer the lookups of `path` with `{key}` = their `match` value.
 */
export interface CompiledSideload {
  /** The array's steps in the whole body (before the field's own `select`). */
  readonly select: readonly string[];
  /** The path as written, with `{key}`. */
  readonly path: string;
  /** `path` with `{key}` compiled as `{parent.key}`: resolved with the template's `key` set to the match value. */
  readonly template: PathTemplate;
  readonly match: string;
  readonly matchSteps: readonly string[];
  /** `when: "type=people"`: only objects whose key at `steps` has the string form `value`. */
  readonly when: { readonly text: string; readonly steps: readonly string[]; readonly value: string } | undefined;
  /** Where it is written: for problems found when the blueprint links it to the fields it answers. */
  readonly node: DirectiveUse['node'];
}

/** What a @sideload needs of its field's other directives. */
export interface SideloadNeighbours {
  readonly hasFetch: boolean;
  readonly hasBatch: boolean;
  /** `@fetch(response: true)`: the value is the whole response, not a body with side arrays. */
  readonly response: boolean;
}

const KEY = '{key}';
/** How `{key}` is compiled: the one placeholder, rendered from the template input's `key`. */
const KEY_AS_PARENT = '{parent.key}';

/** Compiles every @sideload of one field, pushing each misuse onto `problems`. */
export function compileSideloads(
  uses: readonly DirectiveUse[],
  neighbours: SideloadNeighbours,
  ctx: FieldContext,
  problems: Problem[],
): CompiledSideload[] {
  const out: CompiledSideload[] = [];
  for (const use of uses) {
    const at = `@sideload on ${ctx.coordinate}`;
    const before = problems.length;
    const refuse = (message: string): void => void problems.push({ message: `${at}${message}`, node: use.node });
    if (ctx.isMutation) refuse(': a mutation answers only itself; put @sideload on the query field whose answer carries the side arrays');
    else if (!neighbours.hasFetch) refuse(' needs a @fetch beside it: the side arrays are read from that answer');
    else if (neighbours.hasBatch) refuse(': a @batch answer is split per key; put @sideload on a field with a single @fetch');
    else if (neighbours.response) refuse(': @fetch(response: true) answers the whole response; drop response: true to sideload');
    const select = steps(use, 'select', 'users', refuse);
    const matchText = String(use.args.match);
    const matchSteps = steps(use, 'match', 'id', refuse);
    const path = String(use.args.path);
    const template = compileSideloadPath(path, refuse);
    const when = compileWhen(use.args.when, refuse);
    if (problems.length === before && select && matchSteps && template) {
      out.push({ select, path, template, match: matchText, matchSteps, when, node: use.node });
    }
  }
  return out;
}

/** The steps of a dotted argument, or undefined (and a problem) when it is not a dotted name. */
function steps(use: DirectiveUse, name: 'select' | 'match', example: string, refuse: (m: string) => void): readonly string[] | undefined {
  const text = String(use.args[name]);
  const parsed = parseDottedName(text);
  if (!parsed) refuse(`: ${name} "${text}" is not a dotted name; ${dottedNameHelp(example)}`);
  return parsed;
}

/** `path` with exactly one `{key}` and no other placeholder, compiled; undefined (and a problem) otherwise. */
function compileSideloadPath(path: string, refuse: (m: string) => void): PathTemplate | undefined {
  const example = 'such as path: "/api/v2/users/{key}.json"';
  const keys = path.split(KEY).length - 1;
  if (keys !== 1) {
    refuse(`: path "${path}" must hold {key} exactly once (found ${keys}), where the match value goes, ${example}`);
    return undefined;
  }
  const at = path.indexOf(KEY);
  const compiled = compilePathTemplate(path.replace(KEY, KEY_AS_PARENT));
  if (!compiled.ok) {
    // Offsets past {key} are given back in the path as written.
    const error = compiled.error.replace(/offset (\d+)/g, (_, n: string) => `offset ${Number(n) > at ? Number(n) - 7 : n}`);
    refuse(` has a malformed path "${path}": ${error.replaceAll(KEY_AS_PARENT, KEY)}`);
    return undefined;
  }
  if (compiled.template.placeholders.length !== 1) {
    refuse(`: path "${path}" may hold no placeholder but {key} (a sideloaded object answers one path per match value), ${example}`);
    return undefined;
  }
  return compiled.template;
}

/** `when: "type=people"`: a dotted key, `=`, and the value it must have; a problem when malformed. */
function compileWhen(raw: unknown, refuse: (m: string) => void): CompiledSideload['when'] {
  if (raw === undefined || raw === null) return undefined;
  const text = String(raw);
  const eq = text.indexOf('=');
  const keySteps = eq > 0 ? parseDottedName(text.slice(0, eq)) : undefined;
  const value = text.slice(eq + 1);
  if (eq < 0 || !keySteps || value === '' || value.includes('=')) {
    refuse(`: when "${text}" must be KEY=VALUE, a dotted key of the object and the value it must have, such as when: "type=people"`);
    return undefined;
  }
  return { text, steps: keySteps, value };
}
