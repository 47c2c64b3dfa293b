import { type GraphQLError, Lexer, Source, TokenKind, visit, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { measureOperations } from '../plan/measure.js';
import { CODE, documentLimit, introspectionDisabled } from '../errors.js';

/**
 * The limits a GraphQL document must keep before it is validated or planned (docs/hardening.md
 * "Limits"). Every check here is linear in the document and never recurses deeper than the
 * bracket nesting, which the text scan bounds before the (recursive) parser ever runs, so a
 * hostile document costs at most `maxTokens` lexer steps and fails with a 400, not a stack overflow.
 */
export interface DocumentLimits {
  readonly maxDepth: number;
  readonly maxAliases: number;
  readonly maxTokens: number;
  /** Field selections after fragment expansion (each spread counts its fragment's fields again). */
  readonly maxFields: number;
  /** False: `__schema` and `__type` are refused (`__typename` stays). */
  readonly introspection: boolean;
}

/** `__schema` fields a document may select, after fragment expansion (docs/hardening.md). */
export const MAX_SCHEMA_FIELDS = 1;

/**
 * How deep `{`, `[` and `(` may nest in the text: room for an inline fragment at every field level
 * and for nested input values. Fields themselves are held to maxDepth by `checkDocumentShape`.
 */
export function maxBracketNesting(maxDepth: number): number {
  return 2 * maxDepth + 10;
}

/**
 * Lexes `text` once, without parsing: fails when it has more than maxTokens tokens (comments not
 * counted) or nests brackets deeper than maxBracketNesting(maxDepth). Returns undefined when the
 * text is within both, or is not lexically valid (the parser then reports the syntax error).
 */
export function scanDocumentText(text: string, limits: DocumentLimits): GraphQLError | undefined {
  const maxNesting = maxBracketNesting(limits.maxDepth);
  const lexer = new Lexer(new Source(text));
  let tokens = 0;
  let nesting = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      if (++tokens > limits.maxTokens) {
        return documentLimit(
          CODE.TOKEN_LIMIT,
          `The document has more than ${limits.maxTokens} tokens (limits.max_tokens); send a smaller query.`,
          limits.maxTokens,
        );
      }
      const kind = token.kind;
      if (kind === TokenKind.BRACE_L || kind === TokenKind.BRACKET_L || kind === TokenKind.PAREN_L) {
        if (++nesting > maxNesting) {
          return documentLimit(
            CODE.DEPTH_LIMIT,
            `The document nests more than ${maxNesting} brackets deep; fields may nest at most ${limits.maxDepth} levels (limits.max_depth).`,
            limits.maxDepth,
          );
        }
      } else if (kind === TokenKind.BRACE_R || kind === TokenKind.BRACKET_R || kind === TokenKind.PAREN_R) {
        nesting--;
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * Checks a parsed document: aliased fields in the whole document at most maxAliases; no operation
 * deeper than maxDepth fields (root fields are depth 1; fragments are followed; an inline fragment
 * adds no depth); no operation selecting more than maxFields fields once its fragments are expanded;
 * at most one `__schema` and, with introspection off, no `__schema` or `__type`. Every measure is
 * taken once per fragment and summed at its spreads (never expanded), so the cost is linear in the
 * document whatever it would expand to. Call only on documents that passed scanDocumentText.
 */
export function checkDocumentShape(document: DocumentNode, limits: DocumentLimits): GraphQLError | undefined {
  let aliases = 0;
  let introspective = false;
  visit(document, {
    Field(node) {
      if (node.alias) aliases++;
      if (node.name.value === '__schema' || node.name.value === '__type') introspective = true;
    },
  });
  if (aliases > limits.maxAliases) {
    return documentLimit(
      CODE.ALIAS_LIMIT,
      `The document uses ${aliases} aliases; at most ${limits.maxAliases} are allowed (limits.max_aliases).`,
      limits.maxAliases,
    );
  }
  if (introspective && !limits.introspection) {
    return introspectionDisabled(
      'Introspection is disabled on this gateway ([gateway] introspection = false): __schema and __type are not allowed.',
    );
  }
  let schemaFields = 0;
  for (const measure of measureOperations(document)) {
    schemaFields += measure.schemaFields;
    if (measure.fields > limits.maxFields) {
      return documentLimit(
        CODE.FIELD_LIMIT,
        `${operationLabel(measure.operation)} selects more than ${limits.maxFields} fields once its fragments are expanded (limits.max_fields); select fewer fields or spread fragments fewer times.`,
        limits.maxFields,
      );
    }
    if (measure.depth > limits.maxDepth) {
      return documentLimit(
        CODE.DEPTH_LIMIT,
        `${operationLabel(measure.operation)} nests fields ${measure.depth} levels deep; at most ${limits.maxDepth} are allowed (limits.max_depth).`,
        limits.maxDepth,
      );
    }
  }
  if (schemaFields > MAX_SCHEMA_FIELDS) {
    return documentLimit(
      CODE.INTROSPECTION_LIMIT,
      'The document selects __schema more than once (fragments expanded); one __schema field per document is allowed.',
      MAX_SCHEMA_FIELDS,
    );
  }
  return undefined;
}

function operationLabel(operation: OperationDefinitionNode): string {
  return operation.name ? `Operation "${operation.name.value}"` : 'The operation';
}
