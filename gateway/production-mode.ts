/**
 * Imported first by the CLI, before graphql-js loads: graphql-js picks its `instanceOf` at load
 * time, and its development variant (extra checks on every type test) costs several percent of a
 * request's CPU. A user who sets NODE_ENV explicitly keeps their value.
 */
process.env.NODE_ENV ??= 'production';
export {};
