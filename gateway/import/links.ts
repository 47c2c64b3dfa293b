import type { WarningList } from './problems.js';
import type { ApiParameter } from './operations.js';
import type { RootField } from './root-fields.js';
import { camelCase, memberName, pascalCase } from './names.js';
import { quote, type TypeBuilder } from './schema-types.js';
import type { SdlObject } from './sdl-model.js';
import { isObject, resolveRef, type JsonObject } from './pointer.js';
import { listKeysOf } from './envelopes.js';

/** A link field that sends one request per parent: listed in `[check] accept_n_plus_one`. */
export interface NPlusOne {
  readonly coordinate: string;
  readonly reason: string;
}

/** A GET-by-id operation: one path parameter, an id (ID_NAME), last in the path, answering one object. */
interface ById {
  readonly root: RootField;
  readonly param: ApiParameter;
  readonly target: SdlObject;
  /** The path's collection segment, singular and lower-case: `/owners/{id}` → `owner`. */
  readonly noun: string;
}

/** A many-by-ids operation for a type: the directive that fetches many of them at once. */
interface Batch {
  readonly directive: string;
}

/**
 * Links between types (docs/openapi.md "Links and batching"):
 * - an OpenAPI `link` from an operation's answer to a GET operation, whose parameters are
 *   `$response.body#/key` (or `#/owner/login`, through object fields), becomes a field on the
 *   answer's type with `@fetch` reading `{parent.key}` (`{parent.owner.login}`);
 * - a key `{x}_id` / `{x}Id` of an object type, where a GET-by-id operation answers the type for
 *   `x` (its path's collection is x's plural, or its type is named x), becomes the field `x` with
 *   `@fetch` on that operation, unless the type already has a field `x`;
 * - such a field gets `@batch` when the API has a many-by-ids operation for the target type: a
 *   GET answering a list of it with an array query parameter of ids (`?ids=` repeated or
 *   comma-joined as the parameter says), or a string one documented as comma-separated. A string
 *   ids parameter without that documentation is only suggested, in a warning;
 * - a field without @batch is returned as an accepted N+1, with the reason.
 * A GET-by-id path may have a suffix after its parameter (`/users/{id}.json`); an answer in a
 * one-key envelope is selected (root-fields.ts), and a many-by-ids operation answering an object
 * with one list key (`{"users": [...], "count": 2}`) gets `@batch(select: "users")`.
 */
export function addLinks(roots: readonly RootField[], types: TypeBuilder, ctx: { source: string; warnings: WarningList }): NPlusOne[] {
  const byIdOps = findByIdOperations(roots, types);
  const batches = findBatchOperations(roots, types, byIdOps, ctx.warnings);
  const nPlusOne: NPlusOne[] = [];
  const addField = (object: SdlObject, field: { name: string; type: string; path: string; target: ById | undefined; why: string }) => {
    const batch = field.target ? batches.get(field.target.target.name) : undefined;
    const select = field.target?.root.select;
    const directives = [`@fetch(source: ${quote(ctx.source)}, path: ${quote(field.path)}${select ? `, select: ${quote(select)}` : ''})`];
    if (batch) directives.push(batch.directive);
    object.fields.push({ name: field.name, type: field.type, args: [], directives });
    object.fieldNames.add(field.name);
    if (!batch) nPlusOne.push({ coordinate: `${object.name}.${field.name}`, reason: field.why });
  };

  for (const rf of roots) {
    for (const link of rf.operation.links) {
      const object = types.objectOf(rf.field.type, false);
      const target = roots.find((r) => r.operation.operationId === link.operationId);
      if (!object || !target || target.root !== 'Query') {
        const why = !object
          ? 'the answer is not one object'
          : !target
            ? `no operation "${link.operationId}"`
            : 'it leads to an operation that is not a GET';
        ctx.warnings.add(link.pointer, `link "${link.name}" is not mapped: ${why}`);
        continue;
      }
      const path = linkPath(target, link.parameters, { object, types });
      if (typeof path !== 'string') {
        ctx.warnings.add(link.pointer, `link "${link.name}" is not mapped: ${path.problem}`);
        continue;
      }
      let name = memberName(link.name);
      while (object.fieldNames.has(name)) name = `${name}Link`;
      const byId = byIdOps.find((b) => b.root === target);
      addField(object, { name, type: target.field.type, path, target: byId, why: `link "${link.name}": ${whyNoBatch(target, byId)}` });
    }
  }

  for (const object of [...types.types.values()].filter((t): t is SdlObject => t.kind === 'object')) {
    for (const property of [...object.properties]) {
      const m = /^(.+?)(?:_id|Id)$/.exec(property.key);
      if (!m || !property.scalar) continue;
      const name = camelCase(m[1]!);
      if (object.fieldNames.has(name)) continue;
      const wanted = m[1]!.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
      const byId =
        byIdOps.find((b) => b.noun === wanted) ?? byIdOps.find((b) => b.target.name.toLowerCase() === pascalCase(m[1]!).toLowerCase());
      if (!byId) continue;
      const path = byId.root.operation.path.replace(`{${byId.param.name}}`, `{parent.${property.field}}`);
      addField(object, {
        name,
        type: byId.target.name,
        path,
        target: byId,
        why: `${byId.root.operation.method.toUpperCase()} ${byId.root.operation.path}: ${whyNoBatch(byId.root, byId)}`,
      });
    }
  }
  return nPlusOne;
}

function whyNoBatch(target: RootField, byId: ById | undefined): string {
  return byId
    ? `the API has no many-by-ids operation for ${byId.target.name}`
    : `${target.field.name} is not a GET-by-id operation, so it cannot be batched`;
}

function findByIdOperations(roots: readonly RootField[], types: TypeBuilder): ById[] {
  const out: ById[] = [];
  for (const root of roots) {
    const op = root.operation;
    if (root.root !== 'Query') continue;
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const m = /\/([^/{}]+)\/\{([^}]+)\}(?:\.[A-Za-z0-9]+)?$/.exec(op.path);
    if (pathParams.length !== 1 || !m || m[2] !== pathParams[0]!.name || !ID_NAME.test(m[2])) continue;
    if (op.parameters.some((p) => p.in === 'query' && p.required)) continue;
    const target = types.objectOf(root.field.type, false);
    if (!target) continue;
    out.push({ root, param: pathParams[0]!, target, noun: singular(m[1]!.replace(/[^A-Za-z0-9]/g, '').toLowerCase()) });
  }
  return out;
}

/** A path parameter that holds an id: `id`, `pet_id`, `petId` (not a slug or a name). */
const ID_NAME = /^(id|.+_id|.+Id|.+ID)$/;

function singular(noun: string): string {
  if (noun.endsWith('ies')) return `${noun.slice(0, -3)}y`;
  if (/(s|x|ch|sh)es$/.test(noun)) return noun.slice(0, -2);
  return noun.endsWith('s') ? noun.slice(0, -1) : noun;
}

const IDS = /(^|_|-)ids?$|[a-z]Ids?$/;

/** Per target type name, the @batch of its many-by-ids operation (the first in document order). */
function findBatchOperations(
  roots: readonly RootField[],
  types: TypeBuilder,
  byIdOps: readonly ById[],
  warnings: WarningList,
): Map<string, Batch> {
  const out = new Map<string, Batch>();
  for (const root of roots) {
    const op = root.operation;
    if (root.root !== 'Query' || op.parameters.some((p) => p.in === 'path')) continue;
    const { target, select } = listOf(root, types, warnings);
    const byId = target && byIdOps.find((b) => b.target === target);
    if (!target || !byId || out.has(target.name)) continue;
    const match = target.properties.find((p) => p.key === byId.param.name) ?? target.properties.find((p) => p.key === 'id');
    for (const p of op.parameters) {
      if (p.in !== 'query' || !IDS.test(p.name)) continue;
      const others = op.parameters.filter((o) => o !== p && o.required);
      if (others.length > 0 || !match) continue;
      const schema = resolveRef(types.rootDocument, p.schema, p.schemaPointer)?.node ?? p.schema;
      const isArray = schema.type === 'array' || isObject(schema.items);
      const documented = /comma/i.test(p.description);
      const batchPath = `${op.path}?${encodeURIComponent(p.name)}={keys}`;
      const max = maxItems(schema);
      const options = `${max ? `, max: ${max}` : ''}${select ? `, select: ${quote(select)}` : ''}${isArray && p.explode ? ', repeat: true' : ''}`;
      const directive = `@batch(path: ${quote(batchPath)}, match: ${quote(match.key)}${options})`;
      if (isArray || documented) out.set(target.name, { directive });
      else
        warnings.add(
          p.pointer,
          `"${p.name}" may take many ids, but it is not an array and is not documented as comma-separated: to batch ${target.name}, add ${directive} beside each @fetch of ${byId.root.operation.path}`,
        );
      break;
    }
  }
  return out;
}

/**
 * The item type of a list operation, and the key it is selected from: the root field's own list
 * type (its envelope already selected), or the one list key of an object answer. An object answer
 * with several list keys cannot be told apart: a warning says to write the `select` by hand.
 */
function listOf(root: RootField, types: TypeBuilder, warnings: WarningList): { target?: SdlObject; select?: string } {
  const own = types.objectOf(root.field.type, true);
  if (own) return { target: own, select: root.select };
  const answer = root.operation.response;
  const lists = answer && root.select === undefined ? listKeysOf(types.rootDocument, answer) : undefined;
  if (!lists || lists.length === 0) return {};
  if (lists.length > 1) {
    if (root.operation.parameters.some((p) => p.in === 'query' && IDS.test(p.name)))
      warnings.add(
        answer!.pointer,
        `the answer is an envelope with several lists (${lists.map((l) => `"${l.key}"`).join(', ')}): it is not used as a batch; if one of them holds the items, add @batch(..., select: "KEY") by hand`,
      );
    return {};
  }
  const [list] = lists;
  const target = types.objectOf(types.output(list!.schema, list!.pointer, `${pascalCase(root.field.name)}Item`), true);
  return target ? { target, select: list!.key } : {};
}

function maxItems(schema: JsonObject): number | undefined {
  const m = schema.maxItems;
  return typeof m === 'number' && Number.isInteger(m) && m > 0 && m < 100 ? m : undefined;
}

/** The target's @fetch path with its parameters read from the parent (`$response.body#/key`). */
function linkPath(
  target: RootField,
  parameters: Readonly<Record<string, unknown>>,
  from: { object: SdlObject; types: TypeBuilder },
): string | { problem: string } {
  const { object, types } = from;
  const op = target.operation;
  const valueOf = (p: ApiParameter): string | undefined | { problem: string } => {
    const expr = parameters[p.name] ?? parameters[`${p.in}.${p.name}`];
    if (expr === undefined) return undefined;
    const m = typeof expr === 'string' ? /^\$response\.body#((?:\/[^/]+)+)$/.exec(expr) : null;
    if (!m) return { problem: `parameter "${p.name}" is ${JSON.stringify(expr)}; only $response.body#/key (or #/key/key) is mapped` };
    const keys = m[1]!
      .slice(1)
      .split('/')
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    // Each step is a field of the type reached so far: `#/owner/username` → `{parent.owner.username}`.
    const fields: string[] = [];
    let current: SdlObject | undefined = object;
    for (const [i, key] of keys.entries()) {
      const property = current?.properties.find((x) => x.key === key);
      const last = i === keys.length - 1;
      if (!current || !property || (last && !property.scalar)) {
        return { problem: `${current?.name ?? object.name} has no ${last ? 'scalar ' : ''}key "${key}" for parameter "${p.name}"` };
      }
      fields.push(property.field);
      if (!last) current = types.objectOf(current.fields.find((f) => f.name === property.field)!.type, false);
    }
    return `{parent.${fields.join('.')}}`;
  };
  let path = op.path;
  const query: string[] = [];
  for (const p of op.parameters) {
    const v = valueOf(p);
    if (typeof v === 'object') return v;
    if (v === undefined) {
      if (p.required) return { problem: `required parameter "${p.name}" of ${op.operationId} has no value` };
      continue;
    }
    if (p.in === 'path') path = path.replace(`{${p.name}}`, v);
    else query.push(`${encodeURIComponent(p.name)}=${v}`);
  }
  return query.length ? `${path}?${query.join('&')}` : path;
}
