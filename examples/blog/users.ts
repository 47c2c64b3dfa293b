/**
 * The users service (source `users`, 127.0.0.1:4001 in gateway.toml):
 *   GET /users/:id        one user, or 404 {"error": …}
 *   GET /users?ids=1,2,3  the users among those ids that exist, in the order asked (unknown ids skipped)
 *   GET /users            every user
 *   PATCH /users/:id      {"name"?, "email"?}: changes those keys, answers the user (404 when missing)
 * Writes live in memory until the process ends.
 */
import { USERS, type UserRecord } from './data.js';
import { notFound, parseIds, type BlogRoutes } from './http.js';

const byId = new Map<number, UserRecord>(USERS.map((u) => [u.id, u]));

export const usersRoutes: BlogRoutes = [
  [
    '/users',
    ({ query }) => {
      const ids = query.get('ids');
      if (ids === null) return { json: [...byId.values()] };
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
  [
    'PATCH /users/:id',
    ({ params, body }) => {
      const user = byId.get(Number(params.id));
      if (user === undefined) return notFound('user', params.id);
      const patch = (body ?? {}) as { name?: unknown; email?: unknown };
      const updated: UserRecord = {
        ...user,
        ...(typeof patch.name === 'string' ? { name: patch.name } : {}),
        ...(typeof patch.email === 'string' ? { email: patch.email } : {}),
      };
      byId.set(user.id, updated);
      return { json: updated };
    },
  ],
];
