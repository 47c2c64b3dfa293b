/**
 * The users service (source `users`, 127.0.0.1:4001 in gateway.toml):
 *   GET /users/:id        one user, or 404 {"error": …}
 *   GET /users?ids=1,2,3  the users among those ids that exist, in the order asked (unknown ids skipped)
 *   GET /users            every user
 */
import { USERS, type UserRecord } from './data.js';
import { notFound, parseIds, type BlogRoutes } from './http.js';

const byId = new Map<number, UserRecord>(USERS.map((u) => [u.id, u]));

export const usersRoutes: BlogRoutes = [
  [
    '/users',
    ({ query }) => {
      const ids = query.get('ids');
      if (ids === null) return { json: USERS };
      return { json: parseIds(ids).flatMap((id) => byId.get(id) ?? []) };
    },
  ],
  [
    '/users/:id',
    ({ params }) => {
      const user = byId.get(Number(params.id));
      return user === undefined ? notFound('user', params.id) : { json: user };
    },
  ],
];
