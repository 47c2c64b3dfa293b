/**
 * The SDL of the directives every schema file may use without declaring them (docs/reference.md).
 */
export const DIRECTIVE_NAMES = [
  'from',
  'fetch',
  'batch',
  'cache',
  'invalidate',
  'auth',
  'lookup',
  'lookupBatch',
  'listSize',
  'sideload',
  'poll',
  'webhook',
] as const;

export const DIRECTIVE_DEFINITIONS = /* GraphQL */ `
directive @from(key: String, path: String, types: [String!], value: String)
  on FIELD_DEFINITION | UNION | INTERFACE | ENUM_VALUE | INPUT_FIELD_DEFINITION
directive @fetch(
  source: String!
  path: String
  url: String
  method: String = "GET"
  body: String
  select: String
  repeat: Boolean = false
  response: Boolean = false
) on FIELD_DEFINITION
directive @batch(
  path: String!
  match: String!
  max: Int = 100
  method: String = "GET"
  body: String
  select: String
  repeat: Boolean = false
) on FIELD_DEFINITION
directive @cache(ttl: Int!, stale: Int = 0, missing: Int = 0) on FIELD_DEFINITION | OBJECT
directive @invalidate(source: String!, path: String!, prefix: Boolean = false) repeatable on FIELD_DEFINITION
directive @auth(scopes: [String!] = []) on FIELD_DEFINITION | OBJECT
directive @lookup(
  key: String!
  source: String!
  path: String!
  method: String = "GET"
  body: String
  select: String
) repeatable on OBJECT
directive @lookupBatch(
  key: String!
  path: String!
  match: String!
  max: Int = 100
  method: String = "GET"
  body: String
  select: String
  repeat: Boolean = false
) repeatable on OBJECT
directive @listSize(assumed: Int, slicing: String) on FIELD_DEFINITION
directive @sideload(select: String!, path: String!, match: String = "id", when: String) repeatable on FIELD_DEFINITION
directive @poll(every: Int!) on FIELD_DEFINITION
directive @webhook(name: String!, key: String!) on FIELD_DEFINITION
`;
