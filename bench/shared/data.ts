/**
 * The benchmark's data, queries and expected answers: the one definition every process uses
 * (backend, peers, drivers, checks), so no peer can drift from what is checked.
 *
 * 10,000 users and 10,000 posts; post i is written by user ((i * 37) mod 10,000) + 1, a
 * permutation, so the 100 posts of the blog query have 100 distinct authors and a post's author
 * tells which post it was. Ids are JSON numbers upstream and `ID` strings in GraphQL answers.
 */

export const RECORD_COUNT = 10_000;

export const authorOf = (postId: number): number => ((postId * 37) % RECORD_COUNT) + 1;
export const userName = (id: number): string => `User ${id}`;

export type BackendPost = { readonly id: number; readonly title: string; readonly author_id: number };
export type BackendUser = { readonly id: number; readonly name: string; readonly email: string };

export const backendPost = (id: number): BackendPost => ({ id, title: `Post ${id}`, author_id: authorOf(id) });
export const backendUser = (id: number): BackendUser => ({ id, name: userName(id), email: `user${id}@example.test` });

/** Request headers every driver sends (wrk, open-loop driver, verification pass). */
export const REQUEST_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json', accept: 'application/json' };

/** The blog workload: one query, 1 + 100 lookups, always the same answer. */
export const QUERY = '{ posts(limit: 100) { id title author { name } } }';
export const REQUEST_BODY = JSON.stringify({ query: QUERY });
export const EXPECTED_ANSWER = {
  data: {
    posts: Array.from({ length: 100 }, (_, i) => {
      const post = backendPost(i + 1);
      return { id: String(post.id), title: post.title, author: { name: userName(post.author_id) } };
    }),
  },
};
/** EXPECTED_ANSWER serialised the way a GraphQL server orders it (selection order). */
export const EXPECTED_BODY = JSON.stringify(EXPECTED_ANSWER);

/** The tiny workload (phase `tiny`): an answer that needs no backend call, so the gateway's own cost per request is what is measured. */
export const TINY_REQUEST = JSON.stringify({ query: '{ __typename }' });
export const TINY_ANSWER = { data: { __typename: 'Query' } };
export const TINY_BODY = JSON.stringify(TINY_ANSWER);

/**
 * The lookup workloads of the shared-batching phase: one lookup per request, a random key out of
 * RECORD_COUNT, so only batching across requests can put several keys in one backend call.
 * (a) is a root field, (b) a root field and then its author.
 */
export const LOOKUP_WORKLOADS = {
  a: {
    query: 'query ($id: ID!) { user(id: $id) { id name } }',
    answer: (key: number): unknown => ({ data: { user: { id: String(key), name: userName(key) } } }),
  },
  b: {
    query: 'query ($id: ID!) { post(id: $id) { author { name } } }',
    answer: (key: number): unknown => ({ data: { post: { author: { name: userName(authorOf(key)) } } } }),
  },
} as const;
export type LookupWorkload = keyof typeof LOOKUP_WORKLOADS;

/** The request body of workload `w` for `key`. */
export const lookupRequest = (w: LookupWorkload, key: number): string =>
  JSON.stringify({ query: LOOKUP_WORKLOADS[w].query, variables: { id: String(key) } });
