import { renderBodyTemplate, type BodyPlaceholder } from '../../../directives/body-template.js';
import { readDotted } from '../../../directives/dotted.js';
import type { FetchBlueprint } from '../../blueprint/types.js';

/** Where a body's placeholders read from: the parent object and the field's arguments. */
export interface BodyScope {
  readonly parent: unknown;
  readonly args: Readonly<Record<string, unknown>>;
  /** The verified token's claims, for `{auth.*}`; undefined without a valid token. */
  readonly auth?: unknown;
}

/**
 * The JSON text a `@fetch(body:)` sends for one lookup (docs/reference.md: body). `{args.a.b}`
 * reads the argument a and its input field b (by schema names; an input object renders with its
 * fields' wire names, blueprint/input-wire.ts); `{parent.a.b}` the JSON steps the blueprint bound
 * through each step's @from. A missing step is undefined (absent, directives/body-template.ts).
 */
export function renderFetchBody(body: NonNullable<FetchBlueprint['body']>, scope: BodyScope): string {
  return renderBodyTemplate(body.template, (p: BodyPlaceholder) => {
    if (p.kind === 'args') {
      const value = readDotted(scope.args, p.path);
      const wire = body.argsWire?.get(p);
      return wire && value !== null && value !== undefined ? wire(value) : value;
    }
    if (p.kind === 'parent') return readDotted(scope.parent, body.parentReads.get(p) ?? p.path);
    if (p.kind === 'auth') return readDotted(scope.auth, p.path);
    return undefined;
  });
}
