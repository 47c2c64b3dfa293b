/**
 * graphql-jit compiles only operations of at most this many field selections (fragments expanded).
 * Its compile time grows with every selection (distinct aliased subtrees are the dear case;
 * docs/performance.md), so
 * a document near limits.max_fields would block the event loop for seconds; graphql-js shapes the
 * large ones instead, in time linear in the response (docs/hardening.md "Limits"). The compiled walk
 * (execute/ask/compiled-walk.ts) leaves plans of more entries to the interpreter for the same reason.
 */
export const JIT_MAX_FIELDS = 500;
