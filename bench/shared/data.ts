/**
 * The benchmark's data set, query and expected answer: the one definition every process uses
 * (backend, peers, drivers, checks), so no peer can drift from what is checked.
 *
 * 100 posts by 100 distinct authors. Post i (1..100) is written by user ((i * 37) mod 100) + 1,
 * a permutation, so authors are distinct and not in post order. Ids are JSON numbers upstream
 * and `ID` strings in GraphQL answers.
 */

export const POST_COUNT = 100;
export const USER_COUNT = 100;

/** The benchmark operation, sent as `{"query": QUERY}` by every driver to every server. */
export const QUERY = '{ posts(limit: 100) { id title author { name } } }';
/** The HTTP request body of one benchmark query. */
export const REQUEST_BODY = JSON.stringify({ query: QUERY });
/** Request headers every driver sends (wrk, open-loop driver, verification pass). */
export const REQUEST_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/json',
};

/** A post as the backend serves it. */
export interface BackendPost {
  readonly id: number;
  readonly title: string;
  readonly body: string;
  readonly author_id: number;
}

/** A user as the backend serves it. */
export interface BackendUser {
  readonly id: number;
  readonly name: string;
  readonly email: string;
}

/** One post of the GraphQL answer. */
export interface AnswerPost {
  readonly id: string;
  readonly title: string;
  readonly author: { readonly name: string } | null;
}

export interface Answer {
  readonly data: { readonly posts: readonly AnswerPost[] };
}

export function authorOf(postId: number): number {
  return ((postId * 37) % USER_COUNT) + 1;
}

export const POSTS: readonly BackendPost[] = Array.from({ length: POST_COUNT }, (_, i) => {
  const id = i + 1;
  return { id, title: `Post ${id}`, body: `Body of post ${id}.`, author_id: authorOf(id) };
});

export const USERS: ReadonlyMap<number, BackendUser> = new Map(
  Array.from({ length: USER_COUNT }, (_, i) => {
    const id = i + 1;
    return [id, { id, name: `User ${id}`, email: `user${id}@example.test` }] as const;
  }),
);

/** The answer every server must give to QUERY, as data. */
export const EXPECTED_ANSWER: Answer = {
  data: {
    posts: POSTS.map((p) => ({
      id: String(p.id),
      title: p.title,
      author: { name: (USERS.get(p.author_id) as BackendUser).name },
    })),
  },
};

/** EXPECTED_ANSWER serialised the way a GraphQL server orders it (selection order). */
export const EXPECTED_BODY = JSON.stringify(EXPECTED_ANSWER);

/**
 * The request that measures a server's HTTP front alone (compare-builds' `front` variant): nothing
 * to fetch, so what it costs is the HTTP server, the request's parsing and the answer's writing.
 */
export const FRONT_REQUEST_BODY = JSON.stringify({ query: '{ __typename }' });
export const FRONT_EXPECTED_BODY = JSON.stringify({ data: { __typename: 'Query' } });
