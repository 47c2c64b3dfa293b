import type { ASTNode } from 'graphql';

/**
 * A misuse found while compiling directives. `node` is where it is reported; the blueprint turns it
 * into `file:line:col: message`. Directives never throw for a user's mistake: they return problems.
 */
export interface Problem {
  readonly message: string;
  readonly node: ASTNode | undefined;
}
