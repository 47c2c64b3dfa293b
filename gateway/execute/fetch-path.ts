import { placeholderValue, resolvePathTemplate, type PathRefusal, type TemplateInput } from '../../directives/template.js';
import { pathOfUrl } from '../../directives/url-link.js';
import type { FetchBlueprint } from '../blueprint/types.js';
import { failure, type UpstreamOutcome } from '../upstream/outcome.js';

/**
 * The single-fetch path of a @fetch for one lookup (SPEC.md "@fetch"): its `path:` template
 * resolved, or the path after the source's base of its `url:` value. null: the field is null and
 * nothing is sent; a PathRefusal: nothing is sent and the field is an error (refusedOutcome).
 */
export function resolveFetchPath(fetch: FetchBlueprint, input: TemplateInput): string | null | PathRefusal {
  if (fetch.link) return pathOfUrl(placeholderValue(fetch.template.placeholders[0]!, input), fetch.link);
  return resolvePathTemplate(fetch.template, input);
}

/**
 * What a refused lookup is at the field's path, without a request: BAD_USER_INPUT when an argument
 * would make a path segment `.`, `..` or empty, UPSTREAM_BAD_RESPONSE when data would, and
 * UPSTREAM_URL_REFUSED for a URL that is not the source's. Messages never hold the value.
 */
export function refusedOutcome(refusal: PathRefusal, coordinate: string, source: string): UpstreamOutcome {
  if (refusal.from === 'url') {
    return failure({
      code: 'UPSTREAM_URL_REFUSED',
      source,
      message: `${coordinate} was given a URL that is not one of source "${source}" (its scheme, host, port and base path); nothing was sent`,
      detail: `${coordinate}: URL refused`,
    });
  }
  const what = refusal.from === 'args' ? 'an argument' : 'a value the source answered';
  return failure({
    code: refusal.from === 'args' ? 'BAD_USER_INPUT' : 'UPSTREAM_BAD_RESPONSE',
    source,
    message: `${what} would make a path segment of ${coordinate} ".", ".." or empty; nothing was sent`,
    detail: `${coordinate}: dot or empty path segment refused`,
  });
}
