import { GraphQLError, Kind, specifiedDirectives, type DocumentNode } from 'graphql';
import { closestName } from '../../directives/suggest.js';

const UNKNOWN_DIRECTIVE = /^Unknown directive "@([^"]+)"\.$/;

/**
 * graphql-js's SDL validation names an unknown directive without a suggestion (it suggests
 * directive arguments itself); this adds the closest known directive (directives/suggest.ts) in
 * graphql-js's wording: `Unknown directive "@fetc". Did you mean "@fetch"?`. Known directives are
 * graphql-js's own and every one the document declares (the gateway's included).
 */
export function withSdlSuggestion(err: GraphQLError, document: DocumentNode): GraphQLError {
  const unknown = UNKNOWN_DIRECTIVE.exec(err.message)?.[1];
  if (unknown === undefined) return err;
  const known = specifiedDirectives.map((d) => d.name);
  for (const def of document.definitions) if (def.kind === Kind.DIRECTIVE_DEFINITION) known.push(def.name.value);
  const close = closestName(unknown, known);
  if (close === undefined) return err;
  return new GraphQLError(`${err.message} Did you mean "@${close}"?`, { nodes: err.nodes, source: err.source, positions: err.positions });
}
