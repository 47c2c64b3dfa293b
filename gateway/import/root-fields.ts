import type { WarningList } from './problems.js';
import type { ApiOperation } from './operations.js';
import { camelCase, memberName, pascalCase, pathFieldName, UniqueNames } from './names.js';
import { envelopeOf } from './envelopes.js';
import { quote, type TypeBuilder } from './schema-types.js';
import type { SdlArgument, SdlField } from './sdl-model.js';

/** One operation as a root field, with what links.ts needs to know about it. */
export interface RootField {
  readonly operation: ApiOperation;
  readonly root: 'Query' | 'Mutation';
  readonly field: SdlField;
  /** Parameter name → argument name. */
  readonly argOf: ReadonlyMap<string, string>;
  /** The key of the answer's one-key envelope that the field selects (`{"user": {...}}` → `user`). */
  readonly select: string | undefined;
}

/**
 * Operations → `Query` fields (GET) and `Mutation` fields (other methods), in document order
 * (docs/reference.md `gqlgw import openapi`): named by the operationId in camelCase, else by the path
 * (`/users/{id}/repos` → `usersByIdRepos`); one argument per path and query parameter
 * (path and required parameters non-null); an array parameter is repeated (`repeat: true`) unless
 * `explode: false` / Swagger's csv, then comma-joined; a JSON body is the `input` argument sent as
 * `body: "{args.input}"`. A Mutation without an answer body is Boolean (true on 204). An answer
 * that is an envelope of one key (`{"user": {...}}`) is read with `select: "user"`, the field typed
 * as what it wraps (envelopes.ts).
 */
export function rootFields(
  operations: readonly ApiOperation[],
  types: TypeBuilder,
  ctx: { source: string; warnings: WarningList },
): RootField[] {
  const names = { Query: new UniqueNames(ctx.warnings), Mutation: new UniqueNames(ctx.warnings) };
  const out: RootField[] = [];
  for (const op of operations) {
    const root = op.method === 'get' ? 'Query' : 'Mutation';
    const wanted = op.operationId ? camelCase(op.operationId) : pathFieldName(op.path, op.method);
    const name = names[root].claim(wanted, op.pointer, `the ${root} field of ${op.method.toUpperCase()} ${op.path}`);
    const argNames = new UniqueNames(ctx.warnings, op.body && root === 'Mutation' ? ['input'] : []);
    const args: SdlArgument[] = [];
    const argOf = new Map<string, string>();
    let repeat = false;
    let joined = false;
    let unsendable = false;
    for (const p of op.parameters) {
      const arg = argNames.claim(memberName(p.name), p.pointer, `the argument for ${p.in} parameter "${p.name}"`);
      const type = types.input(p.schema, p.schemaPointer, `${pascalCase(name)}${pascalCase(p.name)}`);
      if (!types.isLeaf(type) && !(type.startsWith('[') && types.isLeaf(type.slice(1, -1)))) {
        ctx.warnings.add(p.pointer, `parameter "${p.name}" is an object, which gqlgw cannot write into a URL; it is left out`);
        if (p.required) unsendable = true;
        continue;
      }
      if (type.startsWith('[')) {
        if (p.explode && p.in === 'query') repeat = true;
        else joined = true;
      }
      args.push({ name: arg, type: p.required ? `${type}!` : type });
      argOf.set(`${p.in} ${p.name}`, arg);
    }
    const undeclared = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!).filter((param) => !argOf.has(`path ${param}`));
    if (undeclared.length > 0) {
      ctx.warnings.add(
        op.pointer,
        `the path names ${undeclared.map((n) => `{${n}}`).join(', ')} but no such path parameter is declared; the operation is left out`,
      );
      continue;
    }
    if (unsendable) {
      ctx.warnings.add(op.pointer, 'the operation is left out: a required parameter cannot be sent');
      continue;
    }
    if (repeat && joined)
      ctx.warnings.add(op.pointer, 'this operation mixes repeated and comma-joined array parameters: all are sent repeated (repeat: true)');
    if (op.body && root === 'Query') {
      ctx.warnings.add(op.body.pointer, 'a GET with a body is not mapped: gqlgw sends GET requests without one; the body is left out');
    } else if (op.body) {
      const type = types.input(op.body.schema, op.body.pointer, `${pascalCase(name)}Body`);
      args.push({ name: 'input', type: op.body.required ? `${type}!` : type });
    }
    const path = fetchPath(op, argOf);
    const envelope = op.response && envelopeOf(types.rootDocument, op.response, op.path);
    const answer = envelope ?? op.response;
    const resultType = answer
      ? types.output(answer.schema, answer.pointer, `${pascalCase(name)}Response`)
      : root === 'Query'
        ? types.json()
        : 'Boolean';
    const fetchArgs = [`source: ${quote(ctx.source)}`, `path: ${quote(path)}`];
    if (envelope) fetchArgs.push(`select: ${quote(envelope.key)}`);
    if (root === 'Mutation') fetchArgs.push(`method: ${quote(op.method.toUpperCase())}`);
    if (op.body && root === 'Mutation') fetchArgs.push(`body: ${quote('{args.input}')}`);
    if (repeat) fetchArgs.push('repeat: true');
    out.push({
      operation: op,
      root,
      argOf,
      select: envelope?.key,
      field: { name, type: resultType, args, directives: [`@fetch(${fetchArgs.join(', ')})`], description: op.summary },
    });
  }
  return out;
}

/** The @fetch path: `{name}` path parameters and `name=…` query parameters as `{args.…}` placeholders. */
function fetchPath(op: ApiOperation, argOf: ReadonlyMap<string, string>): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const arg = argOf.get(`path ${name}`);
    return arg ? `{args.${arg}}` : whole;
  });
  const query = op.parameters
    .filter((p) => p.in === 'query' && argOf.has(`query ${p.name}`))
    .map((p) => `${encodeURIComponent(p.name).replace(/%20/g, '+')}={args.${argOf.get(`query ${p.name}`)}}`);
  return query.length ? `${path}?${query.join('&')}` : path;
}
