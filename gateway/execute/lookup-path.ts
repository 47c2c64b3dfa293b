import { resolvePathTemplate, type PathTemplate, type TemplateInput } from '../../directives/template.js';
import type { FieldBlueprint } from '../blueprint/types.js';
import { failure, type UpstreamOutcome } from '../upstream/outcome.js';

/**
 * A lookup's resolved path (directives/template.ts), or null (a null placeholder: a null field, no
 * request), or, when a value from data cannot go into a URL at all (a string that is not
 * well-formed Unicode: a lone surrogate, which valid JSON can carry), the UPSTREAM_BAD_RESPONSE
 * the field gets instead, nothing sent (docs/hardening.md "Fault matrix"). Arguments never get
 * here with one: their variables are refused before (execute/check-variables.ts).
 */
export function lookupPath(template: PathTemplate, input: TemplateInput, field: FieldBlueprint): string | null | UpstreamOutcome {
  try {
    return resolvePathTemplate(template, input);
  } catch (err) {
    if (!(err instanceof URIError)) throw err;
    const { coordinate } = field;
    const source = field.fetch!.source.name;
    return failure({
      code: 'UPSTREAM_BAD_RESPONSE',
      source,
      message: `a value for the path of ${coordinate} is not well-formed Unicode (a lone surrogate); nothing was sent`,
      detail: `${coordinate}: ${template.text}`,
    });
  }
}
