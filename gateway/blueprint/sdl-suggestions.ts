import { GraphQLError, Kind, specifiedDirectives, type DocumentNode } from 'graphql';
import { closestName } from '../../directives/suggest.js';

const UNKNOWN_DIRECTIVE = /^Unknown directive "@([^"]+)"\.$/;
const UNKNOWN_ARGUMENT = /^Unknown argument "([^"]+)" on directive "@([^"]+)"\.$/;

/**
 * graphql-js's SDL validation names an unknown directive without a suggestion, and suggests directive
 * arguments only by its own looser rule (no prefixes); this adds the closest known directive (directives/suggest.ts) in
 * graphql-js's wording: `Unknown directive "@fetc". Did you mean "@fetch"?`. Known directives are
 * graphql-js's own and every one the document declares (the gateway's included).
 */
export function withSdlSuggestion(err: GraphQLError, document: DocumentNode): GraphQLError {
  const argument = UNKNOWN_ARGUMENT.exec(err.message);
  if (argument) return withArgumentSuggestion(err, document, argument[1] ?? '', argument[2] ?? '');
  const unknown = UNKNOWN_DIRECTIVE.exec(err.message)?.[1];
  if (unknown === undefined) return err;
  const known = specifiedDirectives.map((d) => d.name);
  for (const def of document.definitions) if (def.kind === Kind.DIRECTIVE_DEFINITION) known.push(def.name.value);
  const close = closestName(unknown, known);
  if (close === undefined) return err;
  return new GraphQLError(`${err.message} Did you mean "@${close}"?`, { nodes: err.nodes, source: err.source, positions: err.positions });
}

/** `Unknown argument "miss" on directive "@cache".` gains `Did you mean "missing"?` when graphql-js gave none. */
function withArgumentSuggestion(err: GraphQLError, document: DocumentNode, name: string, directive: string): GraphQLError {
  const def = document.definitions.find((d) => d.kind === Kind.DIRECTIVE_DEFINITION && d.name.value === directive);
  if (!def || def.kind !== Kind.DIRECTIVE_DEFINITION) return err;
  const close = closestName(
    name,
    (def.arguments ?? []).map((a) => a.name.value),
  );
  if (close === undefined) return err;
  return new GraphQLError(`${err.message} Did you mean "${close}"?`, { nodes: err.nodes, source: err.source, positions: err.positions });
}
