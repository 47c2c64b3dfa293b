/**
 * The SDL of the directives every schema file may use without declaring them (SPEC.md, "Directives").
 */
export const DIRECTIVE_NAMES = ['from', 'fetch', 'batch', 'cache'] as const;

export const DIRECTIVE_DEFINITIONS = /* GraphQL */ `
directive @from(key: String!) on FIELD_DEFINITION
directive @fetch(source: String!, path: String!) on FIELD_DEFINITION
directive @batch(path: String!, match: String!, max: Int = 100) on FIELD_DEFINITION
directive @cache(ttl: Int!) on FIELD_DEFINITION
`;
