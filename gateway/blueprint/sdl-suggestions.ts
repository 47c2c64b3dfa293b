import { GraphQLError, Kind, specifiedDirectives, type DocumentNode } from 'graphql';
import { closestName } from '../../directives/suggest.js';

const UNKNOWN_DIRECTIVE = /^Unknown directive "@([^"]+)"\.$/;
const UNKNOWN_ARGUMENT = /^Unknown argument "([^"]+)" on directive "@([^"]+)"\.$/;

/**
 * graphql-js's SDL validation names an unknown directive or directive argument without a
 * suggestion; this adds the closest known name in graphql-js's wording (`... Did you mean "@fetch"?`). Known
 * directives are graphql-js's own and every one the document declares (the gateway's included).
 */
export function withSdlSuggestion(err: GraphQLError, document: DocumentNode): GraphQLError {
  const directive = UNKNOWN_DIRECTIVE.exec(err.message);
  const argument = directive ? undefined : UNKNOWN_ARGUMENT.exec(err.message);
  if (!directive && !argument) return err;
  const declared = new Map<string, string[]>(specifiedDirectives.map((d) => [d.name, d.args.map((a) => a.name)]));
  for (const def of document.definitions) {
    if (def.kind === Kind.DIRECTIVE_DEFINITION) declared.set(def.name.value, (def.arguments ?? []).map((a) => a.name.value));
  }
  const close = directive ? closestName(directive[1]!, declared.keys()) : closestName(argument![1]!, declared.get(argument![2]!) ?? []);
  if (close === undefined) return err;
  // graphql-js's own wording for suggestions (as in "Cannot query field ... Did you mean ...?").
  const hint = directive ? `Did you mean "@${close}"?` : `Did you mean "${close}"?`;
  return new GraphQLError(`${err.message} ${hint}`, { nodes: err.nodes, source: err.source, positions: err.positions });
}
