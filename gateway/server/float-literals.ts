import { GraphQLFloat, getNamedType, type ASTVisitor, type ValidationContext } from 'graphql';
import { badUserInput } from '../errors.js';

/**
 * A validation rule beside graphql-js's own (docs/reference.md "Exact integers"): an integer literal
 * beyond ±2^53 where a `Float` is expected is refused with BAD_USER_INPUT, as graphql-js refuses a
 * too large `Int` literal, instead of being rounded to the nearest double.
 */
export function ExactFloatLiteralsRule(context: ValidationContext): ASTVisitor {
  return {
    IntValue(node) {
      const type = context.getInputType();
      if (!type || getNamedType(type) !== GraphQLFloat || Number.isSafeInteger(Number(node.value))) return;
      context.reportError(badUserInput(`Float cannot represent exactly the integer ${node.value}.`, node));
    },
  };
}
