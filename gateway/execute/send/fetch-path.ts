import { placeholderValue, resolvePathTemplate, type PathRefusal, type TemplateInput } from '../../../directives/template.js';
import { CODE } from '../../errors.js';
import { pathOfUrl } from '../../../directives/url-link.js';
import type { FetchBlueprint } from '../../blueprint/types.js';
import { failure, type UpstreamOutcome } from '../../upstream/outcome.js';

/**
 * The single-fetch path of a @fetch for one lookup (docs/reference.md): its `path:` template
 * resolved, or the path after the source's base of its `url:` value. null: the field is null and
 * nothing is sent; a PathRefusal: nothing is sent and the field is an error (refusedOutcome).
 */
export function resolveFetchPath(fetch: FetchBlueprint, input: TemplateInput): string | null | PathRefusal {
  if (fetch.link) return pathOfUrl(placeholderValue(fetch.template.placeholders[0]!, input), fetch.link);
  return resolvePathTemplate(fetch.template, input);
}

/**
 * A lookup's path, or what the lookup is instead of a request: null (a null placeholder: a null
 * field) or an error outcome at the field's path (a refused segment or URL, refusedOutcome; or a
 * value that is not well-formed Unicode, a lone surrogate, which valid JSON can carry: an
 * UPSTREAM_BAD_RESPONSE, docs/hardening.md "Fault matrix"). Arguments never get here with one:
 * their variables are refused before (execute/ask/check-variables.ts).
 */
export function lookupPath(fetch: FetchBlueprint, input: TemplateInput, coordinate: string): string | null | UpstreamOutcome {
  let path: string | null | PathRefusal;
  try {
    path = resolveFetchPath(fetch, input);
  } catch (err) {
    if (!(err instanceof URIError)) throw err;
    return failure({
      code: CODE.UPSTREAM_BAD_RESPONSE,
      source: fetch.source.name,
      message: `a value for the path of ${coordinate} is not well-formed Unicode (a lone surrogate); nothing was sent`,
      detail: `${coordinate}: ${fetch.template.text}`,
    });
  }
  return path === null || typeof path === 'string' ? path : refusedOutcome(path, coordinate, fetch.source.name);
}

/**
 * What a refused lookup is at the field's path, without a request: BAD_USER_INPUT when an argument
 * would make a path segment `.`, `..` or empty, UPSTREAM_BAD_RESPONSE when data would, and
 * UPSTREAM_URL_REFUSED for a URL that is not the source's. Messages never hold the value.
 */
export function refusedOutcome(refusal: PathRefusal, coordinate: string, source: string): UpstreamOutcome {
  if (refusal.from === 'url') {
    return failure({
      code: CODE.UPSTREAM_URL_REFUSED,
      source,
      message: `${coordinate} was given a URL that is not one of source "${source}" (its scheme, host, port and base path); nothing was sent`,
      detail: `${coordinate}: URL refused`,
    });
  }
  const what = refusal.from === 'args' ? 'an argument' : 'a value the source answered';
  return failure({
    code: refusal.from === 'args' ? CODE.BAD_USER_INPUT : CODE.UPSTREAM_BAD_RESPONSE,
    source,
    message: `${what} would make a path segment of ${coordinate} ".", ".." or empty; nothing was sent`,
    detail: `${coordinate}: dot or empty path segment refused`,
  });
}
