/**
 * The comments service (source `comments`, 127.0.0.1:4003 in gateway.toml):
 *   GET /posts/:id/comments     the comments of one post ([] when it has none)
 *   GET /comments?post_ids=1,2  the comments of several posts, each carrying its post_id
 *   GET /comments/:id           one comment, or 404 {"error": …}
 *   GET /posts/:id/stats        a post's live numbers: {post_id, comment_count, updated_at}
 *   GET /stats?post_ids=1,2     the live numbers of several posts (what `Subscription.postStats` polls)
 *
 * The comment counts are live: every post gains a (pretend) comment every 10 seconds after start,
 * so a subscription to `postStats` in GraphiQL shows a new event every 10 seconds.
 */
import { COMMENTS, type CommentRecord } from './data.js';
import { notFound, parseIds, type BlogRoutes } from './http.js';

const byId = new Map<number, CommentRecord>(COMMENTS.map((c) => [c.id, c]));
const STARTED = Date.now();
const LIVE_EVERY_MS = 10_000;

/** A post's live numbers now: its comments plus one per 10 s since start (the same for every reader). */
function statsOf(postId: number): { post_id: number; comment_count: number; updated_at: string } {
  const ticks = Math.floor((Date.now() - STARTED) / LIVE_EVERY_MS);
  const count = COMMENTS.filter((c) => c.post_id === postId).length + ticks;
  return { post_id: postId, comment_count: count, updated_at: new Date(STARTED + ticks * LIVE_EVERY_MS).toISOString() };
}

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
  ['/posts/:id/stats', ({ params }) => ({ json: statsOf(Number(params.id)) })],
  ['/stats', ({ query }) => ({ json: parseIds(query.get('post_ids')).map(statsOf) })],
];
