/**
 * The comments service (source `comments`, 127.0.0.1:4003 in gateway.toml):
 *   GET /posts/:id/comments     the comments of one post ([] when it has none)
 *   GET /comments?post_ids=1,2  the comments of several posts, each carrying its post_id
 *   GET /comments/:id           one comment, or 404 {"error": …}
 */
import { COMMENTS, type CommentRecord } from './data.js';
import { notFound, parseIds, type BlogRoutes } from './http.js';

const byId = new Map<number, CommentRecord>(COMMENTS.map((c) => [c.id, c]));

export const commentsRoutes: BlogRoutes = [
  [
    '/comments',
    ({ query }) => {
      const postIds = new Set(parseIds(query.get('post_ids')));
      return { json: COMMENTS.filter((c) => postIds.has(c.post_id)) };
    },
  ],
  [
    '/comments/:id',
    ({ params }) => {
      const comment = byId.get(Number(params.id));
      return comment === undefined ? notFound('comment', params.id) : { json: comment };
    },
  ],
  ['/posts/:id/comments', ({ params }) => ({ json: COMMENTS.filter((c) => String(c.post_id) === params.id) })],
];
