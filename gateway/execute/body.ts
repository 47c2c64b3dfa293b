import { renderBodyTemplate, type BodyPlaceholder } from '../../directives/body-template.js';
import { readDotted } from '../../directives/dotted.js';
import type { FetchBlueprint } from '../blueprint/types.js';

/** Where a body's placeholders read from: the parent object and the field's arguments. */
export interface BodyScope {
  readonly parent: unknown;
  readonly args: Readonly<Record<string, unknown>>;
  /** The verified token's claims, for `{auth.*}`; undefined without a valid token. */
  readonly auth?: unknown;
}

/**
 * The JSON text a `@fetch(body:)` sends for one lookup (docs/reference.md: body). `{args.a.b}`
 * reads the argument a and its input field b; `{parent.a.b}` the JSON steps the blueprint bound
 * through each step's @from. A missing step is null.
 */
export function renderFetchBody(body: NonNullable<FetchBlueprint['body']>, scope: BodyScope): string {
  return renderBodyTemplate(body.template, (p: BodyPlaceholder) => {
    if (p.kind === 'args') return readDotted(scope.args, p.path);
    if (p.kind === 'parent') return readDotted(scope.parent, body.parentReads.get(p) ?? p.path);
    if (p.kind === 'auth') return readDotted(scope.auth, p.path);
    return undefined;
  });
}
