import {
  GraphQLError,
  Kind,
  Lexer,
  Source,
  TokenKind,
  visit,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

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
}

/** Error codes of the document limits (extensions.code). */
export type DocumentLimitCode = 'TOKEN_LIMIT' | 'DEPTH_LIMIT' | 'ALIAS_LIMIT';

/**
 * How deep `{`, `[` and `(` may nest in the text: room for an inline fragment at every field level
 * and for nested input values. Fields themselves are held to maxDepth by `checkDocumentShape`.
 */
export function maxBracketNesting(maxDepth: number): number {
  return 2 * maxDepth + 10;
}

export function limitError(code: DocumentLimitCode, message: string, limit: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code, limit, http: { status: 400 } } });
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
        return limitError('TOKEN_LIMIT', `The document has more than ${limits.maxTokens} tokens (limits.max_tokens); send a smaller query.`, limits.maxTokens);
      }
      const kind = token.kind;
      if (kind === TokenKind.BRACE_L || kind === TokenKind.BRACKET_L || kind === TokenKind.PAREN_L) {
        if (++nesting > maxNesting) {
          return limitError(
            'DEPTH_LIMIT',
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
 * Checks a parsed document: aliased fields in the whole document at most maxAliases, and no
 * operation deeper than maxDepth fields (root fields are depth 1; fragments are followed; an inline
 * fragment adds no depth). Call only on documents that passed scanDocumentText.
 */
export function checkDocumentShape(document: DocumentNode, limits: DocumentLimits): GraphQLError | undefined {
  let aliases = 0;
  visit(document, {
    Field(node) {
      if (node.alias) aliases++;
    },
  });
  if (aliases > limits.maxAliases) {
    return limitError('ALIAS_LIMIT', `The document uses ${aliases} aliases; at most ${limits.maxAliases} are allowed (limits.max_aliases).`, limits.maxAliases);
  }
  const depths = fragmentDepths(document);
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const depth = selectionDepth(definition.selectionSet, depths);
    if (depth > limits.maxDepth) {
      return limitError(
        'DEPTH_LIMIT',
        `${operationLabel(definition)} nests fields ${depth} levels deep; at most ${limits.maxDepth} are allowed (limits.max_depth).`,
        limits.maxDepth,
      );
    }
  }
  return undefined;
}

function operationLabel(operation: OperationDefinitionNode): string {
  return operation.name ? `Operation "${operation.name.value}"` : 'The operation';
}

/** Field depth of a selection set, reading spread fragments' depths from `fragments` (unknown: 0). */
function selectionDepth(set: SelectionSetNode, fragments: ReadonlyMap<string, number>): number {
  let max = 0;
  for (const selection of set.selections) {
    let depth: number;
    if (selection.kind === Kind.FIELD) depth = 1 + (selection.selectionSet ? selectionDepth(selection.selectionSet, fragments) : 0);
    else if (selection.kind === Kind.INLINE_FRAGMENT) depth = selectionDepth(selection.selectionSet, fragments);
    else depth = fragments.get(selection.name.value) ?? 0;
    if (depth > max) max = depth;
  }
  return max;
}

function spreadNames(set: SelectionSetNode, into: Set<string>): Set<string> {
  for (const selection of set.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD) into.add(selection.name.value);
    else if (selection.selectionSet) spreadNames(selection.selectionSet, into);
  }
  return into;
}

/**
 * The field depth of every fragment, computed once each in dependency order with an explicit
 * stack (a chain of thousands of fragments must not recurse). A spread that closes a cycle (which
 * validation rejects anyway) counts 0.
 */
function fragmentDepths(document: DocumentNode): Map<string, number> {
  const definitions = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION && !definitions.has(d.name.value)) definitions.set(d.name.value, d);
  const depths = new Map<string, number>();
  const entered = new Set<string>();
  for (const start of definitions.keys()) {
    const stack = [start];
    while (stack.length > 0) {
      const name = stack[stack.length - 1]!;
      const definition = definitions.get(name)!;
      if (depths.has(name)) {
        stack.pop();
      } else if (!entered.has(name)) {
        entered.add(name);
        for (const dep of spreadNames(definition.selectionSet, new Set())) {
          if (definitions.has(dep) && !entered.has(dep)) stack.push(dep);
        }
      } else {
        depths.set(name, selectionDepth(definition.selectionSet, depths));
        stack.pop();
      }
    }
  }
  return depths;
}
